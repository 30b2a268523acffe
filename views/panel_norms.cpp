// Norms and activations: what LayerNorm, RMSNorm and BatchNorm remove; activation curves and their derivatives;
// the gated-MLP surface; the 2/3 hidden-size rule; pre- vs post-norm gradients at initialisation.
//
// [SECTION] state
// [SECTION] result and compute (core/experiments/norm_analysis, activation_curves, norm_placement)
// [SECTION] figures
// [SECTION] panel: controls, summary, registration
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/experiments/activation_curves.h"
#include "core/experiments/norm_analysis.h"
#include "core/experiments/norm_placement.h"
#include "core/number_list.h"
#include "views/last_result.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace norms_panel {

const PanelInfo kInfo = {"norms", N_("Norms and activations"), N_("Blocks"),
                         N_("LayerNorm vs RMSNorm vs BatchNorm, activation curves, the 2/3 rule, pre- vs post-norm")};

// [SECTION] state

enum class GatedUnit { SwiGLU, GeGLU };  // the gate's activation: SiLU or GELU (exact)

struct NormsState {
  std::string vector = "1, 2, 3, 4, 5, 6, 7, 8, 9";  // the row the three norms see
  int batch = 8;                                     // tokens in BatchNorm's batch (row 0 is the vector)
  float eps = 1e-5f;                                 // ε inside every norm
  float x_range = 4.0f;                              // activations drawn over [−range, range]
  GatedUnit glu = GatedUnit::SwiGLU;                 // the gated unit drawn as a surface
  std::vector<int> dims = {512, 1024, 2048, 4096};   // C values of the 2/3-rule table
  int multiple_of = 256;                             // LLaMA rounds the hidden size up to a multiple of this
  std::vector<int> depths = {2, 4, 8, 16, 32, 48};   // stacks compared pre vs post
  NormType norm_kind = NormType::RMSNorm;            // the norm of the depth experiment
  int seed = 1;
};

// [SECTION] result and compute

struct NormsResult {
  NormsState state;
  std::string error;  // why the vector or the depth settings cannot be used
  NormComparison norms;
  ActivationCurves curves;
  GluSurface glu;
  std::vector<HiddenSizeRow> hidden;
  std::vector<PlacementGradients> placement;
};
using ResultPtr = std::shared_ptr<const NormsResult>;

PlacementParams placement_params(const NormsState& s) {
  PlacementParams p;
  p.depths = s.depths;
  p.seed = static_cast<uint64_t>(s.seed);
  p.norm = s.norm_kind;
  return p;
}

// The depth experiment reads only the depths, the seed and the norm kind (its model size is fixed).
using PlacementKey = std::tuple<std::vector<int>, uint64_t, NormType>;
PlacementKey placement_key(const PlacementParams& p) { return {p.depths, p.seed, p.norm}; }
LastResult<PlacementKey, std::vector<PlacementGradients>>& placement_cache() {
  static LastResult<PlacementKey, std::vector<PlacementGradients>> cache;
  return cache;
}

ResultPtr compute(const NormsState& s, Progress& progress) {
  auto r = std::make_shared<NormsResult>();
  r->state = s;
  std::vector<double> x;
  if (std::string e = parse_number_list(s.vector, &x, 2, 64); !e.empty()) {
    r->error = subst(tr("vector: {0}"), {e});
    return r;
  }
  const PlacementParams pp = placement_params(s);
  r->error = check_norm_input(x, s.batch, s.eps);
  if (r->error.empty()) r->error = validate(pp);
  if (!r->error.empty()) return r;
  r->norms = compare_norms(x, s.batch, s.eps, static_cast<uint64_t>(s.seed));
  r->curves = activation_curves(-s.x_range, s.x_range, 401);
  r->glu = glu_surface(s.glu == GatedUnit::GeGLU ? Activation::GeluExact : Activation::SiLU, s.x_range, 41);
  r->hidden = hidden_size_table(s.dims, s.multiple_of);
  progress.set(0.1f);
  r->placement = *placement_cache().get(
      placement_key(pp),
      [&] {
        return placement_gradients(pp, [&](float f) {
          progress.set(0.1f + 0.9f * f);
          return !progress.cancelled();
        });
      },
      [&](const std::vector<PlacementGradients>& g) { return g.size() == pp.depths.size(); });
  return r;
}

// A drag of the vector, batch, ε, range or the 2/3-rule table reuses the depth experiment: it is the only slow part.
bool quick(const NormsState& s) {
  const PlacementParams pp = placement_params(s);
  return placement_cache().holds(placement_key(pp)) || placement_work(pp) < 2e6;
}
std::string error_of(const NormsResult& r) { return r.error; }

using plot::fmt;

// [SECTION] figures

plot::Figure norms_figure(const NormsResult& r) {
  const NormComparison& n = r.norms;
  plot::Figure fig("norms",
                   tr("One vector through LayerNorm, RMSNorm and BatchNorm (with $\\gamma = 1$, $\\beta = 0$)"));
  fig.note = subst(tr("mean {0}, variance {1}, RMS {2}; BatchNorm uses each feature's statistics over {3} tokens"),
                   {fmt("%.4g", n.mean), fmt("%.4g", n.var), fmt("%.4g", n.rms), std::to_string(r.state.batch)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("feature $i$"), "", tr("value"), "");
  ax.flags |= plot::AxesFlags_LegendOutside;
  std::vector<std::string> groups;
  for (size_t i = 0; i < n.x.size(); ++i) groups.push_back(std::to_string(i));
  ax.bars(groups, {tr("input $x$"), "LayerNorm", "RMSNorm", tr("BatchNorm (row 0)")},
          {n.x, n.layernorm, n.rmsnorm, n.batchnorm_row0});
  plot::Table& t = fig.table;
  t.header = {"index", "x", "layernorm", "rmsnorm", "batchnorm"};
  for (size_t i = 0; i < n.x.size(); ++i)
    t.add_row({double(i), n.x[i], n.layernorm[i], n.rmsnorm[i], n.batchnorm_row0[i]});
  return fig;
}

plot::Figure activations_figure(const NormsResult& r) {
  const ActivationCurves& c = r.curves;
  plot::Figure fig("activations", tr("Activations and their derivatives (from the MLP backward)"));
  fig.note = subst(tr("GELU tanh vs exact: largest gap {0} at $x$ = {1}"),
                   {fmt("%.3g", c.gelu_gap_max), fmt("%.3g", c.gelu_gap_at)});
  fig.grid_cols = 2;
  const char* names[] = {"ReLU", "GELU (erf)", "GELU (tanh)", "SiLU"};
  {
    plot::Axes& v = fig.add_axes("$\\mathrm{act}(x)$");
    v.setup("$x$", "", "$\\mathrm{act}(x)$", "");
    for (size_t k = 0; k < c.curves.size(); ++k) v.line(names[k], c.x, c.curves[k].value).dashed = k == 2;
  }
  {
    plot::Axes& d = fig.add_axes("$\\mathrm{act}'(x)$");
    d.setup("$x$", "", "$\\mathrm{act}'(x)$", "");
    d.flags |= plot::AxesFlags_NoLegend;
    for (size_t k = 0; k < c.curves.size(); ++k) d.line(names[k], c.x, c.curves[k].derivative).dashed = k == 2;
  }
  plot::Table& t = fig.table;
  t.header = {"x", "relu", "gelu_exact", "gelu_tanh", "silu", "d_relu", "d_gelu_exact", "d_gelu_tanh", "d_silu"};
  for (size_t i = 0; i < c.x.size(); ++i) {
    std::vector<plot::Cell> row = {c.x[i]};
    for (const ActivationCurve& a : c.curves) row.push_back(a.value[i]);
    for (const ActivationCurve& a : c.curves) row.push_back(a.derivative[i]);
    t.add_row(std::move(row));
  }
  return fig;
}

plot::Figure glu_figure(const NormsResult& r) {
  const GluSurface& g = r.glu;
  const int n = static_cast<int>(g.axis.size());
  const char* gate = g.act == Activation::SiLU ? "\\mathrm{silu}" : "\\mathrm{gelu}";
  plot::Figure fig("glu", subst(tr("{0} unit: $h = {1}(gate)\\cdot up$"),

                                {g.act == Activation::SiLU ? "SwiGLU" : "GeGLU", gate}));
  fig.note = tr("negative gates close the unit ($h \\approx 0$) whatever up is; positive gates pass up scaled");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("gate"), "", tr("up"), "");
  std::vector<double> data;  // rows top to bottom = up from +range to −range, so up grows upward
  plot::HeatmapOptions o{.colormap = plot::Colormap::Diverging, .value_label = "$h$"};
  for (int i = n - 1; i >= 0; --i) {
    for (int j = 0; j < n; ++j) data.push_back(g.h(i, j));
    o.row_labels.push_back(fmt("%.3g", g.axis[size_t(i)]));
  }
  for (int j = 0; j < n; ++j) o.col_labels.push_back(fmt("%.3g", g.axis[size_t(j)]));
  ax.heatmap("$h$", data.data(), n, n, o);
  plot::Table& t = fig.table;
  t.header = {"gate", "up", "h", "dh_dgate"};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) t.add_row({g.axis[size_t(j)], g.axis[size_t(i)], g.h(i, j), g.dgate(i, j)});
  return fig;
}

plot::Figure hidden_figure(const NormsResult& r) {
  plot::Figure fig("hidden", tr("The 2/3 rule: a gated MLP with $F = 8C/3$ keeps a plain $4C$ MLP's weights"));
  fig.note =
      subst(tr("plain: $2\\cdot C\\cdot 4C = 8C^2$; gated: $3\\cdot C\\cdot F$, $F = \\mathrm{int}(8C/3)$ rounded up "
               "to {0}"),
            {std::to_string(r.state.multiple_of)});
  plot::Axes& ax = fig.axes();
  ax.setup("$C$ (hidden_size)", "", tr("MLP weights per layer"), tr("millions"));
  std::vector<std::string> groups;
  std::vector<double> plain, gated;
  plot::Table& t = fig.table;
  t.header = {"dim", "plain_params", "exact_hidden", "llama_hidden", "gated_params", "ratio"};
  for (const HiddenSizeRow& h : r.hidden) {
    groups.push_back(std::to_string(h.dim));
    plain.push_back(h.plain_params / 1e6);
    gated.push_back(h.gated_params / 1e6);
    t.add_row({double(h.dim), double(h.plain_params), h.exact_hidden, double(h.llama_hidden), double(h.gated_params),
               h.ratio});
  }
  ax.bars(groups, {tr("plain, $F = 4C$"), tr("gated, $F = 2/3\\cdot 4C$")}, {plain, gated});
  return fig;
}

plot::Figure placement_figure(const NormsResult& r) {
  plot::Figure fig("placement", tr("Gradient norm per layer at initialisation: pre-norm vs post-norm"));
  fig.note = subst(tr("{0}, $C$ = 32, one backward pass on random tokens; each line is one depth; both axes share one "
                      "$y$ range"),
                   {r.state.norm_kind == NormType::LayerNorm ? "LayerNorm" : "RMSNorm"});
  fig.grid_cols = 2;
  for (const char* title : {N_("pre-norm: $x + f(\\mathrm{Norm}(x))$"), N_("post-norm: $\\mathrm{Norm}(x + f(x))$")}) {
    plot::Axes& ax = fig.add_axes(tr(title));  // set up before the next add_axes (which may move the grid)
    ax.setup(tr("layer (0 = input side)"), "", "$\\|\\partial L / \\partial \\theta_l\\|$", "");
    ax.y.scale = plot::Scale::Log10;
  }
  fig.grid[0].flags |= plot::AxesFlags_NoLegend;  // one legend, right of the post-norm axes
  fig.grid[1].flags |= plot::AxesFlags_LegendOutside;
  plot::Table& t = fig.table;
  t.header = {"depth", "layer", "pre_norm", "post_norm"};
  plot::Axes& fig_pre = fig.grid[0];
  plot::Axes& fig_post = fig.grid[1];
  double lo = 0, hi = 0;  // one y range for both axes, so pre and post compare by eye
  for (const PlacementGradients& g : r.placement)
    for (const std::vector<double>* v : {&g.pre, &g.post})
      for (double x : *v)
        if (x > 0) lo = lo > 0 ? std::min(lo, x) : x, hi = std::max(hi, x);
  if (hi > 0) fig_pre.set_y_range(lo / 1.2, hi * 1.2), fig_post.set_y_range(lo / 1.2, hi * 1.2);
  for (const PlacementGradients& g : r.placement) {
    std::vector<double> layers;
    for (int l = 0; l < g.depth; ++l) layers.push_back(l);
    fig_pre.line(subst(tr("depth {0}"), {std::to_string(g.depth)}), layers, g.pre);
    fig_post.line(subst(tr("depth {0}"), {std::to_string(g.depth)}), layers, g.post);
    for (int l = 0; l < g.depth; ++l) t.add_row({double(g.depth), double(l), g.pre[size_t(l)], g.post[size_t(l)]});
  }
  return fig;
}

// [SECTION] panel

class NormsPanel final : public RecomputePanel<NormsState, NormsResult> {
 public:
  NormsPanel()
      : RecomputePanel(
            kInfo,
            {.rows = {{{"norms"}, 0.55f}, {{"activations"}, 0.75f}, {{"glu", "hidden"}, 0.9f}, {{"placement"}, 0.75f}}},
            {compute,
             error_of,
             {norms_figure, activations_figure, glu_figure, hidden_figure, placement_figure},
             quick}) {}

 protected:
  void bind(Controls& c) override {
    c.add_text(
        "vector", &s_.vector, 512, N_("vector $x$"),
        N_("The numbers the three norms see, comma-separated (2 to 64 values); [1 ... 9] is the classic example."));
    c.add_int("batch", &s_.batch, 2, 64, N_("batch tokens"),
              N_("BatchNorm's batch: $x$ is row 0, the other tokens are drawn around $x$'s mean and spread."));
    c.add_float("eps", &s_.eps, 1e-8f, 1.0f, N_("eps"),
                N_("Added to the variance (mean square) before the square root."), true, "%.3g");
    c.add_float("x_range", &s_.x_range, 0.5f, 20.0f, N_("$x$ range"),
                N_("Activations and the gated surface cover [-range, range]."), false, "%.3g");
    c.add_enum("glu", &s_.glu, {N_("SwiGLU"), N_("GeGLU")}, N_("gated unit"),
               N_("Gate activation of the surface: SiLU (LLaMA's SwiGLU) or exact GELU (GeGLU)."));
    c.add_int_list("dims", &s_.dims, 8, 65536, 8, N_("2/3 rule dims $C$"),
                   N_("Model widths for the 2/3-rule table, comma-separated (at most 8)."));
    c.add_int("multiple_of", &s_.multiple_of, 1, 4096, N_("multiple_of"),
              N_("LLaMA rounds $\\lfloor 8C/3 \\rfloor$ up to a multiple of this (256 gives 11008 for $C$ = 4096)."),
              true);
    c.add_int_list("depths", &s_.depths, 1, 64, 16, N_("depths"),
                   N_("Stack depths for the pre- vs post-norm gradient figure, comma-separated (1 to 64 each)."));
    c.add_enum("norm_kind", &s_.norm_kind, {N_("RMSNorm"), N_("LayerNorm")}, N_("depth-test norm"),
               N_("The norm inside the blocks of the pre- vs post-norm experiment."));
    c.add_int("seed", &s_.seed, 0, 1000000, N_("seed"),
              N_("Seed of the batch tokens, the weights and the random inputs."));
  }

  void draw_summary(const NormsResult& r) override {
    const NormComparison& n = r.norms;
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Exact values (recomputed live)"));
    ImGui::Text(tr("mean %.6g, var %.6g, RMS %.6g"), n.mean, n.var, n.rms);
    auto list = [](const char* name, const std::vector<double>& v) {
      std::string s;
      for (size_t i = 0; i < v.size() && i < 12; ++i) s += (i ? ", " : "") + fmt("%.4f", v[i]);
      if (v.size() > 12) s += ", ...";
      ImGui::TextWrapped("%s [%s]", name, s.c_str());
    };
    list("LN", n.layernorm);
    list("RMS", n.rmsnorm);
    const double tol = 1e-4;
    check_mark(n.layernorm_shift_change < tol,
               subst(tr("LayerNorm ignores a shift (change {0})"), {fmt("%.2g", n.layernorm_shift_change)}).c_str());
    check_mark(n.layernorm_scale_change < tol,
               subst(tr("LayerNorm ignores a scale (change {0})"), {fmt("%.2g", n.layernorm_scale_change)}).c_str());
    check_mark(n.rmsnorm_scale_change < tol,
               subst(tr("RMSNorm ignores a scale (change {0})"), {fmt("%.2g", n.rmsnorm_scale_change)}).c_str());
    check_mark(n.rmsnorm_shift_change >= tol,
               subst(tr("RMSNorm sees a shift (change {0})"), {fmt("%.2g", n.rmsnorm_shift_change)}).c_str());
  }
};

}  // namespace norms_panel

TW_REGISTER_PANEL(norms_panel::NormsPanel);

}  // namespace tw
