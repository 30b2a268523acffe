// The joiner of the per-lesson quantity lists and the value readers (core/lessons/lesson_quantity.h).
#include "core/lessons/lesson_quantity.h"

namespace tw {

const std::vector<LessonQuantity>& all_lesson_quantities() {
  static const std::vector<LessonQuantity> all = [] {
    std::vector<LessonQuantity> v;
    for (auto list :
         {lesson_1_quantities, lesson_2_quantities, lesson_3_quantities, lesson_4_quantities, lesson_5_quantities})
      for (const LessonQuantity& q : list()) v.push_back(q);
    return v;
  }();
  return all;
}

const LessonQuantity* find_lesson_quantity(std::string_view name) {
  for (const LessonQuantity& q : all_lesson_quantities())
    if (name == q.name) return &q;
  return nullptr;
}

std::optional<double> lesson_number(const nlohmann::json& values, const char* key) {
  if (!values.is_object()) return std::nullopt;
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  if (it->is_boolean()) return it->get<bool>() ? 1.0 : 0.0;
  if (it->is_number()) return it->get<double>();
  return std::nullopt;
}

std::optional<int> lesson_int(const nlohmann::json& values, const char* key) {
  if (!values.is_object()) return std::nullopt;
  auto it = values.find(key);
  if (it == values.end() || !it->is_number_integer()) return std::nullopt;
  const auto v = it->get<long long>();
  if (v < -2147483647LL || v > 2147483647LL) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<std::string> lesson_text(const nlohmann::json& values, const char* key) {
  if (!values.is_object()) return std::nullopt;
  auto it = values.find(key);
  if (it == values.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace tw
