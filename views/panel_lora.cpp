// LoRA rank effects: how much of a weight update a rank-r adapter can hold, what it costs, and how the
// α/r vs α/√r scale behaves. Two modes: a synthetic ΔW fitted directly (core/experiments/lora_experiment), and a
// real fine-tune of a model at ranks 1 … 16 against full fine-tuning (core/experiments/lora_rank_sweep): a task
// model (sort, induction) on a new toy task, or a language model (poems, quotes) on a text it was not trained on,
// encoded with its own tokenizer.json (the Training panel's fine-tuning does the same).
//
// [SECTION] state
// [SECTION] figures (built from core/experiments/lora_experiment results)
// [SECTION] fine-tuning figures (built from core/experiments/lora_rank_sweep results)
// [SECTION] panel: controls, recompute (worker thread), draw
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "core/experiments/lora_experiment.h"
#include "core/experiments/lora_rank_sweep.h"
#include "core/experiments/stepper_model.h"
#include "core/text/corpus.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/train/train_settings.h"
#include "views/widgets.h"

namespace tw {

namespace lora_panel {

const PanelInfo kInfo = {"lora", N_("LoRA rank effects"), N_("Fine-tuning"),
                         N_("Low-rank adapters: SVD optimum vs trained LoRA per rank, parameter budget, $\\alpha/r$ vs "
                            "$\\alpha/\\sqrt{r}$")};

// [SECTION] state

enum class LoraMode { Synthetic, Finetune };
enum class FinetuneBase { Sort, Induction, TrainingRun, Poems, Quotes };
enum class FinetuneTask { Reverse, Copy, Sort, Text };  // Text: a language model's new text
enum class FinetuneText { Auto, SongCi, TangPoems, Quotes, File };

struct LoraState {
  LoraMode mode = LoraMode::Synthetic;
  int d_in = 64;        // columns of ΔW
  int d_out = 64;       // rows of ΔW
  int rank = 4;         // r (clamped to min(d_in, d_out))
  float alpha = 8.0f;   // lora_alpha
  bool rslora = false;  // α/√r instead of α/r
  int true_rank = 8;    // rank of ΔW's signal (clamped)
  float decay = 0.7f;   // σ_i = decay^i
  float noise = 0.02f;  // full-rank noise on ΔW
  int steps = 300;      // gradient steps per adapter
  float lr = 0.01f;     // learning rate
  LoraOptimizer optimizer = LoraOptimizer::Adam;
  bool train_sweep = true;  // train an adapter at every rank of the error plot
  int seed = 1;
  // fine-tuning mode
  FinetuneBase ft_base = FinetuneBase::Sort;                          // the model fine-tuned
  FinetuneTask ft_task = FinetuneTask::Reverse;                       // the new task
  int ft_length = 6;                                                  // symbols per prompt
  int ft_alphabet = 3;                                                // symbols to draw from
  FinetuneText ft_text = FinetuneText::Auto;                          // the new text (ft_task = Text)
  // FinetuneText::File (and Auto for quotes): English the shipped quotes model never read (it learned every fortune
  // file), on every Debian system (base-files).
  std::string ft_text_file = "/usr/share/common-licenses/GPL-3";
  int ft_steps = 200;                                                 // optimizer steps per run
  int ft_batch = 16;                                                  // sequences per step
  float ft_alpha = 16.0f;                                             // lora_alpha of every rank
  bool ft_rslora = false;                                             // α/√r
  float ft_lr = 0.01f;                                                // AdamW lr of the adapters
  float ft_lr_full = 0.003f;                                          // AdamW lr of full fine-tuning
  std::shared_ptr<const StepperModel> run_model;  // the Training panel's model (ft_base = TrainingRun)
};

LoraExperimentParams params_of(const LoraState& s) {
  const int k = std::max(1, std::min(s.d_in, s.d_out));  // the largest rank of a d_out × d_in matrix
  return {.d_in = s.d_in,
          .d_out = s.d_out,
          .rank = std::clamp(s.rank, 1, k),
          .alpha = s.alpha,
          .rslora = s.rslora,
          .true_rank = std::clamp(s.true_rank, 1, k),
          .decay = s.decay,
          .noise = s.noise,
          .steps = s.steps,
          .lr = s.lr,
          .optimizer = s.optimizer,
          .seed = static_cast<uint64_t>(s.seed),
          .train_sweep = s.train_sweep};
}

using SyntheticResult = Checked<LoraExperimentParams, LoraExperiment>;
struct LoraResult {
  LoraMode mode = LoraMode::Synthetic;
  std::shared_ptr<const SyntheticResult> syn;  // synthetic mode
  LoraSweepParams ft_params;                   // fine-tuning mode: what ran
  std::string ft_base, ft_task;                // names for titles ("trained sort", "reverse", "100 Song ci")
  std::string ft_error;                        // why it could not run
  LoraSweep ft;
};
using ResultPtr = std::shared_ptr<const LoraResult>;

// The base model of the fine-tuning mode; false + one line when it cannot be had.
bool finetune_base(const LoraState& s, Progress& progress, StepperModel* out, std::string* error) {
  if (s.ft_base == FinetuneBase::TrainingRun) {
    if (!s.run_model) return *error = tr("no model in the Training panel yet: train or load one there"), false;
    *out = *s.run_model;
    return true;
  }
  const std::string dir = shipped_models_dir();
  if (dir.empty()) return *error = tr("the shipped models (assets/models) were not found"), false;
  if (s.ft_base == FinetuneBase::Poems || s.ft_base == FinetuneBase::Quotes)  // as the stepper opens them
    return load_hf_stepper_model(
        dir + (s.ft_base == FinetuneBase::Poems ? "/poems" : "/quotes"), [&](double) { return !progress.cancelled(); },
        out, error);
  return load_task_checkpoint(dir + (s.ft_base == FinetuneBase::Sort ? "/sort" : "/induction"), out, error);
}

// The new text of a language model: the corpus (or the user's file) and its name for titles. Auto: the Song ci for
// every model but quotes, which gets the text file (by default the GPL-3 text, English it never saw).
bool finetune_text(const LoraState& s, LanguageSource* out, std::string* name, std::string* error) {
  FinetuneText text = s.ft_text;
  if (text == FinetuneText::Auto) text = s.ft_base == FinetuneBase::Quotes ? FinetuneText::File : FinetuneText::SongCi;
  if (text != FinetuneText::File) {
    const CorpusId id = text == FinetuneText::SongCi      ? CorpusId::SongCi
                        : text == FinetuneText::TangPoems ? CorpusId::TangPoems
                                                          : CorpusId::EnglishQuotes;
    out->corpus = corpus_info(id).name;
    *name = tr(corpus_info(id).title);
    return true;
  }
  if (s.ft_text_file.empty()) return *error = tr("new text: choose a UTF-8 text file"), false;
  out->corpus = "file";
  *name = std::filesystem::path(s.ft_text_file).filename().string();
  return read_text_file(s.ft_text_file, &out->text, error);
}

ResultPtr compute_finetune(const LoraState& s, Progress& progress) {
  auto r = std::make_shared<LoraResult>();
  r->mode = LoraMode::Finetune;
  StepperModel base;
  if (!finetune_base(s, progress, &base, &r->ft_error)) return r;
  LoraSweepParams& p = r->ft_params;
  p.model = base.config;
  p.base = base.weights;
  // A language model reads text through its tokenizer.json; a task model reads its task's symbols.
  const bool language_model = !base.tokenizer_json.empty();
  if (s.ft_task == FinetuneTask::Text) {
    if (!language_model) {
      r->ft_error =
          subst(tr("{0} has no tokenizer.json: a new text needs a language model (poems, quotes)"), {base.name});
      return r;
    }
    p.task.kind = TaskKind::Language;
    p.task.context = std::min(32, base.config.max_seq);  // the shipped language models' context; keeps it seconds
    if (!finetune_text(s, &p.task.language, &r->ft_task, &r->ft_error)) return r;
    p.task.language.tokenizer_json = base.tokenizer_json;  // the vocabulary stays the model's
  } else {
    if (language_model) {
      r->ft_error =
          subst(tr("{0} is a language model: fine-tune it on a new text (the toy tasks are for sort and induction)"),
                {base.name});
      return r;
    }
    static const TaskKind kinds[] = {TaskKind::Reverse, TaskKind::Copy, TaskKind::Sort};
    p.task = {.kind = kinds[static_cast<int>(s.ft_task)],
              .length = s.ft_length,
              .alphabet = s.ft_alphabet,
              .val_examples = 128};
    r->ft_task = tr(to_string(p.task.kind));
  }
  p.alpha = s.ft_alpha;
  p.rslora = s.ft_rslora;
  p.steps = s.ft_steps;
  p.batch = s.ft_batch;
  p.lr_lora = s.ft_lr;
  p.lr_full = s.ft_lr_full;
  p.seed = static_cast<uint64_t>(s.seed);
  r->ft_base = base.name;
  r->ft_error = check_lora_sweep(p);
  if (!r->ft_error.empty()) return r;
  r->ft = run_lora_sweep(p, [&progress](float f) {
    progress.set(f);
    return !progress.cancelled();
  });
  return r;
}

// Adapters already trained for the current target and training setting: dragging the rank, switching the sweep
// or changing the fine-tuning controls retrains nothing (the worker is the only user; the memo locks anyway).
LoraFitMemo& fit_memo() {
  static LoraFitMemo memo;
  return memo;
}
std::function<bool(float)> progress_of(Progress& progress) {
  return [&progress](float f) {
    progress.set(f);
    return !progress.cancelled();
  };
}

// The synthetic mode answers first with the chosen rank's adapter and every figure but the sweep's trained curve
// (about 2% of the work at the defaults; marked pending), then refine() trains the sweep's other ranks.
ResultPtr compute(const LoraState& s, Progress& progress) {
  if (s.mode == LoraMode::Finetune) return compute_finetune(s, progress);
  auto r = std::make_shared<LoraResult>();
  r->syn = run_checked(params_of(s), [&progress](const LoraExperimentParams& p) {
    return run_lora_experiment_first(p, progress_of(progress), &fit_memo());
  });
  return r;
}
bool pending(const LoraResult& r) {
  return r.mode == LoraMode::Synthetic && r.syn && r.syn->error.empty() && r.syn->a.sweep_pending &&
         !r.syn->a.cancelled;
}
ResultPtr refine(const LoraState&, const LoraResult& first, Progress& progress) {
  auto r = std::make_shared<LoraResult>(first);
  auto syn = std::make_shared<SyntheticResult>(*first.syn);
  complete_lora_sweep(syn->a, syn->params, progress_of(progress), &fit_memo());
  r->syn = std::move(syn);
  return r;
}

// Rough multiply-adds of one experiment, to decide whether to wait for it in the same frame.
using plot::fmt;

// [SECTION] figures

plot::Figure spectrum_figure(const SyntheticResult& r) {
  plot::Figure fig("spectrum", tr("Singular values of $\\Delta W$"));
  const VecD& s = r.a.sigma;
  fig.note = subst(tr("true rank {0}, decay {1}, noise {2}; the adapter keeps at most the first $r$"),
                   {std::to_string(r.params.true_rank), fmt("%.2f", r.params.decay), fmt("%.3g", r.params.noise)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("index $i$"), "", "$\\sigma_i$", "").csv_columns("index i", "\xCF\x83_i");
  ax.y.scale = plot::Scale::Log10;
  ax.flags |= plot::AxesFlags_NoLegend;
  std::vector<double> xs, ys;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s[i] > 0 && std::isfinite(s[i])) xs.push_back(static_cast<double>(i + 1)), ys.push_back(s[i]);
  ax.line("$\\sigma$", xs, ys).style = plot::LineStyle::LineAndMarkers;
  ax.vline("$r$ = " + std::to_string(r.params.rank), r.params.rank + 0.5);
  return fig;
}

plot::Figure error_figure(const SyntheticResult& r) {
  plot::Figure fig("error", tr("Relative error $\\|\\Delta W - s\\cdot BA\\| / \\|\\Delta W\\|$ against rank"));
  fig.note = subst(tr("LoRA: {0} {1} steps, lr {2}, from $A \\sim U(\\pm 1/\\sqrt{d_{in}})$, $B = 0$; the SVD curve is "
                      "the optimum (Eckart\xE2\x80\x93Young)"),
                   {std::to_string(r.params.steps), r.params.optimizer == LoraOptimizer::Adam ? "Adam" : "SGD",
                    fmt("%.3g", r.params.lr)});
  if (r.a.sweep_pending) fig.note += std::string(" ") + tr("(training the other ranks...)");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("rank $r$"), "", tr("relative error"), "");
  ax.x.scale = plot::Scale::Log10;
  std::vector<double> xs, svd, lx, lora;
  for (size_t i = 0; i < r.a.ranks.size(); ++i) {
    xs.push_back(r.a.ranks[i]);
    svd.push_back(r.a.svd_error[i]);
    if (std::isfinite(r.a.lora_error[i])) lx.push_back(r.a.ranks[i]), lora.push_back(r.a.lora_error[i]);
  }
  // The optimum is drawn wide underneath so a LoRA curve lying on it stays visible as a band.
  plot::LineItem& opt = ax.line(tr("truncated SVD (optimum)"), xs, svd);
  opt.width = 6;
  opt.color = 0x1F77B466;
  if (!lx.empty()) {
    plot::LineItem& trained = ax.line(tr("LoRA, trained"), lx, lora);
    trained.style = plot::LineStyle::LineAndMarkers;
    trained.color = 0xD95F02FF;
  }
  ax.vline("$r$ = " + std::to_string(r.params.rank), r.params.rank);
  ax.set_y_range(0, 1.05);
  plot::Table& t = fig.table;
  t.header = {"rank", "svd_error", "lora_error", "params"};
  for (size_t i = 0; i < r.a.ranks.size(); ++i)
    t.add_row(
        {static_cast<double>(r.a.ranks[i]), r.a.svd_error[i], r.a.lora_error[i], static_cast<double>(r.a.params[i])});
  return fig;
}

plot::Figure params_figure(const SyntheticResult& r) {
  plot::Figure fig("params",
                   tr("Trainable weights: LoRA $r(d_{in} + d_{out})$ vs full $d_{in}\\cdot d_{out}$ (square $d$)"));
  const int rank = r.params.rank;
  fig.note = subst(tr("here {0}% of {1}; at $d$ = 4096, $r$ = 8: {2}%"),
                   {fmt("%.4g", r.a.param_percent), std::to_string(r.a.full_params),
                    fmt("%.4g", lora_param_percent(4096, 4096, 8))});
  plot::Axes& ax = fig.axes();
  ax.setup("$d$", "", tr("weights"), "").csv_columns("d", "weights");
  ax.x.scale = plot::Scale::Log10;
  ax.y.scale = plot::Scale::Log10;
  std::vector<double> ds, full, lora;
  for (int d = 16; d <= 16384; d *= 2) {
    ds.push_back(d);
    full.push_back(static_cast<double>(d) * d);
    lora.push_back(static_cast<double>(lora_trainable_params(d, d, rank)));
  }
  ax.line(tr("full fine-tune $d^2$"), ds, full);
  ax.line("LoRA $2\\cdot d\\cdot r$, $r$ = " + std::to_string(rank), ds, lora);
  ax.vline("$d$ = " + std::to_string(r.params.d_in), r.params.d_in);
  return fig;
}

plot::Figure loss_figure(const SyntheticResult& r) {
  plot::Figure fig("loss", subst(tr("Training loss at $r$ = {0}"), {std::to_string(r.params.rank)}));
  fig.note = tr("loss = $\\|\\Delta W - s\\cdot BA\\|^2 / \\|\\Delta W\\|^2$; dashed: the rank-$r$ optimum");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("step"), "", tr("loss"), "").csv_columns("step", "loss");
  ax.y.scale = plot::Scale::Log10;
  ax.flags |= plot::AxesFlags_NoLegend;
  std::vector<double> xs, ys;
  for (size_t i = 0; i < r.a.loss.size(); ++i)
    if (std::isfinite(r.a.loss[i]) && r.a.loss[i] > 0) xs.push_back(static_cast<double>(i)), ys.push_back(r.a.loss[i]);
  ax.line(tr("loss"), xs, ys);
  const double floor = r.a.svd_error_at_rank * r.a.svd_error_at_rank;
  if (floor > 0) ax.hline(subst(tr("optimum {0}"), {fmt("%.3g", floor)}), floor);
  return fig;
}

plot::Figure heatmaps_figure(const SyntheticResult& r) {
  plot::Figure fig("heatmaps", tr("$\\Delta W$, the adapter's $s\\cdot BA$, and the residual"));
  fig.note =
      tr("one colour scale for all three, \xC2\xB1"
         "3 RMS of $\\Delta W$ (larger entries saturate)");
  fig.grid_cols = 3;
  fig.shared_colorbar = true;  // all three use opt's range
  plot::HeatmapOptions opt;
  opt.colormap = plot::Colormap::Diverging;
  // ±3 RMS of ΔW: a few large entries would otherwise wash out the structure (larger values saturate).
  const double m = std::max(1e-12, 3.0 * r.a.target_rms);
  opt.vmin = -m;
  opt.vmax = m;
  opt.value_label = tr("value");
  const int rows = static_cast<int>(r.a.target.rows()), cols = static_cast<int>(r.a.target.cols());
  auto add = [&](const char* title, const Mat& mat) {
    plot::Axes& ax = fig.add_axes(tr(title));
    ax.setup(tr("input $j$"), "", tr("output $i$"), "").csv_columns("input j", "output i");
    if (mat.rows() == rows && mat.cols() == cols && mat.allFinite()) ax.heatmap(tr(title), mat.data(), rows, cols, opt);
  };
  add("$\\Delta W$", r.a.target);
  add("$s\\cdot BA$", r.a.delta);
  add(N_("residual"), r.a.residual);
  return fig;
}

plot::Figure scale_figure(const SyntheticResult& r) {
  plot::Figure fig("scale", subst(tr("Update size $\\|s\\cdot BA\\|$ as $r$ grows ($\\alpha$ = {0})"),
                                  {fmt("%.3g", r.params.alpha)}));
  fig.note =
      tr("$A$, $B$ with fixed entry scale: $\\|BA\\|$ grows like $\\sqrt{r}$, so $\\alpha/r$ shrinks it and "
         "$\\alpha/\\sqrt{r}$ (rsLoRA) keeps it flat");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("rank $r$"), "", "$\\|s\\cdot BA\\|_F$", "")
      .csv_columns("rank $r$",
                   "\xE2\x80\x96s\xC2\xB7"
                   "BA\xE2\x80\x96_F");
  ax.x.scale = plot::Scale::Log10;
  std::vector<double> xs(r.a.scale_ranks.begin(), r.a.scale_ranks.end());
  ax.line("$s = \\alpha/r$", xs, r.a.update_norm_alpha_r);
  ax.line("$s = \\alpha/\\sqrt{r}$ (rsLoRA)", xs, r.a.update_norm_alpha_sqrt_r);
  ax.vline("$r$ = " + std::to_string(r.params.rank), r.params.rank);
  return fig;
}

// [SECTION] fine-tuning figures

std::string run_label(const LoraSweepRun& run) {
  return run.rank > 0 ? "LoRA $r$ = " + std::to_string(run.rank) : tr("full fine-tune");
}
const LoraSweepRun* full_run(const LoraSweep& s) {
  for (const LoraSweepRun& r : s.runs)
    if (r.rank == 0) return &r;
  return nullptr;
}
// What the loss figures show: held-out loss (nats per answer token) for a toy task; for a text, bits per held-out
// character, as the Training and n-gram panels measure language models (the loss in nats is in the note and table).
double shown(const LoraSweep& s, const LoraSweepRun& run) { return s.language ? run.final_bits : run.final_loss; }
double shown_base(const LoraSweep& s) { return s.language ? s.base_bits : s.base_loss; }
const char* loss_axis(const LoraSweep& s) {
  return s.language ? tr("held-out bits per character") : tr("held-out loss");
}
const char* loss_csv(const LoraSweep& s) { return s.language ? "held-out bits per char" : "held-out loss"; }
// "sort fine-tuned on reverse: ", "poems fine-tuned on 100 Song ci: " — every fine-tuning title starts so.
std::string title_of(const LoraResult& r, const char* what) {
  return subst(tr("{0} fine-tuned on {1}: {2}"), {r.ft_base, r.ft_task, what});
}

std::string finetune_note(const LoraResult& r) {
  const LoraSweepParams& p = r.ft_params;
  std::string note =
      subst(tr("{0} steps of {1} sequences; LoRA lr {2}, $\\alpha$ = {3}{4}; full lr {5}; base model "
               "held-out loss {6}"),
            {std::to_string(p.steps), std::to_string(p.batch), fmt("%.3g", p.lr_lora), fmt("%.3g", p.alpha),
             p.rslora ? ", rsLoRA" : "", fmt("%.3g", p.lr_full), fmt("%.3f", r.ft.base_loss)});
  if (r.ft.language)
    note += " " + subst(tr("nats per token, {0} bits per character (the text's held-out tenth, through the model's "
                           "own tokenizer)"),
                        {fmt("%.3f", r.ft.base_bits)});
  return note;
}

plot::Figure ft_loss_rank_figure(const LoraResult& r) {
  plot::Figure fig("ft_loss_rank",
                   title_of(r, r.ft.language ? tr("held-out bits per character after fine-tuning against rank $r$")
                                             : tr("held-out loss after fine-tuning against rank $r$")));
  fig.note = finetune_note(r);
  plot::Axes& ax = fig.axes();
  ax.setup(tr("rank $r$"), "", loss_axis(r.ft), "").csv_columns("rank $r$", loss_csv(r.ft));
  ax.x.scale = plot::Scale::Log10;
  std::vector<double> xs, ys;
  for (const LoraSweepRun& run : r.ft.runs)
    if (run.rank > 0 && std::isfinite(shown(r.ft, run))) xs.push_back(run.rank), ys.push_back(shown(r.ft, run));
  ax.line("LoRA", xs, ys).style = plot::LineStyle::LineAndMarkers;
  if (const LoraSweepRun* full = full_run(r.ft))
    ax.hline(subst(tr("full fine-tune {0}"), {fmt("%.3f", shown(r.ft, *full))}), shown(r.ft, *full));
  ax.hline(subst(tr("base model {0}"), {fmt("%.3f", shown_base(r.ft))}), shown_base(r.ft));
  plot::Table& t = fig.table;
  t.header = {"rank", "trainable", "held_out_loss", "accuracy"};
  if (r.ft.language) t.header.push_back("held_out_bits_per_char");
  for (const LoraSweepRun& run : r.ft.runs) {
    std::vector<plot::Cell> row = {double(run.rank), double(run.trainable), run.final_loss, run.final_accuracy};
    if (r.ft.language) row.push_back(run.final_bits);
    t.add_row(row);
  }
  return fig;
}

plot::Figure ft_loss_params_figure(const LoraResult& r) {
  plot::Figure fig("ft_loss_params",
                   title_of(r, r.ft.language ? tr("held-out bits per character against trainable parameters")
                                             : tr("held-out loss against trainable parameters")));
  fig.note = subst(tr("the model has {0} parameters; rank $r$ trains $r\\cdot\\sum(d_{in} + d_{out})$ of them"),
                   {std::to_string(r.ft.base_parameters)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("trainable parameters"), "", loss_axis(r.ft), "").csv_columns("trainable parameters", loss_csv(r.ft));
  ax.x.scale = plot::Scale::Log10;
  for (const LoraSweepRun& run : r.ft.runs)
    if (std::isfinite(shown(r.ft, run)))
      ax.line(run_label(run), {double(run.trainable)}, {shown(r.ft, run)}).style = plot::LineStyle::Scatter;
  return fig;
}

plot::Figure ft_curves_figure(const LoraResult& r) {
  plot::Figure fig("ft_curves", title_of(r, r.ft.language ? tr("held-out bits per character during fine-tuning")
                                                          : tr("held-out loss during fine-tuning")));
  fig.note = tr("step 0 is the base model: every run starts there ($B = 0$)");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("step"), "", loss_axis(r.ft), "").csv_columns("step", loss_csv(r.ft));
  for (const LoraSweepRun& run : r.ft.runs) {
    std::vector<double> xs(run.eval_steps.begin(), run.eval_steps.end());
    ax.line(run_label(run), xs, r.ft.language ? run.val_bits : run.val_loss);
  }
  return fig;
}

plot::Figure ft_accuracy_figure(const LoraResult& r) {
  plot::Figure fig("ft_accuracy", r.ft.language ? title_of(r, tr("held-out next-token accuracy against rank $r$"))
                                                : title_of(r, tr("held-out answer accuracy against rank $r$")));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("rank $r$"), "", tr("accuracy"), "").csv_columns("rank $r$", "accuracy");
  ax.x.scale = plot::Scale::Log10;
  std::vector<double> xs, ys;
  for (const LoraSweepRun& run : r.ft.runs)
    if (run.rank > 0) xs.push_back(run.rank), ys.push_back(run.final_accuracy);
  ax.line("LoRA", xs, ys).style = plot::LineStyle::LineAndMarkers;
  if (const LoraSweepRun* full = full_run(r.ft))
    ax.hline(subst(tr("full fine-tune {0}"), {fmt("%.3f", full->final_accuracy)}), full->final_accuracy);
  ax.hline(subst(tr("base model {0}"), {fmt("%.3f", r.ft.base_accuracy)}), r.ft.base_accuracy);
  ax.set_y_range(0, 1.02);
  return fig;
}

// The layers whose spectra are drawn: the first and the last.
std::vector<int> shown_layers(const LoraResult& r) {
  const int L = r.ft_params.model.n_layers;
  return L > 1 ? std::vector<int>{0, L - 1} : std::vector<int>{0};
}

plot::Figure ft_spectra_figure(const LoraResult& r) {
  plot::Figure fig("ft_spectra", title_of(r, tr("singular values of the learned $\\Delta W$ per matrix")));
  fig.note =
      tr("LoRA: $\\Delta W = s\\cdot BA$ has at most $r$ non-zero $\\sigma_i$; full fine-tune: $\\Delta W = "
         "W_{after} - W_{before}$");
  if (r.ft.runs.empty()) return fig;
  const std::vector<LoraSweepSpectrum>& slots = r.ft.runs.front().spectra;
  int per_layer = 0;
  for (const LoraSweepSpectrum& sp : slots) per_layer += sp.layer == 0;
  // Each layer starts a row: six matrices (q, k, v, o, up, down) as two rows of three, wide enough to read.
  fig.grid_cols = per_layer % 3 == 0 && per_layer > 3 ? 3 : std::max(1, per_layer);
  for (int layer : shown_layers(r))
    for (size_t k = 0; k < slots.size(); ++k) {
      if (slots[k].layer != layer) continue;
      plot::Axes& ax =
          fig.add_axes(subst(tr("layer {0} {1}"), {std::to_string(layer), peft_module_name(slots[k].module)}));
      ax.setup(tr("index $i$"), "", "$\\sigma_i$", "").csv_columns("index i", "sigma_i");
      ax.y.scale = plot::Scale::Log10;
      if (k + 1 < slots.size() || layer != shown_layers(r).back()) ax.flags |= plot::AxesFlags_NoLegend;
      for (const LoraSweepRun& run : r.ft.runs) {
        if (k >= run.spectra.size()) continue;
        const VecD& sigma = run.spectra[k].sigma;
        std::vector<double> xs, ys;
        const double floor = sigma.size() ? 1e-6 * sigma[0] : 0;
        for (Eigen::Index i = 0; i < sigma.size(); ++i)
          if (sigma[i] > floor) xs.push_back(double(i + 1)), ys.push_back(sigma[i]);
        const bool few = xs.size() <= 2;  // r = 1, 2: markers, or a single σ would not show
        ax.line(run_label(run), xs, ys).style = few ? plot::LineStyle::LineAndMarkers : plot::LineStyle::Line;
      }
    }
  return fig;
}

plot::Figure ft_energy_figure(const LoraResult& r) {
  plot::Figure fig("ft_energy", title_of(r, tr("how much of the full fine-tune's $\\Delta W$ a rank $r$ can hold")));
  fig.note =
      tr("$\\sum_{i \\le r} \\sigma_i^2 / \\sum_i \\sigma_i^2$ of each matrix's full fine-tuning update "
         "(Eckart\xE2\x80\x93Young: the best rank-$r$ approximation keeps exactly this share)");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("rank $r$"), "", tr("share of $\\|\\Delta W\\|_F^2$"), "").csv_columns("rank $r$", "energy share");
  ax.x.scale = plot::Scale::Log10;
  const LoraSweepRun* full = full_run(r.ft);
  if (!full) return fig;
  for (const LoraSweepSpectrum& sp : full->spectra) {
    if (sp.layer != 0) continue;
    const double total = sp.sigma.squaredNorm();
    if (!(total > 0)) continue;
    std::vector<double> xs, ys;
    double acc = 0;
    for (Eigen::Index i = 0; i < sp.sigma.size(); ++i) {
      acc += sp.sigma[i] * sp.sigma[i];
      xs.push_back(double(i + 1));
      ys.push_back(acc / total);
    }
    ax.line(subst(tr("layer 0 {0}"), {peft_module_name(sp.module)}), xs, ys);
  }
  for (const LoraSweepRun& run : r.ft.runs)
    if (run.rank > 0) ax.vline("$r$ = " + std::to_string(run.rank), run.rank);
  ax.set_y_range(0, 1.02);
  return fig;
}

// [SECTION] panel

// The first answer (the chosen rank's adapter: a few ms at the default 64 × 64) is waited for, so the figures
// follow the slider in the same frame; the sweep's other ranks (about 50 times that) and large d (up to
// 1024 × 1024: tens of seconds) run on the worker with a progress bar and a Cancel button.
bool quick(const LoraState& s) {
  if (s.mode != LoraMode::Synthetic) return false;
  LoraExperimentParams first = params_of(s);  // compute() trains the chosen rank only, unless the memo has it
  if (fit_memo().find(first, first.rank)) return true;
  first.train_sweep = false;
  return lora_experiment_work(first) < 3e7;
}
std::string error_of(const LoraResult& r) {
  if (r.mode == LoraMode::Finetune) return r.ft.cancelled ? tr("Cancelled.") : r.ft_error;
  return r.syn->a.cancelled ? tr("Cancelled.") : r.syn->error;
}

// Figure i of the panel: the synthetic mode's or the fine-tuning mode's.
using SyntheticFigure = plot::Figure (*)(const SyntheticResult&);
using FinetuneFigure = plot::Figure (*)(const LoraResult&);
constexpr SyntheticFigure kSyntheticFigures[] = {spectrum_figure, error_figure,    params_figure,
                                                 loss_figure,     heatmaps_figure, scale_figure};
constexpr FinetuneFigure kFinetuneFigures[] = {ft_loss_rank_figure, ft_loss_params_figure, ft_curves_figure,
                                               ft_accuracy_figure,  ft_spectra_figure,     ft_energy_figure};
std::vector<RecomputePanel<LoraState, LoraResult>::FigureBuilder> figure_builders() {
  std::vector<RecomputePanel<LoraState, LoraResult>::FigureBuilder> out;
  for (size_t i = 0; i < std::size(kSyntheticFigures); ++i)
    out.push_back([i](const LoraResult& r) {
      return r.mode == LoraMode::Finetune ? kFinetuneFigures[i](r) : kSyntheticFigures[i](*r.syn);
    });
  return out;
}
const FigureLayout kSyntheticLayout = {
    {{{"spectrum", "error"}}, {{"loss", "scale"}}, {{"heatmaps"}, 0.7f}, {{"params"}, 0.62f, true}}, 360};
const FigureLayout kFinetuneLayout = {{{{"ft_loss_rank", "ft_loss_params"}},
                                       {{"ft_curves", "ft_accuracy"}},
                                       {{"ft_spectra"}, 1.6f},  // rows of small axes, two a layer
                                       {{"ft_energy"}, 0.62f, true}},
                                      360};

class LoraPanel final : public RecomputePanel<LoraState, LoraResult> {
 public:
  LoraPanel()
      : RecomputePanel(kInfo, kSyntheticLayout, {compute, error_of, figure_builders(), quick, pending, refine}) {
    computing_text_ = N_("Training the first adapters...");
  }

 protected:
  void prepare() override {
    // The Training panel's model, adopted when its run is not training (a running run changes every frame).
    if (s_.mode != LoraMode::Finetune || s_.ft_base != FinetuneBase::TrainingRun) return;
    const std::shared_ptr<const TrainSnapshot> run = handoffs().latest_training_run();
    if (!run || !run->ready || run->running || run.get() == adopted_run_.get()) return;
    adopted_run_ = run;
    Task task;
    std::string error;
    if (!Task::create(run->settings.task, &task, &error)) return;
    StepperModel model = task_stepper_model(run->settings.model, std::make_shared<const ModelWeights>(run->weights),
                                            task, tr("Training panel's model"), "");
    if (task.language()) model.tokenizer_json = task.language()->tokenizer_json;  // a language model: new text
    s_.run_model = std::make_shared<const StepperModel>(std::move(model));
    request_recompute();
  }
  bool control_visible(const Control& c) const override {
    const bool ft = c.key.rfind("ft_", 0) == 0;
    if (c.key == "mode" || c.key == "seed") return true;
    if (s_.mode != LoraMode::Finetune || !ft) return (s_.mode == LoraMode::Finetune) == ft;
    const bool text = s_.ft_task == FinetuneTask::Text;
    if (c.key == "ft_length" || c.key == "ft_alphabet") return !text;
    if (c.key == "ft_text") return text;
    if (c.key == "ft_text_file")
      return text && (s_.ft_text == FinetuneText::File ||
                      (s_.ft_text == FinetuneText::Auto && s_.ft_base == FinetuneBase::Quotes));
    return true;
  }
  void draw_figures(const DrawContext& ctx, const std::vector<plot::Figure>& figs) override {
    const Ptr& r = result();
    // The figures on screen are those of the result, whose mode may lag the control by one computation.
    const FigureLayout& shown = r && r->mode == LoraMode::Finetune ? kFinetuneLayout : kSyntheticLayout;
    draw_figure_rows(figs, ctx, "lora", shown.rows, shown.min_width);
  }
  void draw_summary(const LoraResult& all) override {
    if (all.mode == LoraMode::Finetune) {
      ImGui::Separator();
      for (const LoraSweepRun& run : all.ft.runs) {
        if (all.ft.language) {  // bits per character first, as the figures show them
          const std::string who = run.rank > 0 ? "$r$ = " + std::to_string(run.rank) : tr("full fine-tune");
          math_text(
              subst(tr("{0}: {1} bits per character (loss {2}), {3} trainable"),
                    {who, fmt("%.3f", run.final_bits), fmt("%.3f", run.final_loss), std::to_string(run.trainable)})
                  .c_str());
        } else if (run.rank > 0)
          math_text(subst(tr("$r$ = {0}: loss {1}, {2} trainable"),
                          {std::to_string(run.rank), fmt("%.3f", run.final_loss), std::to_string(run.trainable)})
                        .c_str());
        else
          ImGui::TextUnformatted(
              subst(tr("full: loss {0}, {1} trainable"), {fmt("%.3f", run.final_loss), std::to_string(run.trainable)})
                  .c_str());
        if (!run.stopped.empty()) warning_text(run.stopped.c_str());
      }
      return;
    }
    const SyntheticResult& r = *all.syn;
    ImGui::Separator();
    // xgettext:no-c-format
    math_text(subst(tr("$s$ = {0}, trainable {1}% of $d_{in} \\cdot d_{out}$"),
                    {plot::fmt("%.4g", lora_scale(r.params.alpha, r.params.rank, r.params.rslora)),
                     plot::fmt("%.4g", r.a.param_percent)})
                  .c_str());
    math_text(subst(tr("error at $r$ = {0}: LoRA {1}, optimum {2}"),
                    {std::to_string(r.params.rank), fmt("%.4f", r.a.final_error), fmt("%.4f", r.a.svd_error_at_rank)})
                  .c_str());
    check_mark(r.a.step0_equals_base,
               subst(tr("step 0 ($B$ = 0): adapted = base, max diff {0}"), {fmt("%.1e", r.a.step0_error)}).c_str());
    check_mark(r.a.merged_equals_unmerged,
               subst(tr("merged = unmerged, rel. diff {0}"), {fmt("%.1e", r.a.merge_error)}).c_str());

    if (r.a.diverged) warning_text(tr("Training diverged at this learning rate; lower it (its errors are left out)."));
    if (r.params.rank != s_.rank || r.params.true_rank != s_.true_rank)
      warning_text(tr("rank and true rank are clamped to $\\min(d_{in}, d_{out})$"));
  }
  void bind(Controls& c) override {
    c.add_enum("mode", &s_.mode, {N_("synthetic"), N_("fine-tune a model")}, N_("mode"),
               N_("Fit a synthetic $\\Delta W$ directly, or fine-tune a real model at ranks 1, 2, 4, 8, 16 and fully "
                  "(a few seconds on the worker)."));
    c.add_int("d_in", &s_.d_in, 8, 1024, N_("d_in"),
              N_("Input size of the layer (columns of $\\Delta W$); large sizes train on a worker thread."), true);
    c.add_int("d_out", &s_.d_out, 8, 1024, N_("d_out"), N_("Output size of the layer (rows of $\\Delta W$)."), true);
    c.add_int("rank", &s_.rank, 1, 64, N_("rank $r$"),
              N_("Rank of the adapter shown in the loss, heatmaps and markers."));
    c.add_float("alpha", &s_.alpha, 0.5f, 256.0f, N_("alpha $\\alpha$"),
                N_("lora_alpha: the update is scaled by $\\alpha / r$ (or $\\alpha / \\sqrt{r}$ with rsLoRA)."), true,
                "%.3g");
    c.add_bool("rslora", &s_.rslora, N_("rsLoRA ($\\alpha / \\sqrt{r}$)"),
               N_("Scale the update by $\\alpha / \\sqrt{r}$ instead of $\\alpha / r$."));
    c.add_int("true_rank", &s_.true_rank, 1, 64, N_("true rank of $\\Delta W$"),
              N_("Number of non-zero singular values in the target before noise."));
    c.add_float("decay", &s_.decay, 0.05f, 1.0f, N_("singular-value decay"),
                N_("Target singular values are $\\mathrm{decay}^i$: small values make a few directions dominate."),
                false, "%.2f");
    c.add_float("noise", &s_.noise, 0.0f, 1.0f, N_("noise"),
                N_("Full-rank Gaussian noise added to $\\Delta W$, which no low rank can capture."), false, "%.3g");
    c.add_int("steps", &s_.steps, 0, 2000, N_("training steps"), N_("Gradient steps for every trained adapter."));
    c.add_float("lr", &s_.lr, 1e-4f, 1.0f, N_("learning rate"),
                N_("Step size of the optimizer; too large and training diverges."), true, "%.4g");
    c.add_enum("optimizer", &s_.optimizer, {N_("adam"), N_("sgd")}, N_("optimizer"),
               N_("Adam (what peft users run) or plain gradient descent."));
    c.add_bool("train_sweep", &s_.train_sweep, N_("train at every rank"),
               N_("Train one adapter per rank of the error plot (off: only the SVD curve and rank $r$)."));
    c.add_enum("ft_base", &s_.ft_base,
               {N_("trained sort (shipped)"), N_("trained induction (shipped)"), N_("the Training panel's model"),
                N_("poems (shipped language model)"), N_("quotes (shipped language model)")},
               N_("model"),
               N_("The model to fine-tune; its weights stay frozen under LoRA. sort and induction learn a new toy "
                  "task, the language models poems (Tang poems) and quotes (English quotations) a new text."));
    c.add_enum("ft_task", &s_.ft_task, {N_("reverse"), N_("copy"), N_("sort"), N_("new text (language models)")},
               N_("new task"),
               N_("What the model is fine-tuned to do; loss and accuracy are on held-out prompts (a text: on its "
                  "held-out tenth, in bits per character)."));
    c.add_enum("ft_text", &s_.ft_text,
               {N_("one the model never saw"), N_("song100"), N_("tang300"), N_("quotes"), N_("file")}, N_("new text"),
               N_("The text a language model is fine-tuned on, through its own tokenizer.json: 100 Song ci, 300 Tang "
                  "poems (fortunes-zh), English quotations (fortunes) or a UTF-8 file. The first choice: the Song ci "
                  "for poems, the text file for quotes. Every tenth record is held out."));
    c.add_text("ft_text_file", &s_.ft_text_file, 1024, N_("text file"),
               N_("A UTF-8 text file to fine-tune on: paragraphs (or lines) are its records; a fortune file's "
                  "records are those between lines holding only a percent sign."));
    c.add_int("ft_length", &s_.ft_length, 2, 16, N_("prompt length"), N_("Symbols per prompt of the new task."));
    c.add_int("ft_alphabet", &s_.ft_alphabet, 2, 26, N_("alphabet"),
              N_("Symbols the prompts draw from (at most the model's vocabulary)."));
    c.add_int("ft_steps", &s_.ft_steps, 10, 2000, N_("steps per run"),
              N_("Optimizer steps of every fine-tuning run (six runs)."), true);
    c.add_int("ft_batch", &s_.ft_batch, 1, 64, N_("batch"),
              N_("Sequences per optimizer step (a text: windows of 32 tokens)."), true);
    c.add_float("ft_alpha", &s_.ft_alpha, 0.5f, 256.0f, N_("alpha $\\alpha$"),
                N_("lora_alpha of every rank: the update is scaled by $\\alpha/r$ (or $\\alpha/\\sqrt{r}$)."), true,
                "%.3g");
    c.add_bool("ft_rslora", &s_.ft_rslora, N_("rsLoRA ($\\alpha/\\sqrt{r}$)"),
               N_("Scale the update by $\\alpha/\\sqrt{r}$ instead of $\\alpha/r$."));
    c.add_float("ft_lr", &s_.ft_lr, 1e-4f, 0.1f, N_("LoRA learning rate"), N_("AdamW step size of $A$ and $B$."), true,
                "%.4g");
    c.add_float("ft_lr_full", &s_.ft_lr_full, 1e-5f, 0.1f, N_("full fine-tune learning rate"),
                N_("AdamW step size of every weight in the full fine-tune."), true, "%.4g");
    c.add_seed(&s_.seed, N_("Seed of the target and of the adapter's initialisation."));
  }

 private:
  std::shared_ptr<const TrainSnapshot> adopted_run_;
};

}  // namespace lora_panel

TW_REGISTER_PANEL(lora_panel::LoraPanel);

}  // namespace tw
