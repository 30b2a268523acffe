#pragma once
// The one way the project parses JSON text: nesting is refused beyond a small depth before the library sees it.
//
// nlohmann's parser itself is iterative, but copying, comparing, dumping and destroying a value recurse once per
// level, so a config.json, tokenizer.json, scene, session, export-settings.json, lesson file or `--set` value nested
// 60,000 levels overflowed the stack. Every JSON the app reads goes through parse_json(); the depth check is a linear
// scan that never recurses.

#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tw {

// Deeper nesting is refused. Real files need few levels (a scene 3, tokenizer.json 6, config.json 3).
constexpr int kJsonMaxDepth = 64;

// True when no array or object in `text` is nested more than max_depth levels (brackets inside strings don't count).
bool json_nesting_within(std::string_view text, int max_depth = kJsonMaxDepth);

// Parses `text` as one JSON value into *out. Returns false with one line in *error ("not valid JSON: parse error at
// line 1, column 3: ..." or "nests deeper than 64 levels"); *out is then discarded. Never throws.
bool parse_json(std::string_view text, nlohmann::json* out, std::string* error, int max_depth = kJsonMaxDepth);

// parse_json, then the value must be an object: "expected a JSON object, got an array" otherwise. A config.json cut in
// half says where: "not valid JSON: parse error at line 3, column 14: ...".
bool parse_json_object(std::string_view text, nlohmann::json* out, std::string* error, int max_depth = kJsonMaxDepth);

// nlohmann's exception text without its "[json.exception.parse_error.101] " tag.
std::string json_error_text(const std::exception& e);

// The same for callers that only need "a value or nothing": a discarded value (is_discarded()) when refused.
nlohmann::json parse_json_or_discarded(std::string_view text, int max_depth = kJsonMaxDepth);

}  // namespace tw
