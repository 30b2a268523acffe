#include "core/lessons/quantity_values.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace tw::lesson_values {

namespace {

const nlohmann::json* find(const nlohmann::json& values, const char* key) {
  if (!values.is_object()) return nullptr;
  const auto it = values.find(key);
  return it == values.end() ? nullptr : &*it;
}

}  // namespace

std::optional<double> number(const nlohmann::json& values, const char* key) {
  const nlohmann::json* v = find(values, key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  const double d = v->get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<int> integer(const nlohmann::json& values, const char* key) {
  const std::optional<double> d = number(values, key);
  if (!d || *d != std::floor(*d) || std::abs(*d) > std::numeric_limits<int>::max()) return std::nullopt;
  return static_cast<int>(*d);
}

std::optional<bool> boolean(const nlohmann::json& values, const char* key) {
  const nlohmann::json* v = find(values, key);
  if (v == nullptr || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

std::optional<std::string> text(const nlohmann::json& values, const char* key) {
  const nlohmann::json* v = find(values, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<std::vector<int>> int_list(const nlohmann::json& values, const char* key) {
  const nlohmann::json* v = find(values, key);
  if (v == nullptr || !v->is_array()) return std::nullopt;
  std::vector<int> out;
  for (const nlohmann::json& e : *v) {
    if (!e.is_number_integer()) return std::nullopt;
    out.push_back(e.get<int>());
  }
  return out;
}

}  // namespace tw::lesson_values
