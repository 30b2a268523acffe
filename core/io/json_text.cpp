#include "core/io/json_text.h"

namespace tw {

std::string json_error_text(const std::exception& e) {
  std::string s = e.what();
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  return s;
}

bool parse_json_object(std::string_view text, nlohmann::json* out, std::string* error) {
  try {
    *out = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers such as 1e400
    *error = "not valid JSON: " + json_error_text(e);
    return false;
  }
  if (!out->is_object()) {
    *error = std::string("expected a JSON object, got ") + (out->is_array() ? "an array" : out->type_name());
    return false;
  }
  return true;
}

}  // namespace tw
