// Positions compared: none, learned, sinusoidal, RoPE and ALiBi side by side — how similar the codes of two
// positions are as their distance grows, and extrapolation measured: loss per position out to 4L for the same tiny
// model trained on length L with each position type (cached results open instantly; a live run is one tick away).
//
// [SECTION] state
// [SECTION] result and compute (core/experiments/position_comparison)
// [SECTION] figures
// [SECTION] panel: controls, summary, registration
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/assets.h"
#include "core/experiments/position_comparison.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace positions_panel {

const PanelInfo kInfo = {
    "positions", N_("Positions compared"), N_("Positions"),
    N_("None, learned, sinusoidal, RoPE, ALiBi: similarity vs distance and extrapolation measured")};

// [SECTION] state

struct PositionsState {
  SimilarityParams similarity;        // C (D of RoPE), the largest distance, p0 and the ALiBi heads, bound as they are
  ExtrapolationParams extrapolation;  // L, the period and the steps bound; the rest as the cached run
  float rope_base = 10000;            // similarity's RoPE θ base, as a float slider (the core keeps a double)
  bool run = false;                   // train the five models now instead of showing the cached results
  int seed = 1;                       // of both (the core keeps a uint64)
};

// [SECTION] result and compute

struct PositionsResult {
  PositionsState state;
  std::string error;
  PositionSimilarity sim;
  bool have_extrapolation = false;
  bool cached = false;             // the curves come from assets/positions/extrapolation.csv
  std::string extrapolation_note;  // why there are no curves, or where they come from
  Extrapolation ex;
};
using ResultPtr = std::shared_ptr<const PositionsResult>;

SimilarityParams similarity_of(const PositionsState& s) {
  SimilarityParams p = s.similarity;
  p.rope_base = s.rope_base;
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

ExtrapolationParams extrapolation_of(const PositionsState& s) {
  ExtrapolationParams p = s.extrapolation;
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

void load_cached(PositionsResult& r) {
  const std::string path = find_asset("positions/extrapolation.csv");
  if (path.empty()) {
    r.extrapolation_note = tr("No cached results were found (assets/positions/extrapolation.csv); tick 'run live'.");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::string error;
  if (!parse_extrapolation_csv(text.str(), ExtrapolationParams{}, &r.ex, &error)) {
    r.extrapolation_note = subst(tr("Cached results unusable: {0}. Tick 'run live'."), {error});
    return;
  }
  r.have_extrapolation = true;
  r.cached = true;
  r.extrapolation_note =
      subst(tr("cached results of the default run ($L$ = {0}, {1} steps, seed 1); tick 'run live' to "
               "retrain"),
            {std::to_string(r.ex.params.train_length), std::to_string(r.ex.params.steps)});
}

ResultPtr compute(const PositionsState& s, Progress& progress) {
  auto r = std::make_shared<PositionsResult>();
  r->state = s;
  const SimilarityParams sp = similarity_of(s);
  const ExtrapolationParams ep = extrapolation_of(s);
  r->error = validate(sp);
  if (r->error.empty()) r->error = validate(ep);
  if (!r->error.empty()) return r;
  r->sim = position_similarity(sp);
  if (!s.run) {
    load_cached(*r);
    return r;
  }
  r->ex = run_extrapolation(ep, [&](float f) {
    progress.set(f);
    return !progress.cancelled();
  });
  r->have_extrapolation = r->ex.curves.size() == std::size(kPositionTypes);
  r->extrapolation_note = subst(
      tr("trained live: $L$ = {0}, period {1}, {2} steps per type, seed {3}"),
      {std::to_string(ep.train_length), std::to_string(ep.period), std::to_string(ep.steps), std::to_string(s.seed)});
  return r;
}

bool quick(const PositionsState& s) { return !s.run; }
std::string error_of(const PositionsResult& r) { return r.error; }

using plot::fmt;

// [SECTION] figures

plot::Figure similarity_figure(const PositionsResult& r) {
  const PositionSimilarity& m = r.sim;
  plot::Figure fig("similarity", tr("How alike are the codes of positions $p$ and $p + d$?"));
  fig.note = subst(tr("$p$ = {0} (dashed: $p + 100$, the same curve when the code is relative); learned = a table at "
                      "initialisation; similarity = cosine of the added codes, RoPE's normalised $q\\cdot k$"),
                   {std::to_string(r.state.similarity.start)});
  fig.grid_cols = 2;
  plot::Axes& a = fig.add_axes(tr("added codes and RoPE"));
  a.setup(tr("distance $d$"), "", tr("similarity"), "");  // cosine of added codes; RoPE: normalised q·k (caption)
  a.flags |= plot::AxesFlags_LegendOutside;
  a.line(tr("none"), m.distance, m.none);
  a.line(tr("learned (init)"), m.distance, m.learned);
  a.line(tr("sinusoidal"), m.distance, m.sinusoidal);
  a.line(tr("sinusoidal, $p + 100$"), m.distance, m.sinusoidal_far).dashed = true;
  a.line("RoPE $q\\cdot k$", m.distance, m.rope);
  a.line("RoPE, $p + 100$", m.distance, m.rope_far).dashed = true;
  plot::Axes& b = fig.add_axes(tr("ALiBi: bias added to the score"));
  b.setup(tr("distance $i - j$"), "", tr("bias $-m(i - j)$"), "");
  b.flags |= plot::AxesFlags_LegendOutside;
  const size_t heads = m.alibi.size();
  for (size_t h = 0; h < heads; ++h)
    if (h == 0 || h == heads - 1 || h == heads / 2)
      b.line("$m$ = " + fmt("%.3g", m.alibi_slopes[h]), m.distance, m.alibi[h]);
  plot::Table& t = fig.table;
  t.header = {"distance", "none", "learned", "sinusoidal", "sinusoidal_far", "rope", "rope_far"};
  for (size_t h = 0; h < heads; ++h) t.header.push_back("alibi_head" + std::to_string(h));
  for (size_t d = 0; d < m.distance.size(); ++d) {
    std::vector<plot::Cell> row = {m.distance[d],       m.none[d], m.learned[d], m.sinusoidal[d],
                                   m.sinusoidal_far[d], m.rope[d], m.rope_far[d]};
    for (size_t h = 0; h < heads; ++h) row.push_back(m.alibi[h][d]);
    t.add_row(std::move(row));
  }
  return fig;
}

plot::Figure extrapolation_figure(const PositionsResult& r) {
  const int L = r.ex.params.train_length;
  plot::Figure fig("extrapolation", subst(tr("Extrapolation: trained on length {0}, loss at every position out to {1}"),
                                          {std::to_string(L), std::to_string(4 * L)}));
  fig.note = r.extrapolation_note;
  plot::Axes& ax = fig.axes();
  ax.setup(tr("position of the predicted token"), "", tr("loss"), tr("nats"));
  ax.flags |= plot::AxesFlags_LegendOutside;
  plot::Table& t = fig.table;
  t.header.assign(std::begin(kExtrapolationColumns), std::end(kExtrapolationColumns));
  if (!r.have_extrapolation) {
    ax.text(tr("no results"), 0.5, 0.5);
    ax.set_x_range(0, 1).set_y_range(0, 1);
    return fig;
  }
  for (const ExtrapolationCurve& c : r.ex.curves) {
    std::vector<double> xs, ys;  // finite points only: learned stops at L, nothing is predicted before one period
    for (size_t i = 0; i < c.loss.size(); ++i)
      if (std::isfinite(c.loss[i])) xs.push_back(double(i)), ys.push_back(c.loss[i]);
    plot::LineItem& line = ax.line(tr(to_string(c.type)), xs, ys);
    if (c.type == PositionType::Learned) {  // markers and its own colour: it lies under RoPE's line within L
      line.style = plot::LineStyle::LineAndMarkers;
      line.color = 0x9467BDFF;
    }
  }
  ax.vline(tr("trained length $L$"), L - 0.5);
  for (int i = 0; i < 4 * L; ++i) {
    std::vector<plot::Cell> row = {double(i)};
    for (const ExtrapolationCurve& c : r.ex.curves) {
      if (c.type == PositionType::Learned && i >= L)
        row.push_back(std::string("no code"));
      else if (std::isfinite(c.loss[size_t(i)]))
        row.push_back(c.loss[size_t(i)]);
      else
        row.push_back(std::string(""));
    }
    t.add_row(std::move(row));
  }
  return fig;
}

// [SECTION] panel

class PositionsPanel final : public RecomputePanel<PositionsState, PositionsResult> {
 public:
  PositionsPanel()
      : RecomputePanel(kInfo, {.rows = {{{"similarity"}, 0.85f}, {{"extrapolation"}, 0.8f}}},
                       {compute, error_of, {similarity_figure, extrapolation_figure}, quick}) {}

 protected:
  void bind(Controls& c) override {
    c.add_int("dim", &s_.similarity.dim, 4, 512, N_("dim"), N_("Width of the added codes and of the RoPE head (even)."),
              true);
    c.add_int("max_distance", &s_.similarity.max_distance, 1, 4096, N_("max distance"),
              N_("Similarity is drawn for $d$ = 0 ... this."), true);
    c.add_int("start", &s_.similarity.start, 0, 100000, N_("start position $p$"),
              N_("First position of each compared pair."));
    c.add_int("alibi_heads", &s_.similarity.alibi_heads, 1, 64, N_("ALiBi heads"),
              N_("Heads whose slopes $m = 2^{-8k/n}$ are used."));
    c.add_float("rope_base", &s_.rope_base, 10.0f, 1e7f, N_("RoPE base"), N_("$\\theta_k = \\mathrm{base}^{-2k/D}$."),
                true, "%.6g");
    c.add_bool(
        "run", &s_.run, N_("run live"),
        N_("Train the five models now (about half a minute, progress and Cancel below) instead of the cached run."));
    c.add_int("train_length", &s_.extrapolation.train_length, 4, 64, N_("train length $L$"),
              N_("Sequence length the models train on; evaluated out to $4L$."));
    c.add_int("period", &s_.extrapolation.period, 2, 32, N_("period"),
              N_("Length of the repeated random block (at most $L/2$)."));
    c.add_int("steps", &s_.extrapolation.steps, 1, 5000, N_("steps"), N_("Optimizer steps per position type."), true);
    c.add_seed(&s_.seed, N_("Seed of the weights, batches and the random codes."));
  }

  bool control_visible(const Control& c) const override {
    if (s_.run) return true;
    return c.key != "train_length" && c.key != "period" && c.key != "steps";
  }

  void draw_summary(const PositionsResult& r) override {
    if (!r.have_extrapolation) return;
    ImGui::Separator();
    ImGui::TextUnformatted(r.cached ? tr("Mean loss (cached run)") : tr("Mean loss (live run)"));
    for (const ExtrapolationCurve& c : r.ex.curves) {
      char line[256];
      if (std::isfinite(c.mean_out))
        std::snprintf(line, sizeof line, tr("%-10s within $L$ %.3g, beyond $L$ %.3g"), tr(to_string(c.type)), c.mean_in,
                      c.mean_out);
      else
        std::snprintf(line, sizeof line, tr("%-10s within $L$ %.3g, beyond $L$: no code"), tr(to_string(c.type)),
                      c.mean_in);
      math_text(line);
    }
  }
};

}  // namespace positions_panel

TW_REGISTER_PANEL(positions_panel::PositionsPanel);

}  // namespace tw
