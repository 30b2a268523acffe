// ALiBi: attention with linear biases instead of position embeddings.
//
// [SECTION] state
// [SECTION] figures (built from core/experiments/alibi_analysis results)
// [SECTION] panel: controls, recompute, draw
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "core/experiments/alibi_analysis.h"
#include "core/experiments/alibi_settings.h"
#include "views/bind_settings.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace alibi_panel {

const PanelInfo kInfo = {
    "alibi", N_("ALiBi"), N_("Positions"),
    N_("Linear distance biases per head: slopes for any head count, bias matrices, extrapolation")};

// [SECTION] state

// The settings and their mapping to AlibiParams live in core (the lessons read the same ones).
struct AlibiState : AlibiSettings {
  bool log_slopes = true;  // slope bars on a log axis
};

// Core's settings, then the panel's own.
template <class F>
void for_each_setting(AlibiState& s, F&& f) {
  for_each_setting(static_cast<AlibiSettings&>(s), f);
  f("log_slopes", s.log_slopes, BoolSpec{N_("log slopes"), N_("Draw the slope bars on a logarithmic axis.")});
}

struct AlibiResult {
  AlibiState state;
  int head = 0;  // the head actually shown (the control clamped to the head count)
  AlibiAnalysis a;
};
using ResultPtr = std::shared_ptr<const AlibiResult>;

ResultPtr compute(const AlibiState& s) {
  auto r = std::make_shared<AlibiResult>();
  r->state = s;
  const AlibiParams p = params_of(s);
  r->head = p.head;
  r->a = analyze_alibi(p);
  return r;
}

using plot::fmt;

// Bias with the cells the causal mask removes shown as −∞ (grey), so the picture matches what softmax sees.
std::vector<double> masked_bias(const Mat& b, bool symmetric) {
  std::vector<double> v(static_cast<size_t>(b.size()));
  for (Eigen::Index i = 0; i < b.rows(); ++i)
    for (Eigen::Index j = 0; j < b.cols(); ++j)
      v[static_cast<size_t>(i * b.cols() + j)] = (!symmetric && j > i) ? -INFINITY : double(b(i, j));
  return v;
}

// [SECTION] figures

plot::Figure slopes_figure(const AlibiResult& r) {
  const AlibiAnalysis& a = r.a;
  plot::Figure fig("slopes", subst(tr("Slope $m$ per head ({0} heads)"), {std::to_string(a.slopes.size())}));
  fig.note =
      tr("power of two $n$: $m_k = 2^{-8k/n}$; otherwise the closest lower power of two's slopes, then every other "
         "slope of the next one");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("head"), "", tr("slope $m$"), "");
  if (r.state.log_slopes) ax.y.scale = plot::Scale::Log10;
  std::vector<std::string> groups;
  std::vector<double> m;
  for (size_t h = 0; h < a.slopes.size(); ++h) groups.push_back(std::to_string(h)), m.push_back(a.slopes[h]);
  ax.bars(groups, {tr("slope")}, {m});
  ax.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"head", "slope"};
  for (size_t h = 0; h < a.slopes.size(); ++h) t.add_row({double(h), a.slopes[h]});
  return fig;
}

plot::Figure bias_figure(const AlibiResult& r) {
  const AlibiAnalysis& a = r.a;
  plot::Figure fig("bias",
                   subst(tr("Bias of head {0} ($m$ = {1})"), {std::to_string(r.head), fmt("%.4g", a.slopes[r.head])}));
  fig.note = r.state.symmetric ? tr("symmetric: $-m |i - j|$")
                               : tr("causal: $-m (i - j)$ for $j \\le i$; grey cells are masked");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("key position $j$"), "", tr("query position $i$"), "");
  const std::vector<double> v = masked_bias(a.bias, r.state.symmetric);
  plot::HeatmapOptions o;
  o.colormap = plot::Colormap::Viridis;
  o.vmax = 0;
  o.value_label = tr("bias");
  ax.heatmap(tr("bias"), v.data(), int(a.bias.rows()), int(a.bias.cols()), o);
  // CSV alibi-bias: the T×T bias as computed (the causal variant stores 0 above the diagonal; the mask owns it).
  plot::Table& t = fig.table;
  for (Eigen::Index j = 0; j < a.bias.cols(); ++j) t.header.push_back(std::to_string(j));
  for (Eigen::Index i = 0; i < a.bias.rows(); ++i) {
    std::vector<plot::Cell> row;
    for (Eigen::Index j = 0; j < a.bias.cols(); ++j) row.emplace_back(double(a.bias(i, j)));
    t.add_row(std::move(row));
  }
  return fig;
}

plot::Figure heads_figure(const AlibiResult& r) {
  const AlibiAnalysis& a = r.a;
  plot::Figure fig("heads", subst(tr("Bias of every head (first {0} positions, common colour scale)"),
                                  {std::to_string(a.thumbs.empty() ? 0 : a.thumbs[0].rows())}));
  fig.grid_cols = std::min(static_cast<int>(a.thumbs.size()), 4);
  fig.shared_colorbar = true;  // every head uses the scale [lo, 0] below
  double lo = 0;
  for (const Mat& m : a.thumbs) lo = std::min(lo, double(m.minCoeff()));
  for (size_t h = 0; h < a.thumbs.size(); ++h) {
    plot::Axes& ax = fig.add_axes(subst(tr("head {0}"), {std::to_string(h)}));
    ax.x.hide = ax.y.hide = true;
    const std::vector<double> v = masked_bias(a.thumbs[h], r.state.symmetric);
    plot::HeatmapOptions o;
    o.colormap = plot::Colormap::Viridis;
    o.vmin = lo;
    o.vmax = 0;
    o.value_label = tr("bias");
    ax.heatmap(tr("bias"), v.data(), int(a.thumbs[h].rows()), int(a.thumbs[h].cols()), o);
  }
  return fig;
}

plot::Figure decay_figure(const AlibiResult& r) {
  const AlibiAnalysis& a = r.a;
  const int n = r.state.eval_len;
  plot::Figure fig("decay", r.state.scores == AlibiScores::RandomQk
                                ? tr("Last query's attention by distance (random $q\\cdot k$)")
                                : tr("Last query's attention by distance (uniform scores)"));
  fig.note = subst(tr("query at position {0}; dashed line: training length {1}"),
                   {std::to_string(n - 1), std::to_string(r.state.train_len)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("distance $i - j$"), "", tr("probability"), "").csv_columns("distance i - j", "probability");
  ax.y.scale = plot::Scale::Log10;
  ax.set_y_range(1e-8, 1);  // straight lines on a log axis: each head forgets exponentially, at its own rate
  std::vector<double> d;
  for (int k = 0; k < n; ++k) d.push_back(k);
  for (int h = 0; h < int(a.slopes.size()); ++h) {
    std::vector<double> p(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) p[static_cast<size_t>(k)] = a.last_query_probs(h, n - 1 - k);
    ax.line(subst(tr("head {0}"), {std::to_string(h)}), d, p);
  }
  // Past 16 heads the legend would be taller than the plot; the span figure names heads on its x axis instead.
  ax.flags |= a.slopes.size() > 16 ? plot::AxesFlags_NoLegend : plot::AxesFlags_LegendOutside;
  ax.vline(subst(tr("train {0}"), {std::to_string(r.state.train_len)}), r.state.train_len);
  return fig;
}

plot::Figure span_figure(const AlibiResult& r) {
  const AlibiAnalysis& a = r.a;
  plot::Figure fig("span", tr("How far each head looks (last query)"));
  fig.grid_cols = 2;
  std::vector<double> h, mean, half, beyond;
  for (size_t k = 0; k < a.slopes.size(); ++k) {
    h.push_back(double(k));
    mean.push_back(a.mean_distance[k]);
    half.push_back(a.half_mass_distance[k]);
    beyond.push_back(100.0 * a.mass_beyond_train[k]);
  }
  plot::Axes& dist = fig.add_axes(tr("distance"));
  dist.setup(tr("head"), "", tr("distance"), tr("tokens"));
  dist.line(tr("mean distance"), h, mean).style = plot::LineStyle::LineAndMarkers;
  dist.line(tr("half the mass within"), h, half).style = plot::LineStyle::LineAndMarkers;
  plot::Axes& far = fig.add_axes(tr("beyond the training length"));
  far.setup(tr("head"), "", tr("probability mass"), "%");
  far.line(tr("mass at distance >= training length"), h, beyond).style = plot::LineStyle::LineAndMarkers;
  far.set_y_range(0, 100);
  far.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"head", "slope", "mean_distance", "half_mass_distance", "mass_beyond_train"};
  for (size_t k = 0; k < a.slopes.size(); ++k)
    t.add_row({double(k), a.slopes[k], a.mean_distance[k], double(a.half_mass_distance[k]), a.mass_beyond_train[k]});
  return fig;
}

// [SECTION] panel

// The default sizes take about a millisecond; wait so the figures follow the slider in the same frame.
bool quick(const AlibiState& s) { return alibi_work(s.n_heads, s.T, s.eval_len) < 5e5; }
std::string error_of(const AlibiResult& r) { return r.a.error; }
class AlibiPanel final : public RecomputePanel<AlibiState, AlibiResult> {
 public:
  // The layout's rows, then the small multiples (figure 2), sized by their grid (draw_figures).
  AlibiPanel()
      : RecomputePanel(kInfo, {.rows = {{{"slopes", "bias"}}, {{"decay", "span"}}}},
                       {[](const AlibiState& s, Progress&) { return compute(s); },
                        error_of,
                        {slopes_figure, bias_figure, heads_figure, decay_figure, span_figure},
                        quick}) {
    item_width_ = 140;
  }

 protected:
  void draw_summary(const AlibiResult& r) override { draw_check(r); }

  void bind(Controls& c) override { bind_settings(c, s_); }

 private:
  void draw_check(const AlibiResult& r) {
    ImGui::Separator();
    const AlibiAnalysis& a = r.a;
    if (r.head != r.state.head)
      warning_text(
          subst(tr("There are {0} heads; showing head {1}."), {std::to_string(r.state.n_heads), std::to_string(r.head)})
              .c_str());
    const std::string label =
        subst(tr("add $m \\cdot j$ = add $-m(i - j)$? max diff {0}"), {fmt("%.2g", a.equivalence_max_diff)});

    check_mark(a.equivalence_applies && a.equivalence_max_diff < 1e-5, label.c_str());
    math_text(subst(tr("$\\softmax(S + m j)$ vs $\\softmax(S - m(i - j))$ over {0} query rows of all {1} heads."),
                    {std::to_string(a.equivalence_T), std::to_string(a.slopes.size())})
                  .c_str());
    if (!a.equivalence_applies)
      math_text(tr("The $m j$ shortcut needs the causal variant: $-m|i - j|$ is not $m j$ plus a row constant."));
    ImGui::TextWrapped(tr("Mass beyond training length (head %d): %.3g%%"), r.head,
                       100.0 * a.mass_beyond_train[r.head]);
  }

  void draw_figures(const DrawContext& ctx, const std::vector<plot::Figure>& figs) override {
    draw_figure_rows(figs, ctx, "alibi", layout_.rows);
    const float full = ImGui::GetContentRegionAvail().x;
    // Small multiples: four per row, each cell about as tall as it is wide (its colour bar takes some width).
    const plot::Figure* heads = find_figure(figs, "heads");
    if (!heads) return;
    const int cols = std::max(1, heads->grid_cols), rows = (static_cast<int>(heads->grid.size()) + cols - 1) / cols;
    plot::draw_figure(*heads, ctx, "alibi", ImVec2(full, rows * full / cols * 0.9f + 40 * ctx.dpi_scale));
  }
};

}  // namespace alibi_panel

TW_REGISTER_PANEL(alibi_panel::AlibiPanel);

}  // namespace tw
