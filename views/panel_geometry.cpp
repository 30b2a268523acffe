// High-dimensional geometry: why q·k spreads like √d, why random directions are nearly orthogonal, why attention
// is a dot product and not a cosine, and how much of a weight matrix a rank-r approximation keeps.
//
// [SECTION] state
// [SECTION] compute
// [SECTION] figures (built from core/experiments/high_dim_geometry results)
// [SECTION] panel: controls
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "core/base/i18n.h"
#include "core/experiments/high_dim_geometry.h"
#include "views/recompute.h"

namespace tw {

namespace geometry_panel {

const PanelInfo kInfo = {"geometry", N_("High-dimensional geometry"), N_("Foundations"),
                         N_("Norms concentrate at $\\sqrt{d}$, random directions are orthogonal, dot product vs "
                            "cosine, singular values and rank-$r$ approximation")};

// [SECTION] state

struct GeometryState {
  GeometryParams params;
  // Bound beside params (sliders are floats, the seed an int; the core keeps doubles and a uint64): params_of.
  float big_norm = 4.0f;
  float planted_scale = 3.0f;
  int seed = 1;
};

GeometryParams params_of(const GeometryState& s) {
  GeometryParams p = s.params;
  p.big_norm = s.big_norm;
  p.planted_scale = s.planted_scale;
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

// [SECTION] compute

using GeometryResult = Checked<GeometryParams, GeometryAnalysis>;
using ResultPtr = std::shared_ptr<const GeometryResult>;

// Sweep points by (seed, points) and the last spectrum: a change of another control reuses them (the worker is the
// only user; the memo locks anyway).
GeometryMemo& geometry_memo() {
  static GeometryMemo memo;
  return memo;
}

// The first answer computes the sweep up to d = 128 (about 3% of it) unless the memo holds it; refine() adds the
// larger dimensions on the worker while the sweep figure says so.
ResultPtr compute(const GeometryState& s, Progress& progress) {
  const std::atomic<bool>* cancel = progress.cancel_flag();
  return run_checked(params_of(s),
                     [cancel](const GeometryParams& p) { return analyze_geometry_first(p, cancel, &geometry_memo()); });
}
bool pending(const GeometryResult& r) { return r.error.empty() && r.a.sweep_pending; }
ResultPtr refine(const GeometryState&, const GeometryResult& first, Progress& progress) {
  auto r = std::make_shared<GeometryResult>(first);
  complete_geometry_sweep(r->a, r->params, progress.cancel_flag(), &geometry_memo());
  return r;
}

// The first answer: the histograms' samples × d normals, the sweep up to d = 128 and one SVD; waited for in the
// frame unless the histograms or the matrix are large.
bool quick(const GeometryState& s) { return double(s.params.samples) * s.params.d <= 4e6 && s.params.size <= 256; }

using plot::fmt;

// [SECTION] figures

plot::Figure norms_figure(const GeometryResult& r) {
  const GeometryAnalysis& a = r.a;
  plot::Figure fig("norms", subst(tr("Norms of {0} random vectors in $d = {1}$"),
                                  {std::to_string(a.norms.size()), std::to_string(a.d)}));
  fig.note = subst(tr("$x \\sim \\mathcal{N}(0, I_d)$: mean of $‖x‖^2$ = {0} (expected $d$ = {1})"),
                   {fmt("%.1f", a.mean_norm_sq), std::to_string(a.d)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("norm $‖x‖$"), "", tr("vectors"), "");
  ax.histogram(tr("$‖x‖$"), a.norms, 30);
  ax.vline(tr("$\\sqrt{d}$"), std::sqrt(static_cast<double>(a.d)));
  ax.flags |= plot::AxesFlags_NoLegend;
  return fig;
}

plot::Figure angles_figure(const GeometryResult& r) {
  const GeometryAnalysis& a = r.a;
  plot::Figure fig("angles", subst(tr("Angle between two random vectors, $d = {0}$"), {std::to_string(a.d)}));
  fig.note = subst(tr("variance of $\\cos\\theta$ = {0} (expected $1/d$ = {1})"),
                   {fmt("%.3g", a.cos_variance), fmt("%.3g", 1.0 / a.d)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("angle $\\theta$"), tr("degrees"), tr("pairs"), "");
  plot::HistogramItem& h = ax.histogram(tr("angle"), a.angles_deg, 90);
  h.min = 0;
  h.max = 180;
  ax.vline(tr("90°"), 90);
  ax.flags |= plot::AxesFlags_NoLegend;
  return fig;
}

plot::Figure dot_cos_figure(const GeometryResult& r) {
  const GeometryAnalysis& a = r.a;
  plot::Figure fig("dot_vs_cos", subst(tr("Dot product vs cosine of random pairs, $d = {0}$"), {std::to_string(a.d)}));
  fig.note =
      tr("the dot product spreads like $\\sqrt{d}$, the cosine like $1/\\sqrt{d}$: scores are dot products, "
         "hence the $1/\\sqrt{d_k}$ scale");
  fig.grid_cols = 2;
  plot::Axes& dots = fig.add_axes(tr("dot product $x \\cdot y$"));
  dots.setup(tr("$x \\cdot y$"), "", tr("pairs"), "");
  dots.histogram(tr("$x \\cdot y$"), a.dots, 30);
  dots.flags |= plot::AxesFlags_NoLegend;
  plot::Axes& cosines = fig.add_axes(tr("cosine $\\cos\\theta$"));
  cosines.setup(tr("$\\cos\\theta$"), "", tr("pairs"), "");
  cosines.histogram(tr("$\\cos\\theta$"), a.cosines, 30);
  cosines.flags |= plot::AxesFlags_NoLegend;
  return fig;
}

plot::Figure sweep_figure(const GeometryResult& r) {
  plot::Figure fig("sweep", tr("Concentration as the dimension grows"));
  fig.note = subst(tr("200 vectors per dimension; nearest and farthest of {0} points from one point"),
                   {std::to_string(r.params.points)});
  if (r.a.sweep_pending) fig.note += std::string(" ") + tr("(computing the larger dimensions...)");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("dimension $d$"), "", tr("value"), "");
  ax.x.scale = plot::Scale::Log10;
  ax.y.scale = plot::Scale::Log10;
  std::vector<double> ds, ratio, rel, cos_std, ref;
  for (const DimensionPoint& p : r.a.sweep) {
    ds.push_back(p.d);
    ratio.push_back(p.far_near_ratio);
    rel.push_back(p.norm_rel_std);
    cos_std.push_back(p.cos_std);
    ref.push_back(1.0 / std::sqrt(static_cast<double>(p.d)));
  }
  ax.line(tr("farthest / nearest distance"), ds, ratio).style = plot::LineStyle::LineAndMarkers;
  ax.line(tr("std of $\\cos\\theta$"), ds, cos_std).style = plot::LineStyle::LineAndMarkers;
  ax.line(tr("relative std of $‖x‖$"), ds, rel).style = plot::LineStyle::LineAndMarkers;
  ax.line(tr("$1/\\sqrt{d}$"), ds, ref).dashed = true;
  plot::Table& t = fig.table;
  t.header = {"d", "norm_over_sqrt_d", "norm_rel_std", "cos_std", "angle_std_deg", "far_near_ratio"};
  for (const DimensionPoint& p : r.a.sweep)
    t.add_row({double(p.d), p.norm_over_sqrt_d, p.norm_rel_std, p.cos_std, p.angle_std_deg, p.far_near_ratio});
  return fig;
}

plot::Figure keys_figure(const GeometryResult& r) {
  const KeyComparison& k = r.a.keys;
  plot::Figure fig("keys", tr("One query, softmax over dot products vs over cosines"));
  fig.note = subst(tr("key 0: $\\cos = 0.3$ but {0}× the norm; key 1: $\\cos = 0.8$. The dot product crowns key 0"),
                   {fmt("%.3g", r.params.big_norm)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("key $j$"), "", tr("attention weight"), "");
  std::vector<std::string> groups;
  for (size_t j = 0; j < k.p_dot.size(); ++j) groups.push_back(std::to_string(j));
  ax.bars(groups, {tr("$\\softmax(q \\cdot k_j / \\sqrt{d})$"), tr("softmax of cosines (equal norms)")},
          {k.p_dot, k.p_cos});
  plot::Table& t = fig.table;
  t.header = {"key", "norm", "cosine", "score_dot", "p_dot", "score_cos", "p_cos"};
  for (size_t j = 0; j < k.p_dot.size(); ++j)
    t.add_row({double(j), k.key_norms[j], k.cosines[j], k.dots[j], k.p_dot[j], k.cos_scores[j], k.p_cos[j]});
  return fig;
}

plot::Figure spectrum_figure(const GeometryResult& r) {
  const Spectrum& s = r.a.spectrum;
  plot::Figure fig("spectrum", subst(tr("Singular values of {0}"), {s.source}));
  const double rel = s.frobenius2 > 0 ? s.tail_error[size_t(s.rank_r)] / s.frobenius2 : 0;
  fig.note = subst(tr("rank $r = {0}$ keeps {1}% of $‖W‖_F^2$; best rank-$r$ error $\\sum_{i>r} \\sigma_i^2$ = {2} "
                      "({3}% ; the LoRA panel trains such a $BA$)"),
                   {std::to_string(s.rank_r), fmt("%.1f", 100 * s.energy[size_t(s.rank_r)]),
                    fmt("%.4g", s.tail_error[size_t(s.rank_r)]), fmt("%.1f", 100 * rel)});
  fig.grid_cols = 2;
  plot::Axes& sv = fig.add_axes(tr("singular values $\\sigma_i$"));
  sv.setup(tr("index $i$"), "", tr("$\\sigma_i$"), "");
  sv.y.scale = plot::Scale::Log10;
  std::vector<double> idx, sigma;
  for (size_t i = 0; i < s.singular.size(); ++i) idx.push_back(double(i + 1)), sigma.push_back(s.singular[i]);
  sv.line(tr("$\\sigma_i$"), idx, sigma).style = plot::LineStyle::LineAndMarkers;
  sv.vline(subst(tr("$r = {0}$"), {std::to_string(s.rank_r)}), s.rank_r + 0.5);
  sv.flags |= plot::AxesFlags_NoLegend;
  // No legend: beside a small multiple it would squeeze it; the title names the two lines.
  plot::Axes& en = fig.add_axes(tr("kept (solid) and error (dashed) at rank $r$"));
  en.flags |= plot::AxesFlags_NoLegend;
  en.setup(tr("rank $r$"), "", tr("fraction"), "");
  en.set_y_range(0, 1);
  std::vector<double> rs, kept, err;
  for (size_t i = 0; i < s.energy.size(); ++i) {
    rs.push_back(double(i));
    kept.push_back(s.energy[i]);
    err.push_back(s.frobenius2 > 0 ? s.tail_error[i] / s.frobenius2 : 0);
  }
  en.line(tr("energy kept"), rs, kept);
  en.line(tr("error $‖W - W_r‖_F^2$ (relative)"), rs, err).dashed = true;
  en.vline(subst(tr("$r = {0}$"), {std::to_string(s.rank_r)}), s.rank_r);
  plot::Table& t = fig.table;
  t.header = {"rank", "singular_value", "energy_kept", "tail_error"};
  for (size_t i = 0; i < s.energy.size(); ++i)
    t.add_row({double(i), i == 0 ? NAN : s.singular[i - 1], s.energy[i], s.tail_error[i]});
  return fig;
}

// [SECTION] panel

class GeometryPanel : public RecomputePanel<GeometryState, GeometryResult> {
 public:
  GeometryPanel()
      : RecomputePanel(
            kInfo, {.rows = {{{"norms", "angles"}}, {{"dot_vs_cos"}, 1.0f}, {{"sweep", "keys"}}, {{"spectrum"}, 1.0f}}},
            {compute,
             checked_error<GeometryResult>,
             {norms_figure, angles_figure, dot_cos_figure, sweep_figure, keys_figure, spectrum_figure},
             quick,
             pending,
             refine}) {}

 protected:
  void bind(Controls& c) override {
    GeometryParams& p = s_.params;
    c.add_int("d", &p.d, 2, 4096, tr("dimension $d$"),
              tr("Dimension of the random vectors $x \\sim \\mathcal{N}(0, I_d)$."), true);
    c.add_int("samples", &p.samples, 20, 20000, tr("samples"), tr("Vectors drawn for the histograms."), true);
    c.add_int("points", &p.points, 10, 2000, tr("points"),
              tr("Points whose nearest and farthest distance from one point the sweep compares."), true);
    c.add_int("n_keys", &p.n_keys, 2, 64, tr("keys"), tr("Keys in the dot product vs cosine example."));
    c.add_float("big_norm", &s_.big_norm, 1.0f, 20.0f, tr("norm of key 0"),
                tr("Key 0's norm as a multiple of the others'; it points only loosely at the query ($\\cos = 0.3$)."),
                false, "%.2g");
    c.add_enum("matrix", &p.matrix, {N_("random"), N_("low-rank+noise"), N_("sort model")}, tr("matrix"),
               tr("Whose singular values: a random matrix, a planted low-rank part plus noise, or a weight of the "
                  "shipped sort model."));
    c.add_int("size", &p.size, 8, 512, tr("matrix size"), tr("Rows and columns of the random matrices."), true);
    c.add_int("planted_rank", &p.planted_rank, 1, 64, tr("planted rank"), tr("Rank of the planted part."));
    c.add_float("planted_scale", &s_.planted_scale, 0.0f, 20.0f, tr("planted strength"),
                tr("Singular values of the planted part, in units of half the noise's largest (about 1)."), false,
                "%.2g");
    c.add_enum("tensor", &p.tensor, {"q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"},
               tr("model weight"), tr("Which projection of the sort model."));
    c.add_int("layer", &p.layer, 0, 1, tr("layer"), tr("Layer of the sort model."));
    c.add_int("rank_r", &p.rank_r, 0, 512, tr("rank $r$"),
              tr("Rank of the approximation $W_r$: the truncated SVD, the best any rank-$r$ matrix (such as "
                 "LoRA's $BA$) can do."));
    c.add_seed(&s_.seed, tr("Random seed of the vectors and matrices."));
  }

  bool control_visible(const Control& c) const override {
    const std::string& key = c.key;
    const GeometryMatrix m = s_.params.matrix;
    if (key == "size" || key == "planted_rank" || key == "planted_scale")
      return m != GeometryMatrix::ShippedModel && (key == "size" || m == GeometryMatrix::LowRankPlusNoise);
    if (key == "tensor" || key == "layer") return m == GeometryMatrix::ShippedModel;
    return true;
  }
};

}  // namespace geometry_panel

TW_REGISTER_PANEL(geometry_panel::GeometryPanel);

}  // namespace tw
