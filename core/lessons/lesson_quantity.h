#pragma once
// A lesson quantity: a named pure function of the current scene values (panel id + "." + control key → value,
// every panel's current values filled in), computed by the same core/experiments function the panel calls.
// Lesson exercises compare a quantity with a value (state checks) or with the number the user types.
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tw {

struct LessonQuantity {
  const char* name;                                                // "softmax.unscaled_top_prob"
  std::optional<double> (*compute)(const nlohmann::json& values);  // nullopt when not computable
  const char* what;                                                // one English line, for errors and docs
};

// One list per lesson (core/lessons/quantities_l1.cpp … quantities_l5.cpp).
std::vector<LessonQuantity> lesson_1_quantities();
std::vector<LessonQuantity> lesson_2_quantities();
std::vector<LessonQuantity> lesson_3_quantities();
std::vector<LessonQuantity> lesson_4_quantities();
std::vector<LessonQuantity> lesson_5_quantities();

}  // namespace tw
