// FlashAttention tiling: the tiled kernel stepped tile by tile, its running max m, sum ℓ and accumulator, the
// final equality with the reference, and the memory traffic of standard vs tiled attention (issue 19).
//
// [SECTION] state
// [SECTION] result and compute (core/experiments/flash_walkthrough)
// [SECTION] figures
// [SECTION] panel: controls, stepping, summary
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "core/experiments/flash_settings.h"
#include "core/experiments/flash_walkthrough.h"
#include "views/bind_settings.h"
#include "views/presenter_keys.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace flash_panel {

const PanelInfo kInfo = {"flash", N_("FlashAttention tiling"), N_("Attention"),
                         N_("The tiled attention kernel step by step: running max, running sum, rescaled accumulator, "
                            "memory traffic")};

using plot::fmt;

// [SECTION] state

// The settings that reach the kernel, and their mapping to FlashWalkParams, live in core (the lessons read the same
// ones); the step shown and the curve's end are the panel's own.
struct FlashState : FlashSettings {
  int step = 5;          // which (query tile, key tile) step the figures show
  int curve_max = 8192;  // right end of the traffic curve (tokens)
};

// Core's settings, then the panel's own.
template <class F>
void for_each_setting(FlashState& s, F&& f) {
  for_each_setting(static_cast<FlashSettings&>(s), f);
  f("step", s.step,
    IntSpec{0, 65535, N_("step"), N_("Which (query tile, key tile) step the figures show, in the kernel's order.")});
  f("curve_max", s.curve_max,
    IntSpec{16, 131072, N_("traffic curve to $T$"), N_("Right end of the memory-traffic curve, in tokens."), true});
}

// Steps of the kernel: every (query tile, key tile) pair, skipped ones included.
int step_count(const FlashState& s) {
  const int t = std::max(1, s.walk.T);
  return ((t + std::max(1, s.walk.tile_q) - 1) / std::max(1, s.walk.tile_q)) *
         ((t + std::max(1, s.walk.tile_k) - 1) / std::max(1, s.walk.tile_k));
}

// [SECTION] result and compute

struct TrafficPoint {
  int T = 0;
  double standard = 0, tiled_full = 0, tiled_causal = 0;  // floats moved for one head
  double tiled_causal_gpu = 0;                            // causal, with kGpuTile × kGpuTile tiles
};
// A typical GPU tile (FlashAttention-2 uses 64 to 128 rows per thread block): the traffic it saves is the point.
constexpr int kGpuTile = 64;

// The walk through the tiles, the step the slider shows, and the traffic curve at this D and these tiles.
struct FlashAnalysis {
  int step = 0;
  FlashWalkthrough walk;
  std::vector<TrafficPoint> traffic;  // over T = 16 … curve_max
};
using FlashResult = Checked<FlashWalkParams, FlashAnalysis>;
using ResultPtr = std::shared_ptr<const FlashResult>;

ResultPtr compute(const FlashState& s, Progress& progress) {
  return run_checked(params_of(s), [&s, &progress](const FlashWalkParams& p) {
    FlashAnalysis a;
    a.step = s.step;
    a.walk = flash_walkthrough(p);
    progress.set(0.5f);
    // Powers of two from 16 tokens to the curve's end, plus the walked T, so its counted value sits on the curve.
    std::vector<int> ts;
    for (int t = 16; t <= std::max(16, s.curve_max); t *= 2) ts.push_back(t);
    ts.push_back(s.walk.T);
    std::sort(ts.begin(), ts.end());
    ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
    for (int t : ts) {
      if (progress.cancelled()) break;
      const int tq = std::min(s.walk.tile_q, t), tk = std::min(s.walk.tile_k, t);
      const int g = std::min(kGpuTile, t);
      a.traffic.push_back(
          {t, standard_attention_floats(t, s.walk.D), tiled_attention_floats(t, s.walk.D, tq, tk, false),
           tiled_attention_floats(t, s.walk.D, tq, tk, true), tiled_attention_floats(t, s.walk.D, g, g, true)});
    }
    return a;
  });
}

// The walk is T² · D multiply-adds plus a few copies per tile, the curve a loop over tiles: T = 256 is milliseconds.
bool quick(const FlashState& s) { return flash_walkthrough_work(s.walk) < 4e6 && s.curve_max <= 65536; }

const FlashStep& shown_step(const FlashResult& r) {
  const int n = static_cast<int>(r.a.walk.steps.size());
  return r.a.walk.steps[static_cast<size_t>(std::clamp(r.a.step, 0, n - 1))];
}
int shown_index(const FlashResult& r) { return std::clamp(r.a.step, 0, static_cast<int>(r.a.walk.steps.size()) - 1); }

// [SECTION] figures

// Every cell of S coloured by its tile's fate up to the shown step: 2 = this step's tile, 1 = done, 0 = still to
// come; masked tiles (skipped by the kernel) are -inf, drawn grey.
plot::Figure schedule_figure(const FlashResult& r) {
  const FlashStep& st = shown_step(r);
  const int T = r.params.T, now = shown_index(r);
  plot::Figure fig(
      "schedule", subst(st.skipped ? tr("Step {0} (of 0\xE2\x80\x93{1}): query rows {2}\xE2\x80\x93{3}, keys "
                                        "{4}\xE2\x80\x93{5} (masked: skipped)")
                                   : tr("Step {0} (of 0\xE2\x80\x93{1}): query rows {2}\xE2\x80\x93{3}, keys "
                                        "{4}\xE2\x80\x93{5}"),
                        {std::to_string(now), std::to_string(r.a.walk.steps.size() - 1), std::to_string(st.q0),
                         std::to_string(st.q0 + st.nq - 1), std::to_string(st.k0), std::to_string(st.k0 + st.nk - 1)}));
  std::vector<double> cells(static_cast<size_t>(T) * T, 0.0);
  plot::Table& t = fig.table;
  t.header = {"step", "q_tile", "k_tile", "q0", "nq", "k0", "nk", "skipped"};
  for (size_t i = 0; i < r.a.walk.steps.size(); ++i) {
    const FlashStep& s = r.a.walk.steps[i];
    t.add_row({double(i), double(s.q_tile), double(s.k_tile), double(s.q0), double(s.nq), double(s.k0), double(s.nk),
               double(s.skipped)});
    const double v = s.skipped       ? -std::numeric_limits<double>::infinity()
                     : int(i) == now ? 2.0
                     : int(i) < now  ? 1.0
                                     : 0.0;
    for (int a = s.q0; a < s.q0 + s.nq; ++a)
      for (int b = s.k0; b < s.k0 + s.nk; ++b) cells[static_cast<size_t>(a) * T + b] = v;
  }
  fig.note = subst(tr("{0} tiles computed, {1} masked tiles skipped (grey); tile {2} queries \xC3\x97 {3} keys"),
                   {std::to_string(r.a.walk.stats.tiles_computed), std::to_string(r.a.walk.stats.tiles_skipped),
                    std::to_string(r.params.tile_q), std::to_string(r.params.tile_k)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("key $j$"), "", tr("query $i$"), "").csv_columns("key $j$", "query $i$");  // CSV: as in English
  plot::HeatmapOptions opt;
  opt.vmin = 0;
  opt.vmax = 2;
  opt.levels = {tr("to come"), tr("done"), tr("this tile")};
  ax.heatmap(tr("tile"), cells.data(), T, T, opt);
  return fig;
}

// m and ℓ of the shown query tile after this key tile, beside their values once every key tile is done (the
// kernel's own last state for those rows).
plot::Figure stats_figure(const FlashResult& r) {
  const FlashStep& st = shown_step(r);
  const FlashStep* last = &st;
  for (const FlashStep& s : r.a.walk.steps)
    if (s.q_tile == st.q_tile) last = &s;
  plot::Figure fig("running", subst(tr("Running max $m$ and sum $\\ell$ of query rows {0}\xE2\x80\x93{1}"),
                                    {std::to_string(st.q0), std::to_string(st.q0 + st.nq - 1)}));
  fig.note = subst(tr("after key tile {0} vs after the last key tile"), {std::to_string(st.k_tile)});
  fig.grid_cols = 2;
  std::vector<std::string> rows;
  std::vector<double> m_now, m_end, l_now, l_end;
  plot::Table& t = fig.table;
  t.header = {"query_row", "m_now", "l_now", "m_final", "l_final"};
  for (int i = 0; i < st.nq; ++i) {
    rows.push_back(std::to_string(st.q0 + i));
    const size_t k = static_cast<size_t>(i);
    // A row with no key seen yet has m = -inf (never under a causal mask: key 0 comes first); its bar shows 0.
    auto finite = [](float v) { return std::isfinite(v) ? double(v) : 0.0; };
    m_now.push_back(finite(st.m[k]));
    l_now.push_back(st.l[k]);
    m_end.push_back(finite(last->m[k]));
    l_end.push_back(last->l[k]);
    t.add_row({double(st.q0 + i), double(st.m[k]), double(st.l[k]), double(last->m[k]), double(last->l[k])});
  }
  plot::Axes& a = fig.add_axes(tr("running max $m$"));
  a.setup(tr("query row"), "", "$m$", "");
  a.flags |= plot::AxesFlags_NoLegend;  // one legend, outside the second plot, so no bar hides under it
  a.bars(rows, {tr("after this tile"), tr("final")}, {m_now, m_end});
  plot::Axes& b = fig.add_axes(tr("running sum $\\ell$"));
  b.setup(tr("query row"), "", "$\\ell$", "");
  b.bars(rows, {tr("after this tile"), tr("final")}, {l_now, l_end});
  // Headroom above the tallest bar for the legend (ℓ ≥ 1 once a key is seen: the row max contributes exp(0)).
  b.set_y_range(0, 1.8 * std::max(1.0, *std::max_element(l_end.begin(), l_end.end())));
  return fig;
}

// The tile's P = exp(S − m_new) and the unnormalised accumulator after it.
plot::Figure tile_figure(const FlashResult& r) {
  const FlashStep& st = shown_step(r);
  plot::Figure fig("tile", tr("This tile: $P = \\exp(S - m_{new})$ and the accumulator $acc$"));
  fig.note = st.skipped
                 ? tr("masked tile: nothing loaded, $m$, $\\ell$ and $acc$ unchanged")
                 : tr("$acc \\leftarrow \\exp(m_{old} - m_{new})\\cdot acc + P\\cdot V$; $O = acc / \\ell$ at the end");
  fig.grid_cols = 2;
  plot::Axes& a = fig.add_axes("$P$ (" + std::to_string(st.nq) + " \xC3\x97 " + std::to_string(st.nk) + ")");
  a.setup(tr("key in tile"), "", tr("query in tile"), "");
  plot::HeatmapOptions po;
  po.vmin = 0;
  po.vmax = 1;
  po.value_label = "$\\exp(S - m)$";
  if (!st.skipped && st.p.size() > 0) a.heatmap("$P$", st.p.data(), int(st.p.rows()), int(st.p.cols()), po);
  plot::Axes& b = fig.add_axes("$acc$ (" + std::to_string(st.nq) + " \xC3\x97 $D$)");
  b.setup(tr("dimension"), "", tr("query in tile"), "");
  plot::HeatmapOptions ao;
  ao.colormap = plot::Colormap::Diverging;
  ao.value_label = tr("acc");
  if (st.acc.size() > 0) b.heatmap(tr("acc"), st.acc.data(), int(st.acc.rows()), int(st.acc.cols()), ao);
  return fig;
}

plot::Figure traffic_figure(const FlashResult& r) {
  plot::Figure fig("traffic", tr("Memory traffic of one head: standard vs tiled attention"));
  fig.note = subst(tr("$T$ = {0}: formula {1} floats, counted from the kernel's tiles {2}; standard {3}"),
                   {std::to_string(r.params.T), fmt("%.6g", r.a.walk.tiled_floats),
                    fmt("%.6g", r.a.walk.tiled_floats_counted), fmt("%.6g", r.a.walk.standard_floats)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("tokens $T$"), "", tr("HBM traffic"), tr("floats"));
  ax.x.scale = plot::Scale::Log10;
  ax.y.scale = plot::Scale::Log10;
  std::vector<double> xs, st, full, causal, gpu;
  plot::Table& t = fig.table;
  t.header = {"T", "standard_floats", "tiled_floats", "tiled_causal_floats", "tiled_causal_64_floats"};
  for (const TrafficPoint& p : r.a.traffic) {
    xs.push_back(p.T);
    st.push_back(p.standard);
    full.push_back(p.tiled_full);
    causal.push_back(p.tiled_causal);
    gpu.push_back(p.tiled_causal_gpu);
    t.add_row({double(p.T), p.standard, p.tiled_full, p.tiled_causal, p.tiled_causal_gpu});
  }
  ax.line(tr("standard $4TD + 4T^2$"), xs, st).width = 2.5f;
  ax.line(tr("tiled"), xs, full);
  ax.line(tr("tiled, causal"), xs, causal).dashed = true;
  ax.line(tr("tiled, causal, 64\xC3\x97"
             "64 tiles"),
          xs, gpu);
  ax.scatter(tr("counted (this run)"), {double(r.params.T)}, {r.a.walk.tiled_floats_counted});
  return fig;
}

// [SECTION] panel

class FlashPanel final : public RecomputePanel<FlashState, FlashResult> {
 public:
  FlashPanel()
      : RecomputePanel(kInfo, two_by_two("schedule", "running", "tile", "traffic"),
                       {compute,
                        checked_error<FlashResult>,
                        {schedule_figure, stats_figure, tile_figure, traffic_figure},
                        quick}) {}

 protected:
  void prepare() override { s_.step = std::clamp(s_.step, 0, step_count(s_) - 1); }

  void after_control(const Control& c) override {
    if (c.key != "step") return;
    if (ImGui::SmallButton(tr("\xE2\x97\x80 previous"))) s_.step = std::max(0, s_.step - 1);
    ImGui::SameLine();
    if (ImGui::SmallButton(tr("next \xE2\x96\xB6"))) s_.step = std::min(step_count(s_) - 1, s_.step + 1);
    ImGui::SameLine();
    help_marker(tr(
        "One tile back or forward; the \xE2\x86\x90 and \xE2\x86\x92 keys do the same while this window has focus."));
    // Arrow keys step while this panel has focus and no widget is being edited.
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::IsAnyItemActive())
      apply_presenter_step(take_presenter_step(), &s_.step, 0, step_count(s_) - 1);
  }

  void draw_summary(const FlashResult& r) override {
    ImGui::Separator();
    const FlashStep& st = shown_step(r);
    ImGui::Text(tr("step %d: query tile %d, key tile %d%s"), shown_index(r), st.q_tile, st.k_tile,
                st.skipped ? tr(" (masked, skipped)") : "");
    ImGui::Text(tr("max |tiled \xE2\x88\x92 reference| = %.3g"), double(r.a.walk.max_abs_diff));
    check_mark(r.a.walk.max_abs_diff < 1e-4f, tr("the tiled output equals the reference attention"));
    check_mark(r.a.walk.tiled_floats == r.a.walk.tiled_floats_counted, tr("traffic formula = the kernel's own count"));

    ImGui::TextWrapped(tr("traffic: standard %.4g, tiled %.4g floats"), r.a.walk.standard_floats,
                       r.a.walk.tiled_floats);
  }

  void bind(Controls& c) override { bind_settings(c, s_); }
};

}  // namespace flash_panel

TW_REGISTER_PANEL(flash_panel::FlashPanel);

}  // namespace tw
