// LoRA rank effects: how much of a weight update a rank-r adapter can hold, what it costs, and how the
// α/r vs α/√r scale behaves.
//
// [SECTION] state
// [SECTION] figures (built from core/experiments/lora_experiment results)
// [SECTION] panel: controls, recompute (worker thread), draw
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "core/experiments/lora_experiment.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace {

const PanelInfo kInfo = {"lora", N_("LoRA rank effects"), N_("Fine-tuning"),
                         N_("Low-rank adapters: SVD optimum vs trained LoRA per rank, parameter budget, $\\alpha/r$ vs "
                            "$\\alpha/\\sqrt{r}$")};

// [SECTION] state

struct LoraState {
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

using LoraResult = Checked<LoraExperimentParams, LoraExperiment>;
using ResultPtr = std::shared_ptr<const LoraResult>;

ResultPtr compute(const LoraState& s, Progress& progress) {
  return run_checked(params_of(s), [&progress](const LoraExperimentParams& p) {
    return run_lora_experiment(p, [&progress](float f) {
      progress.set(f);
      return !progress.cancelled();
    });
  });
}

// Rough multiply-adds of one experiment, to decide whether to wait for it in the same frame.
using plot::fmt;

// [SECTION] figures

plot::Figure spectrum_figure(const LoraResult& r) {
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

plot::Figure error_figure(const LoraResult& r) {
  plot::Figure fig("error", tr("Relative error $\\|\\Delta W - s\\cdot BA\\| / \\|\\Delta W\\|$ against rank"));
  fig.note = subst(tr("LoRA: {0} {1} steps, lr {2}, from $A \\sim U(\\pm 1/\\sqrt{d_{in}})$, $B = 0$; the SVD curve is "
                      "the optimum (Eckart\xE2\x80\x93Young)"),
                   {std::to_string(r.params.steps), r.params.optimizer == LoraOptimizer::Adam ? "Adam" : "SGD",
                    fmt("%.3g", r.params.lr)});
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

plot::Figure params_figure(const LoraResult& r) {
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

plot::Figure loss_figure(const LoraResult& r) {
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

plot::Figure heatmaps_figure(const LoraResult& r) {
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

plot::Figure scale_figure(const LoraResult& r) {
  plot::Figure fig("scale", subst(tr("Update size $\\|s\\cdot BA\\|$ as $r$ grows ($\\alpha$ = {0})"),
                                  {fmt("%.3g", r.params.alpha)}));
  fig.note =
      tr("$A$, $B$ with fixed entry scale: $\\|BA\\|$ grows like $\\sqrt{r}$, so $\\alpha/r$ shrinks it and "
         "$\\alpha/\\sqrt{r}$ (rsLoRA) keeps it flat");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("rank $r$"), "", "$\\|s\\cdot BA\\|_F$", "")
      .csv_columns("rank r",
                   "\xE2\x80\x96s\xC2\xB7"
                   "BA\xE2\x80\x96_F");
  ax.x.scale = plot::Scale::Log10;
  std::vector<double> xs(r.a.scale_ranks.begin(), r.a.scale_ranks.end());
  ax.line("$s = \\alpha/r$", xs, r.a.update_norm_alpha_r);
  ax.line("$s = \\alpha/\\sqrt{r}$ (rsLoRA)", xs, r.a.update_norm_alpha_sqrt_r);
  ax.vline("$r$ = " + std::to_string(r.params.rank), r.params.rank);
  return fig;
}

// [SECTION] panel

// Small layers train in a few ms: wait so figures follow the slider in the same frame. The default (64 × 64, an
// adapter per rank of the sweep, 300 steps each: about 0.1 s) and large d (up to 1024 × 1024: tens of seconds) run
// on the worker with a progress bar and a Cancel button.
bool quick(const LoraState& s) { return lora_experiment_work(params_of(s)) < 3e7; }
std::string error_of(const LoraResult& r) { return r.a.cancelled ? tr("Cancelled.") : r.error; }
class LoraPanel final : public RecomputePanel<LoraState, LoraResult> {
 public:
  LoraPanel()
      : RecomputePanel(kInfo, {.rows = {{{0, 1}}, {{3, 5}}, {{4}, 0.7f}, {{2}, 0.62f, true}}, .min_width = 360},
                       {compute,
                        error_of,
                        {spectrum_figure, error_figure, params_figure, loss_figure, heatmaps_figure, scale_figure},
                        quick}) {
    computing_text_ = N_("Training the first adapters...");
  }

 protected:
  void draw_summary(const LoraResult& r) override {
    ImGui::Separator();
    ImGui::Text(tr("s = %.4g, trainable %.4g%% of d_in\xC2\xB7"
                   "d_out"),
                lora_scale(r.params.alpha, r.params.rank, r.params.rslora), r.a.param_percent);
    ImGui::Text(tr("error at r = %d: LoRA %.4f, optimum %.4f"), r.params.rank, r.a.final_error, r.a.svd_error_at_rank);
    check_mark(r.a.step0_equals_base,
               subst(tr("step 0 (B = 0): adapted = base, max diff {0}"), {fmt("%.1e", r.a.step0_error)}).c_str());
    check_mark(r.a.merged_equals_unmerged,
               subst(tr("merged = unmerged, rel. diff {0}"), {fmt("%.1e", r.a.merge_error)}).c_str());

    if (r.a.diverged) warning_text(tr("Training diverged at this learning rate; lower it (its errors are left out)."));
    if (r.params.rank != s_.rank || r.params.true_rank != s_.true_rank)
      warning_text(tr("rank and true rank are clamped to min(d_in, d_out)"));
  }
  void bind(Controls& c) override {
    c.add_int("d_in", &s_.d_in, 8, 1024, N_("d_in"),
              N_("Input size of the layer (columns of $\\Delta W$); large sizes train on a worker thread."), true);
    c.add_int("d_out", &s_.d_out, 8, 1024, N_("d_out"), N_("Output size of the layer (rows of $\\Delta W$)."), true);
    c.add_int("rank", &s_.rank, 1, 64, N_("rank r"),
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
               N_("Train one adapter per rank of the error plot (off: only the SVD curve and rank r)."));
    c.add_seed(&s_.seed, N_("Seed of the target and of the adapter's initialisation."));
  }
};

}  // namespace

TW_REGISTER_PANEL(LoraPanel);

}  // namespace tw
