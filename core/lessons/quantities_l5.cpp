// Lesson 5, architectures and hyperparameters: stability tricks (soft-capping, z-loss) and the interleaved
// local/global attention of recent models, computed by the functions the stability and masks panels call.
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiments/mask_analysis.h"
#include "core/experiments/mask_settings.h"
#include "core/experiments/stability_tricks.h"
#include "core/lessons/lesson_quantity.h"
#include "core/lessons/quantity_values.h"
#include "core/lessons/scene_settings.h"

namespace tw {

namespace {

namespace lv = lesson_values;
using Json = nlohmann::json;

// c·tanh(x/c) at the right end of the soft-cap plot, x = x_range: what a score that large comes out as.
std::optional<double> softcap_at_edge(const Json& v) {
  const auto cap = lv::number(v, "stability.cap");
  const auto range = lv::number(v, "stability.x_range");
  if (!cap || !range || *cap <= 0 || *range <= 0) return std::nullopt;
  const SoftcapCurve c =
      softcap_curve(static_cast<float>(*cap), -static_cast<float>(*range), static_cast<float>(*range), 401);
  if (c.capped.empty()) return std::nullopt;
  return c.capped.back();
}

// The z-loss term coef·log²Z at log Z = 15, a point of the panel's z-loss plot (−20 … 20 in steps of 0.2; between
// its ticks, so the plot does not print the answer).
std::optional<double> zloss_at_15(const Json& v) {
  const auto coef = lv::number(v, "stability.z_loss");
  if (!coef || *coef <= 0) return std::nullopt;
  const ZLossCurve z = z_loss_curve(static_cast<float>(*coef), -20.0, 20.0, 201);
  if (z.term.size() != 201 || std::fabs(z.log_z[175] - 15.0) > 1e-9) return std::nullopt;
  return z.term[175];  // −20 + 175 · 0.2 = 15
}

// How many positions the last query has heard from after the whole stack of the masks panel.
std::optional<double> masks_last_query_count(const Json& v) {
  const std::optional<MasksSettings> m = read_scene_settings<MasksSettings>(v);
  if (!m) return std::nullopt;
  const ReceptiveField f = receptive_field(terms_of(*m), m->T, m->layers, m->global_every);
  if (!f.error.empty() || f.last_query_count.empty()) return std::nullopt;
  return f.last_query_count.back();
}

}  // namespace

std::vector<LessonQuantity> lesson_5_quantities() {
  return {
      {"stability.softcap_at_edge", softcap_at_edge, "cap*tanh(x/cap) at x = x_range (soft-capped score)"},
      {"stability.zloss_at_15", zloss_at_15, "z-loss term coef*log^2 Z at log Z = 15"},
      {"masks.last_query_count", masks_last_query_count,
       "positions whose information reaches the last query after all the stacked layers"},
  };
}

}  // namespace tw
