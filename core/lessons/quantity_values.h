#pragma once
// Reading scene values ("panel.key" → JSON value) for lesson quantities: nullopt when the key is missing or has
// the wrong type, so a quantity says "not computable" instead of guessing.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tw::lesson_values {

std::optional<double> number(const nlohmann::json& values, const char* key);
std::optional<int> integer(const nlohmann::json& values, const char* key);
std::optional<bool> boolean(const nlohmann::json& values, const char* key);
std::optional<std::string> text(const nlohmann::json& values, const char* key);
std::optional<std::vector<int>> int_list(const nlohmann::json& values, const char* key);

}  // namespace tw::lesson_values
