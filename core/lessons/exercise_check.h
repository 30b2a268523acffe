#pragma once
// Checking an exercise against the current scene values (core/lessons/lesson.h, lesson_quantity.h).
//   state:  the quantity computed from the values satisfies `op value` and every "also" precondition holds;
//   number: the number the user typed is within the tolerance of the quantity computed from the values.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/lessons/lesson.h"

namespace tw {

enum class CheckStatus { Passed, NotYet, Unavailable };

struct CheckResult {
  CheckStatus status = CheckStatus::Unavailable;
  std::optional<double> actual;  // the quantity's value now (nullopt when it could not be computed)
  std::string unmet_key;         // state: the first "also" key whose value differs ("" when all hold)
  nlohmann::json unmet_wants;    // and the value it must have
};

// `values`: every scene key with its current value (app: scene_to_json(state)["values"]).
CheckResult check_exercise_state(const ExerciseCheck& check, const nlohmann::json& values);
CheckResult check_exercise_number(const ExerciseCheck& check, const nlohmann::json& values, double typed);

// True when `a` satisfies `op b` (== within `tolerance`, relative to |b| when `relative`).
bool compare_with(double a, CheckOp op, double b, double tolerance, bool relative);

// What the learner has done in one exercise box. The solution shows on request or after a second failed check, never
// before: a self-studying learner keeps a second try after the first wrong answer. A number exercise's check is its
// "Check" button; a state exercise's verdict follows the settings live, and only its "Check" button (pressed while
// the goal is not met) counts as a failed check.
constexpr int kFailedChecksBeforeSolution = 2;
struct ExerciseAttempts {
  int failed_checks = 0;
  bool solution_requested = false;
  // A check the learner asked for: NotYet counts as failed; Unavailable (cannot be computed here) does not.
  void record(CheckStatus status) { failed_checks += status == CheckStatus::NotYet; }
};
bool solution_visible(const ExerciseAttempts& attempts);
// The line under a failed check, as an English source string (N_, translated where shown): after the first it says
// the learner has another try and how to see the solution now; once the solution shows, that it is below.
const char* failed_check_message(const ExerciseAttempts& attempts);

// `base` with every key of `patch` set to the patch's value (the step's scene values plus a solution's).
nlohmann::json merged_values(const nlohmann::json& base, const nlohmann::json& patch);

}  // namespace tw
