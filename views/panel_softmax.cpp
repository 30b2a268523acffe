// Softmax saturation: why attention divides q·k by √d_k (seed 000 §1).
//
// [SECTION] state
// [SECTION] figures (built from core/experiments/softmax_saturation results)
// [SECTION] panel: controls, recompute, draw
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <tuple>
#include <vector>

#include "core/experiments/softmax_saturation.h"
#include "views/last_result.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace softmax_panel {

const PanelInfo kInfo = {
    "softmax", N_("Softmax saturation"), N_("Attention"),
    N_("Why scores are divided by $\\sqrt{d_k}$: variance of $q\\cdot k$, saturation and vanishing gradients")};

// [SECTION] state

struct SoftmaxState {
  int d_k = 64;                                 // head dimension
  int n_keys = 16;                              // keys one query attends over
  ScaleMode scale_mode = ScaleMode::InvSqrtDk;  // 1/√d_k, none, 1/d_k, custom
  float custom_scale = 0.125f;
  float temperature = 1.0f;  // τ: softmax(x / τ)
  int samples = 4000;        // q·k pairs in the histogram; queries per d_k in the sweep (a quarter of this)
  int seed = 0;
  std::string logits_a = "1.0, 0.5, -0.5";  // the classic worked example's small-range row
  std::string logits_b = "30, 15, -15";     // and its large-range row
};

struct SoftmaxResult {
  SoftmaxState state;  // the inputs these results belong to
  ScoreHistogram hist;
  QuerySoftmax query;
  std::vector<SaturationPoint> sweep;
  WorkedSoftmax worked_a, worked_b;
  std::string error_a, error_b;
};
using ResultPtr = std::shared_ptr<const SoftmaxResult>;

ScaleMode mode_of(const SoftmaxState& s) { return s.scale_mode; }
// Capped so the largest sample count still finishes in well under a second on the worker.
int sweep_queries(const SoftmaxState& s) { return std::clamp(s.samples / 4, 50, 5000); }

// The d_k sweep covers every d_k on its own grid: dragging d_k (or editing the worked rows) reuses it, and the
// custom scale only enters it in the custom mode. Its raw scores depend on neither the scale nor τ: changing those
// reuses the samples and recomputes only the softmax statistics (core/experiments/softmax_saturation.h).
using SamplesKey = std::tuple<int, int, int>;
SamplesKey samples_key(const SoftmaxState& s) { return {s.n_keys, sweep_queries(s), s.seed}; }
using SweepKey = std::tuple<SamplesKey, ScaleMode, float, float>;
SweepKey sweep_key(const SoftmaxState& s) {
  return {samples_key(s), s.scale_mode, s.scale_mode == ScaleMode::Custom ? s.custom_scale : 0.0f, s.temperature};
}
LastResult<SamplesKey, SaturationSamples>& samples_cache() {
  static LastResult<SamplesKey, SaturationSamples> cache;
  return cache;
}
LastResult<SweepKey, std::vector<SaturationPoint>>& sweep_cache() {
  static LastResult<SweepKey, std::vector<SaturationPoint>> cache;
  return cache;
}
// The histogram of raw scores reads neither the scale nor τ: dragging those keeps it.
using HistogramKey = std::tuple<int, int, int>;
HistogramKey histogram_key(const SoftmaxState& s) { return {s.d_k, s.samples, s.seed}; }
LastResult<HistogramKey, ScoreHistogram>& histogram_cache() {
  static LastResult<HistogramKey, ScoreHistogram> cache;
  return cache;
}

ResultPtr compute(const SoftmaxState& s, Progress& progress) {
  auto r = std::make_shared<SoftmaxResult>();
  r->state = s;
  const std::uint64_t seed = static_cast<std::uint64_t>(s.seed);
  auto whole = [](const auto&) { return true; };
  r->hist = *histogram_cache().get(
      histogram_key(s), [&] { return score_histogram(s.d_k, s.samples, 48, seed); }, whole);
  progress.set(0.2f);
  r->query = one_query_softmax(s.d_k, s.n_keys, mode_of(s), s.custom_scale, s.temperature, seed + 1);
  // A newer request stops the sweep between d_k values (its result is dropped; a partial part is never kept).
  const std::atomic<bool>* cancel = progress.cancel_flag();
  const std::vector<int> d_ks = log_dk_grid(1, 4096);
  r->sweep = *sweep_cache().get(
      sweep_key(s),
      [&] {
        const auto samples = samples_cache().get(
            samples_key(s), [&] { return saturation_samples(d_ks, s.n_keys, sweep_queries(s), seed + 2, cancel); },
            [](const SaturationSamples& v) { return v.complete(); });
        return saturation_sweep(*samples, mode_of(s), s.custom_scale, s.temperature, cancel);
      },
      [&](const std::vector<SaturationPoint>& v) { return v.size() == d_ks.size(); });
  progress.set(0.9f);
  std::vector<float> a, b;
  r->error_a = parse_logits(s.logits_a, &a);
  r->error_b = parse_logits(s.logits_b, &b);
  if (r->error_a.empty()) r->worked_a = worked_softmax(a, s.temperature);
  if (r->error_b.empty()) r->worked_b = worked_softmax(b, s.temperature);
  return r;
}

using plot::fmt;

// [SECTION] figures

plot::Figure histogram_figure(const SoftmaxResult& r) {
  const ScoreHistogram& h = r.hist;
  plot::Figure fig("scores", tr("Raw scores $q\\cdot k$ for $q, k \\sim N(0, I)$"));
  fig.note = subst(tr("$d_k$ = {0}, empirical variance {1} (theory: $d_k$), {2} samples"),
                   {std::to_string(h.d_k), fmt("%.4g", h.variance), std::to_string(h.samples)});
  plot::Axes& ax = fig.axes();
  ax.setup("$q\\cdot k$", "", tr("density"), "").csv_columns("q\xC2\xB7k", "density");
  std::vector<double> xs(h.edges.begin(), h.edges.end()), ys(h.density.begin(), h.density.end());
  if (!ys.empty()) ys.push_back(ys.back());  // a post-step line needs the right edge of the last bin
  ax.step(tr("empirical"), xs, ys);
  std::vector<double> cx, pdf;
  for (size_t b = 0; b < h.normal_pdf.size(); ++b) {
    cx.push_back(0.5 * (h.edges[b] + h.edges[b + 1]));
    pdf.push_back(h.normal_pdf[b]);
  }
  ax.line(tr("$N(0, d_k)$ density"), cx, pdf).dashed = true;
  return fig;
}

plot::Figure query_figure(const SoftmaxResult& r) {
  const QuerySoftmax& q = r.query;
  plot::Figure fig("query", subst(tr("One query's softmax over {0} keys (sorted)"), {std::to_string(r.state.n_keys)}));
  fig.note = subst(tr("scale {0}: entropy {1} bits scaled, {2} bits unscaled (max {3})"),
                   {fmt("%.4g", q.scale), fmt("%.3g", q.entropy_scaled), fmt("%.3g", q.entropy_unscaled),
                    fmt("%.3g", q.entropy_max)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("key rank"), "", tr("probability"), "").csv_columns("key rank", "probability");
  std::vector<std::string> groups;
  for (size_t j = 0; j < q.probs_scaled.size(); ++j) groups.push_back(std::to_string(j + 1));
  std::vector<double> ps(q.probs_scaled.begin(), q.probs_scaled.end()),
      pu(q.probs_unscaled.begin(), q.probs_unscaled.end());
  ax.bars(groups, {subst(tr("scaled ({0})"), {scale_mode_formula(mode_of(r.state))}), tr("unscaled")}, {ps, pu});
  ax.set_y_range(0, 1);
  return fig;
}

plot::Figure sweep_figure(const SoftmaxResult& r) {
  plot::Figure fig("sweep", subst(tr("Saturation as $d_k$ grows ({0} keys, {1} queries per point)"),
                                  {std::to_string(r.state.n_keys), std::to_string(sweep_queries(r.state))}));
  fig.grid_cols = 3;
  std::vector<double> dk;
  for (const SaturationPoint& p : r.sweep) dk.push_back(p.d_k);
  // Each y axis spans what its quantity can reach (a probability, 0 to log2 n bits, S(1 − S) ≤ 1/4), not the data:
  // the curves are read against the whole range, and dragging τ or the scale moves the curves, never the axes.
  auto panel = [&](const char* title, const char* ylabel, double SaturationPoint::*scaled,
                   double SaturationPoint::*unscaled, double y_max) {
    plot::Axes& ax = fig.add_axes(tr(title));
    ax.setup("$d_k$", "", tr(ylabel), "");
    ax.x.scale = plot::Scale::Log10;
    ax.set_y_range(0, 1.05 * y_max);
    std::vector<double> a, b;
    for (const SaturationPoint& p : r.sweep) a.push_back(p.*scaled), b.push_back(p.*unscaled);
    ax.line(tr("scaled"), dk, a).style = plot::LineStyle::LineAndMarkers;
    ax.line(tr("unscaled"), dk, b).style = plot::LineStyle::LineAndMarkers;
    ax.vline("$d_k$ = " + std::to_string(r.state.d_k), r.state.d_k);
    if (fig.grid.size() > 1) ax.flags |= plot::AxesFlags_NoLegend;  // one legend for the three panels
  };
  panel(N_("mean max probability"), "$\\max_j S_j$", &SaturationPoint::max_p_scaled, &SaturationPoint::max_p_unscaled,
        1.0);
  panel(N_("mean entropy"), N_("bits"), &SaturationPoint::entropy_bits_scaled, &SaturationPoint::entropy_bits_unscaled,
        std::log2(double(r.state.n_keys)));
  panel(N_("top-key gradient $S(1 - S)$"), "$S_{\\text{top}}(1 - S_{\\text{top}})$", &SaturationPoint::grad_scaled,
        &SaturationPoint::grad_unscaled, 0.25);
  plot::Table& t = fig.table;
  t.header = {"d_k",         "max_p_scaled", "max_p_unscaled", "entropy_bits_scaled", "entropy_bits_unscaled",
              "grad_scaled", "grad_unscaled"};
  for (const SaturationPoint& p : r.sweep)
    t.add_row({double(p.d_k), p.max_p_scaled, p.max_p_unscaled, p.entropy_bits_scaled, p.entropy_bits_unscaled,
               p.grad_scaled, p.grad_unscaled});
  return fig;
}

plot::Figure worked_figure(const SoftmaxResult& r) {
  plot::Figure fig("worked", tr("Worked example: softmax and the top key's gradient"));
  fig.grid_cols = 2;
  plot::Table& t = fig.table;
  t.header = {"case", "index", "logit", "probability", "top_gradient"};
  auto add = [&](const char* name, const WorkedSoftmax& w, const std::string& error) {
    const std::string symbol = std::string("$") + name + "$";  // the row A or B, italic as in "logits $A$"
    plot::Axes& ax =
        fig.add_axes(error.empty() ? subst(tr("{0}: top gradient {1}"), {symbol, fmt("%.3g", w.top_grad)}) : symbol);
    ax.setup(tr("logit"), "", tr("probability"), "");
    if (!error.empty() || w.probs.empty()) return;
    std::vector<std::string> groups;
    std::vector<double> p;
    for (size_t j = 0; j < w.probs.size(); ++j) {
      groups.push_back(fmt("%g", w.logits[j]));
      p.push_back(w.probs[j]);
      t.add_row({std::string(name), double(j), double(w.logits[j]), double(w.probs[j]), w.top_grad});
    }
    ax.bars(groups, {tr("softmax")}, {p});
    ax.set_y_range(0, 1);
  };
  add("A", r.worked_a, r.error_a);
  add("B", r.worked_b, r.error_b);
  return fig;
}

// [SECTION] panel

// Small requests (about a millisecond) are waited for, so the figures follow the slider in the same frame;
// the default sweep (26 d_k values × 1000 queries: ~12 ms drawing its samples, ~2 ms from kept ones when the scale or
// τ is dragged, bench_panel_recompute) runs on the worker while the last result stays.
bool quick(const SoftmaxState& s) {
  if (sweep_cache().holds(sweep_key(s))) return true;
  // With its samples kept, the sweep counts as 40% of the estimate (measured ~2 ms at the defaults, as estimated).
  const double work = saturation_work(s.samples, s.n_keys) * (samples_cache().holds(samples_key(s)) ? 0.4 : 1.0);
  return work < 1e5;
}
std::string no_error(const SoftmaxResult&) { return ""; }  // bad logits are shown in place, per row
class SoftmaxPanel final : public RecomputePanel<SoftmaxState, SoftmaxResult> {
 public:
  // The small multiples and the worked example need height for their y labels when the column is narrow.
  SoftmaxPanel()
      : RecomputePanel(kInfo, {.rows = {{{"scores", "query"}}, {{"sweep"}, 0.8f}, {{"worked"}, 0.7f}}},
                       {compute, no_error, {histogram_figure, query_figure, sweep_figure, worked_figure}, quick}) {}

  // A logits row that is not a list of numbers is shown in place and reported by export, not silently dropped.
  std::string problem() const override {
    const auto& r = result();
    if (!r) return "";
    std::string p;
    if (!r->error_a.empty()) p = subst(tr("logits $A$: {0}"), {r->error_a});
    if (!r->error_b.empty()) p += (p.empty() ? "" : "; ") + subst(tr("logits $B$: {0}"), {r->error_b});
    return p;
  }

 protected:
  bool control_visible(const Control& c) const override {
    return c.key != "custom_scale" || s_.scale_mode == ScaleMode::Custom;
  }
  void draw_summary(const SoftmaxResult& r) override { draw_worked_table(r); }

  void bind(Controls& c) override {
    c.add_int("d_k", &s_.d_k, 1, 4096, "$d_k$",
              N_("Dimension of $q$ and $k$; $\\mathrm{Var}(q\\cdot k)$ grows linearly with it."), true);
    c.add_int("n_keys", &s_.n_keys, 2, 256, N_("keys $n$"), N_("Number of keys one query spreads its attention over."),
              true);
    c.add_enum("scale_mode", &s_.scale_mode, {"1/sqrt(d_k)", N_("none"), "1/d_k", N_("custom")}, N_("scale"),
               N_("Factor applied to $q\\cdot k$ before softmax in the 'scaled' curves; 'unscaled' always uses 1."));
    c.add_float("custom_scale", &s_.custom_scale, 1e-4f, 10.0f, N_("custom scale"),
                N_("The factor used when the scale mode is custom."), true, "%.4g");
    c.add_float("temperature", &s_.temperature, 0.05f, 20.0f, N_("temperature $\\tau$"),
                N_("Both curves use $\\mathrm{softmax}(x / \\tau)$: above 1 flattens, below 1 sharpens."), true,
                "%.3g");
    c.add_int("samples", &s_.samples, 100, 200000, N_("samples"),
              N_("$q\\cdot k$ pairs in the histogram; the sweep uses a quarter of this many queries per $d_k$ (at most "
                 "5000)."),
              true);
    c.add_seed(&s_.seed, N_("Random seed; the same seed gives the same samples."));
    c.add_text("logits_a", &s_.logits_a, 256, N_("logits $A$"),
               N_("First row of the worked example, comma-separated."));
    c.add_text("logits_b", &s_.logits_b, 256, N_("logits $B$"),
               N_("Second row of the worked example, comma-separated."));
  }

 private:
  void draw_worked_table(const SoftmaxResult& r) {
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Worked example (recomputed live)"));
    auto row = [](const char* name, const WorkedSoftmax& w, const std::string& error) {
      if (!error.empty()) {
        warning_text(subst(tr("{0}: {1}"), {name, error}).c_str());
        return;
      }
      std::string logits, probs;
      for (size_t j = 0; j < w.probs.size(); ++j) {
        if (j) logits += ", ", probs += ", ";
        logits += fmt("%g", w.logits[j]);
        probs += fmt("%.3g", w.probs[j]);
      }
      ImGui::Text("%s: [%s]", name, logits.c_str());
      ImGui::Text(tr("  softmax [%s]"), probs.c_str());
      math_text(subst(tr("  top gradient $S(1 - S)$ = {0}"), {fmt("%.3g", w.top_grad)}).c_str());
    };
    row("A", r.worked_a, r.error_a);
    row("B", r.worked_b, r.error_b);
  }
};

}  // namespace softmax_panel

TW_REGISTER_PANEL(softmax_panel::SoftmaxPanel);

}  // namespace tw
