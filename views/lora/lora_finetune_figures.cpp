// The LoRA panel's figures of the fine-tuning mode, from core/experiments/lora_rank_sweep results.
#include <algorithm>
#include <cmath>

#include "views/lora/lora_state.h"

namespace tw::lora_panel {

using plot::fmt;

namespace {

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

}  // namespace

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

}  // namespace tw::lora_panel
