// libFuzzer target: the one JSON parser (core/base/json_parse.h) that config.json, tokenizer.json, scenes, sessions,
// export settings, --set values, checkpoint indexes and lesson files go through. Any bytes give a value or one line
// saying why not; an accepted value nests no deeper than the limit, so copying, dumping and comparing it (all
// recursive in nlohmann) cannot exhaust the stack, and it survives a dump → parse round trip.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/base/json_parse.h"

namespace {
int depth_of(const nlohmann::json& v, int limit) {
  if (limit < 0) std::abort();  // deeper than the parser allowed
  int d = 0;
  if (v.is_array() || v.is_object())
    for (const auto& child : v) d = std::max(d, depth_of(child, limit - 1));
  return d + ((v.is_array() || v.is_object()) ? 1 : 0);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json value;
  std::string error;
  const int limit = 1 + static_cast<int>(size % 8);  // small limits too, so the refusal path is exercised
  if (!tw::parse_json(text, &value, &error, limit)) {
    if (error.empty() || error.find('\n') != std::string::npos) std::abort();  // one line that says why
    if (!value.is_discarded()) std::abort();
    if (!tw::parse_json_or_discarded(text, limit).is_discarded()) std::abort();
    return 0;
  }
  if (depth_of(value, limit) > limit) std::abort();
  const nlohmann::json copy = value;
  const std::string dumped = copy.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  nlohmann::json again;
  // Invalid UTF-8 in strings is replaced by the dump, so only valid documents must read back identically.
  if (tw::parse_json(dumped, &again, &error, limit) &&
      dumped == value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
    if (again.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) != dumped) std::abort();
  return 0;
}
