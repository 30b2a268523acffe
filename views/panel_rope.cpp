// RoPE rotations: pairs of dimensions rotate by position × frequency, so q·k sees only the distance.
//
// [SECTION] state
// [SECTION] figures (built from core/experiments/rope_analysis results)
// [SECTION] panel: controls, recompute, draw
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>

#include "core/experiments/rope_analysis.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace rope_panel {

const PanelInfo kInfo = {"rope", N_("RoPE rotations"), N_("Positions"),
                         N_("Rotary position embedding: frequencies, rotations, relative-distance scores and context "
                            "scaling")};

// [SECTION] state

struct RopeState {
  // D (odd values round down to even), convention, scaling and trained length L; m, n, the pair k (clamped to
  // D/2 − 1), the heatmap's rows and the distance curves' x range: bound as they are.
  RopeAnalysisParams params{.rope = {}, .max_distance = 256};
  // Bound beside params (sliders are floats, the seed an int; the core keeps doubles and a uint64): params_of.
  float base = 10000.0f;          // θ base
  float factor = 4.0f;            // scaling factor
  float low_freq_factor = 1.0f;   // Llama 3
  float high_freq_factor = 4.0f;  // Llama 3
  int seed = 1;
};

RopeAnalysisParams params_of(const RopeState& s) {
  RopeAnalysisParams p = s.params;
  RopeConfig& rope = p.rope;
  rope.head_dim = std::max(2, rope.head_dim - rope.head_dim % 2);
  rope.base = s.base;
  rope.factor = s.factor;
  rope.low_freq_factor = s.low_freq_factor;
  rope.high_freq_factor = s.high_freq_factor;
  // Scaled frequencies are shown for the extended length factor·L (dynamic NTK depends on it).
  p.seq_len = static_cast<int>(std::min(1e9, std::ceil(static_cast<double>(s.factor) * rope.original_context)));
  p.pair = std::clamp(p.pair, 0, rope.head_dim / 2 - 1);
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

using RopeResult = Checked<RopeAnalysisParams, RopeAnalysis>;

using plot::fmt;

// [SECTION] figures

const uint32_t kQColor = 0x1F77B4FF, kKColor = 0xD62728FF;

plot::Figure plane_figure(const RopeAnalysisParams& p, const RopeAnalysis& r) {
  plot::Figure fig("plane", subst(tr("Pair $k$ = {0}: $q$ at $m$, $k$ at $n$"), {std::to_string(p.pair)}));
  const double two_pi = 2.0 * std::numbers::pi;
  fig.note =
      subst(tr("$\\theta_k$ = {0} rad/token, $m\\theta_k$ = {1}, $n\\theta_k$ = {2} rad"),
            {fmt("%.4g", r.theta_scaled[static_cast<size_t>(p.pair)]), fmt("%.4g", r.q_angle), fmt("%.4g", r.k_angle)});
  plot::Axes& ax = fig.axes();
  ax.flags |= plot::AxesFlags_EqualAspect | plot::AxesFlags_NoGrid | plot::AxesFlags_LegendOutside;
  ax.x.hide = ax.y.hide = true;
  ax.set_x_range(-1.35, 1.35).set_y_range(-1.35, 1.35);
  ax.circle(0, 0, 1);
  auto unit = [](const double v[2], double out[2]) {
    const double n = std::hypot(v[0], v[1]);
    out[0] = n > 0 ? v[0] / n : 1.0;
    out[1] = n > 0 ? v[1] / n : 0.0;
  };
  double q0[2], k0[2], q1[2], k1[2];
  unit(r.q_pair, q0);
  unit(r.k_pair, k0);
  unit(r.q_rotated, q1);
  unit(r.k_rotated, k1);
  ax.arrow(tr("$q$ (position 0)"), 0, 0, q0[0], q0[1], 0x1F77B466);
  ax.arrow(tr("$k$ (position 0)"), 0, 0, k0[0], k0[1], 0xD6272866);
  ax.arrow(tr("$q$ rotated by $m\\theta_k$"), 0, 0, q1[0], q1[1], kQColor);
  ax.arrow(tr("$k$ rotated by $n\\theta_k$"), 0, 0, k1[0], k1[1], kKColor);
  // Arcs show the rotation modulo a full turn (m·θ can be many turns).
  const double aq = std::atan2(q0[1], q0[0]), ak = std::atan2(k0[1], k0[0]);
  const double dq = std::fmod(r.q_angle, two_pi), dk = std::fmod(r.k_angle, two_pi);
  // The labels sit outside the unit circle, where no vector runs through them.
  plot::ArcItem& q_arc = ax.arc("$m\\theta_k \\bmod 2\\pi$ = " + fmt("%.2f", dq), 0, 0, 0.45, aq, aq + dq);
  q_arc.color = kQColor, q_arc.label_r = 1.06;
  plot::ArcItem& k_arc = ax.arc("$n\\theta_k \\bmod 2\\pi$ = " + fmt("%.2f", dk), 0, 0, 0.3, ak, ak + dk);
  k_arc.color = kKColor, k_arc.label_r = 1.06;
  return fig;
}

plot::Figure angle_figure(const RopeAnalysisParams& p, const RopeAnalysis& r) {
  plot::Figure fig("angles", tr("$\\cos(m\\theta_k)$ over positions \xC3\x97 pairs"));
  fig.note = subst(tr("tokens per turn: pair 0 {0}, pair {1} {2}"),
                   {fmt("%.3g", r.wavelength_scaled.front()), std::to_string(r.wavelength_scaled.size() - 1),
                    fmt("%.3g", r.wavelength_scaled.back())});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("pair $k$"), "", tr("position $m$"), "").csv_columns("pair $k$", "position m");
  plot::HeatmapOptions opt;
  opt.colormap = plot::Colormap::Diverging;
  opt.vmin = -1;
  opt.vmax = 1;
  opt.value_label = "$\\cos(m\\theta_k)$";
  ax.heatmap("cos", r.cos_angle.data(), static_cast<int>(r.cos_angle.rows()), static_cast<int>(r.cos_angle.cols()),
             opt);
  ax.vline("$k$ = " + std::to_string(p.pair), p.pair);
  return fig;
}

plot::Figure freqs_figure(const RopeAnalysisParams& p, const RopeAnalysis& r) {
  plot::Figure fig("freqs", tr("Wavelength $2\\pi/\\theta_k$ per pair"));
  fig.note =
      subst(tr("scaling: {0}, effective base {1}"), {tr(to_string(p.rope.scaling)), fmt("%.6g", r.effective_base)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("pair $k$"), "", tr("wavelength"), tr("tokens"));
  ax.y.scale = plot::Scale::Log10;
  std::vector<double> ks;
  for (size_t k = 0; k < r.theta.size(); ++k) ks.push_back(static_cast<double>(k));
  ax.line(tr("original"), ks, r.wavelength).style = plot::LineStyle::LineAndMarkers;
  if (p.rope.scaling != RopeScaling::None) {
    plot::LineItem& l = ax.line(tr("scaled"), ks, r.wavelength_scaled);
    l.style = plot::LineStyle::LineAndMarkers;
    l.dashed = true;
  }
  ax.hline(subst(tr("trained length {0}"), {std::to_string(p.rope.original_context)}), p.rope.original_context);
  plot::Table& t = fig.table;
  t.header = {"pair", "theta", "wavelength", "theta_scaled"};
  for (size_t k = 0; k < r.theta.size(); ++k)
    t.add_row({static_cast<double>(k), r.theta[k], r.wavelength[k], r.theta_scaled[k]});
  return fig;
}

plot::Figure distance_figure(const RopeAnalysisParams& p, const RopeAnalysis& r) {
  plot::Figure fig("distance", tr("Against relative distance $m - n$"));
  fig.note = subst(tr("random $q$, $k$ drawn with seed {0}; the key sits at position 0"), {std::to_string(p.seed)});
  fig.grid_cols = 2;
  std::vector<double> xs(r.distance.begin(), r.distance.end());
  plot::Axes& a = fig.add_axes(tr("$q_m\\cdot k_n$, random $q$, $k$"));
  a.flags |= plot::AxesFlags_NoLegend;
  a.setup(tr("distance $m - n$"), tr("tokens"), tr("score"), "");
  a.line("$q\\cdot k$", xs, r.score);
  plot::Axes& b = fig.add_axes(tr("expected self-similarity"));
  b.flags |= plot::AxesFlags_NoLegend;
  b.setup(tr("distance"), tr("tokens"), "$\\frac{2}{D} \\sum_k \\cos(\\Delta \\theta_k)$", "");
  b.line("$E[x_m\\cdot x_n] / E|x|^2$", xs, r.self_similarity);
  b.set_y_range(-0.5, 1.05);
  plot::Table& t = fig.table;
  t.header = {"distance", "score"};
  for (size_t i = 0; i < r.distance.size(); ++i) t.add_row({static_cast<double>(r.distance[i]), r.score[i]});
  return fig;
}

// [SECTION] panel

// No quick hook: a few thousand rotations stay well under a frame, so update() always waits for them.
class RopePanel final : public RecomputePanel<RopeState, RopeResult> {
 public:
  RopePanel()
      : RecomputePanel(kInfo, {.rows = {{{"plane", "angles"}, 0.75f}, {{"freqs", "distance"}}}, .min_width = 360},
                       checked_hooks<RopeState, params_of, analyze_rope>(
                           {plane_figure, angle_figure, freqs_figure, distance_figure})) {}

 protected:
  bool control_visible(const Control& c) const override {
    const bool llama3 = s_.params.rope.scaling == RopeScaling::Llama3;
    if ((c.key == "low_freq_factor" || c.key == "high_freq_factor") && !llama3) return false;
    return c.key != "factor" || s_.params.rope.scaling != RopeScaling::None;
  }
  void draw_summary(const RopeResult& r) override {
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Live checks"));
    check_mark(r.a.shift_invariant,
               subst(tr("shift $m$, $n$ by {0}: score {1} vs {2}"),
                     {std::to_string(r.params.shift), fmt("%.5g", r.a.score_mn), fmt("%.5g", r.a.score_shifted)})
                   .c_str());
    check_mark(r.a.norm_preserved,
               subst(tr("rotation keeps $\\|q\\|$ (worst rel. error {0})"), {fmt("%.1e", r.a.norm_error)}).c_str());
    check_mark(r.a.conventions_agree, subst(tr("other convention, permuted dims: same score (rel. error {0})"),
                                            {fmt("%.1e", r.a.convention_error)})
                                          .c_str());
    if (r.params.pair != s_.params.pair)
      warning_text(subst(tr("pair index clamped to {0}"), {std::to_string(r.params.pair)}).c_str());
    if (r.params.rope.head_dim != s_.params.rope.head_dim)
      warning_text(subst(tr("head_dim rounded to {0}"), {std::to_string(r.params.rope.head_dim)}).c_str());
  }
  void bind(Controls& c) override {
    c.add_int("head_dim", &s_.params.rope.head_dim, 2, 256, N_("head_dim $D$"),
              N_("Size of one head vector; it holds $D/2$ rotating pairs (odd values round down)."));
    c.add_float(
        "base", &s_.base, 100.0f, 1e6f, N_("base $\\theta$"),
        N_("Base of the frequencies $\\theta_k = \\mathrm{base}^{-2k/D}$; larger bases make the slow pairs slower."),
        true, "%.0f");
    c.add_int("query_pos", &s_.params.query_pos, 0, 100000, N_("query position $m$"),
              N_("Position of the query token."), true);
    c.add_int("key_pos", &s_.params.key_pos, 0, 100000, N_("key position $n$"), N_("Position of the key token."), true);
    c.add_int("pair", &s_.params.pair, 0, 127, N_("pair $k$"),
              N_("Which pair of dimensions the plane figure shows (0 is the fastest)."));
    c.add_enum("convention", &s_.params.rope.convention, {N_("half-split"), N_("interleaved")}, N_("convention"),
               N_("Hugging Face pairs $x[k]$ with $x[k+D/2]$; Meta's original code pairs $x[2k]$ with $x[2k+1]$."));
    c.add_enum("scaling", &s_.params.rope.scaling,
               {N_("none"), N_("linear"), N_("ntk"), N_("dynamic-ntk"), N_("llama3")}, N_("scaling"),
               N_("How the frequencies are changed to run past the trained context length."));
    c.add_float("factor", &s_.factor, 1.0f, 64.0f, N_("factor $s$"),
                N_("Context extension factor: the target length is $s$ times the trained length."), true, "%.3g");
    c.add_int("trained_context", &s_.params.rope.original_context, 16, 131072, N_("trained length $L$"),
              N_("Context length the model was trained on (original_max_position_embeddings)."), true);
    c.add_float("low_freq_factor", &s_.low_freq_factor, 0.5f, 16.0f, N_("low_freq_factor"),
                N_("Llama 3: wavelengths above $L$ / low_freq_factor are divided by $s$."), false, "%.3g");
    c.add_float("high_freq_factor", &s_.high_freq_factor, 0.5f, 64.0f, N_("high_freq_factor"),
                N_("Llama 3: wavelengths below $L$ / high_freq_factor are kept unchanged."), false, "%.3g");
    c.add_int("positions", &s_.params.positions, 8, 4096, N_("heatmap positions"),
              N_("Number of positions (rows) in the angle heatmap."), true);
    c.add_int("max_distance", &s_.params.max_distance, 8, 16384, N_("max distance"),
              N_("Largest distance $m - n$ on the score curves."), true);
    c.add_seed(&s_.seed, N_("Seed of the random $q$ and $k$; the same seed gives the same vectors."));
  }
};

}  // namespace rope_panel

TW_REGISTER_PANEL(rope_panel::RopePanel);

}  // namespace tw
