#pragma once
// Lesson quantities: the numbers an exercise checks, each a named pure function of the scene values.
//
// `values` is the same key → value map a scene's "values" holds ("softmax.d_k": 64, "softmax.scale_mode": "none"),
// with every panel's current value filled in. A quantity calls the core function the panel itself calls (never a
// copy of the panel's math) and returns nullopt when the values do not allow it (a key missing or of the wrong type,
// a setting the quantity cannot read such as a measured device).
//
// One file per lesson registers its quantities: quantities_l1.cpp … quantities_l5.cpp; all_lesson_quantities()
// joins them. Names are "<panel>.<what>" and unique across lessons (a test checks).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

struct LessonQuantity {
  const char* name;                                                // "softmax.unscaled_top_prob"
  std::optional<double> (*compute)(const nlohmann::json& values);  // nullopt when not computable
  const char* what;                                                // one English line, for errors and docs
};

std::vector<LessonQuantity> lesson_1_quantities();
std::vector<LessonQuantity> lesson_2_quantities();
std::vector<LessonQuantity> lesson_3_quantities();
std::vector<LessonQuantity> lesson_4_quantities();
std::vector<LessonQuantity> lesson_5_quantities();

// Every lesson's quantities, lesson 1 first.
const std::vector<LessonQuantity>& all_lesson_quantities();
// The quantity called `name`, or nullptr.
const LessonQuantity* find_lesson_quantity(std::string_view name);

// Reading scene values inside a quantity: nullopt when the key is missing or of another type.
std::optional<double> lesson_number(const nlohmann::json& values, const char* key);     // int, float or bool (0/1)
std::optional<int> lesson_int(const nlohmann::json& values, const char* key);           // an integer value
std::optional<std::string> lesson_text(const nlohmann::json& values, const char* key);  // enum and text values

}  // namespace tw
