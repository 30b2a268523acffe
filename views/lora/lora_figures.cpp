// The LoRA panel's figures of the synthetic mode, from core/experiments/lora_experiment results.
#include <algorithm>
#include <cmath>

#include "views/lora/lora_state.h"

namespace tw::lora_panel {

using plot::fmt;

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

}  // namespace tw::lora_panel
