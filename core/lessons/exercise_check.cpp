// Exercise checks (core/lessons/exercise_check.h).
#include "core/lessons/exercise_check.h"

#include <cmath>

#include "core/base/i18n.h"
#include "core/lessons/lesson_quantity.h"

namespace tw {

bool compare_with(double a, CheckOp op, double b, double tolerance, bool relative) {
  if (!std::isfinite(a)) return false;
  switch (op) {
    case CheckOp::Less: return a < b;
    case CheckOp::LessEqual: return a <= b;
    case CheckOp::Greater: return a > b;
    case CheckOp::GreaterEqual: return a >= b;
    case CheckOp::Equal: return std::fabs(a - b) <= (relative ? tolerance * std::fabs(b) : tolerance);
  }
  return false;
}

namespace {

std::optional<double> quantity_value(const std::string& name, const nlohmann::json& values) {
  const LessonQuantity* q = find_lesson_quantity(name);
  if (!q) return std::nullopt;
  const auto v = q->compute(values);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

// Scene values compare as JSON, except numbers: 64 and 64.0 are the same setting.
bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

}  // namespace

CheckResult check_exercise_state(const ExerciseCheck& check, const nlohmann::json& values) {
  CheckResult r;
  for (const auto& [key, wants] : check.also) {
    auto it = values.find(key);
    if (it == values.end() || !same_value(*it, wants)) {
      r.unmet_key = key;
      r.unmet_wants = wants;
      break;
    }
  }
  r.actual = quantity_value(check.quantity, values);
  if (!r.actual) return r;
  r.status = r.unmet_key.empty() && compare_with(*r.actual, check.op, check.value, check.tolerance, check.relative)
                 ? CheckStatus::Passed
                 : CheckStatus::NotYet;
  return r;
}

CheckResult check_exercise_number(const ExerciseCheck& check, const nlohmann::json& values, double typed) {
  CheckResult r;
  r.actual = quantity_value(check.quantity, values);
  if (!r.actual) return r;
  r.status = compare_with(typed, CheckOp::Equal, *r.actual, check.tolerance, check.relative) ? CheckStatus::Passed
                                                                                             : CheckStatus::NotYet;
  return r;
}

bool solution_visible(const ExerciseAttempts& attempts) {
  return attempts.solution_requested || attempts.failed_checks >= kFailedChecksBeforeSolution;
}

const char* failed_check_message(const ExerciseAttempts& attempts) {
  if (solution_visible(attempts)) return N_("Not quite: the solution is shown below");
  return N_(
      "Not quite: try once more or take a hint; the solution shows after a second wrong check, or now with "
      "Show solution");
}

nlohmann::json merged_values(const nlohmann::json& base, const nlohmann::json& patch) {
  nlohmann::json out = base.is_object() ? base : nlohmann::json::object();
  if (patch.is_object())
    for (auto it = patch.begin(); it != patch.end(); ++it) out[it.key()] = it.value();
  return out;
}

}  // namespace tw
