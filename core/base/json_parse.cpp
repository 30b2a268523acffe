#include "core/base/json_parse.h"

#include "core/base/i18n.h"

namespace tw {

bool json_nesting_within(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"')
      in_string = true;
    else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) return false;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return true;
}

bool parse_json(std::string_view text, nlohmann::json* out, std::string* error, int max_depth) {
  *out = nlohmann::json(nlohmann::json::value_t::discarded);
  if (!json_nesting_within(text, max_depth)) {
    *error = subst(tr("nests deeper than {0} levels"), {std::to_string(max_depth)});
    return false;
  }
  try {
    *out = nlohmann::json::parse(text.begin(), text.end());
    return true;
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400
    *error = subst(tr("not valid JSON: {0}"), {json_error_text(e)});
  } catch (const std::exception& e) {  // bad_alloc on a huge document
    *error = subst(tr("not valid JSON: {0}"), {e.what()});
  }
  *out = nlohmann::json(nlohmann::json::value_t::discarded);
  return false;
}

std::string json_error_text(const std::exception& e) {
  // "[json.exception.parse_error.101] parse error at line 1, ..." → "parse error at line 1, ..."
  std::string s = e.what();
  if (!s.empty() && s[0] == '[') {
    const size_t close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  return s;
}

bool parse_json_object(std::string_view text, nlohmann::json* out, std::string* error, int max_depth) {
  if (!parse_json(text, out, error, max_depth)) return false;
  if (out->is_object()) return true;
  *error = out->is_array() ? std::string(tr("expected a JSON object, got an array"))
                           : subst(tr("expected a JSON object, got {0}"), {out->type_name()});
  *out = nlohmann::json(nlohmann::json::value_t::discarded);
  return false;
}

nlohmann::json parse_json_or_discarded(std::string_view text, int max_depth) {
  nlohmann::json value;
  std::string ignored;
  parse_json(text, &value, &ignored, max_depth);
  return value;
}

}  // namespace tw
