// LoRA rank effects: how much of a weight update a rank-r adapter can hold, what it costs, and how the
// α/r vs α/√r scale behaves. Two modes: a synthetic ΔW fitted directly (core/experiments/lora_experiment), and a
// real fine-tune of a model at ranks 1 … 16 against full fine-tuning (core/experiments/lora_rank_sweep): a task
// model (sort, induction) on a new toy task, or a language model (poems, quotes) on a text it was not trained on,
// encoded with its own tokenizer.json (the Training panel's fine-tuning does the same).
//
// The state, the fine-tuning computation and the figures of both modes: views/lora/.
#include <imgui.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include "views/handoffs.h"
#include "views/lora/lora_state.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

#include "core/train/model_folder.h"

namespace tw {

namespace lora_panel {

const PanelInfo kInfo = {"lora", N_("LoRA rank effects"), N_("Fine-tuning"),
                         N_("Low-rank adapters: SVD optimum vs trained LoRA per rank, parameter budget, $\\alpha/r$ vs "
                            "$\\alpha/\\sqrt{r}$")};

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

using plot::fmt;

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
