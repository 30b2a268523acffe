#pragma once
// Reading a JSON object from text with a message that says where it went wrong: a config.json cut in half is
// "not valid JSON: parse error at line 3, column 14: ...", not "not a JSON object". Model folders, tokenizers and
// scenes use it, so every file the app reads reports bad JSON the same way.

#include <exception>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tw {

// nlohmann's exception text without its "[json.exception.parse_error.101] " tag: "parse error at line 1, column 27:
// syntax error while parsing object key - unexpected end of input; expected string literal".
std::string json_error_text(const std::exception& e);

// Parses `text` as one JSON object into `out`. On failure returns false and sets `error` to "not valid JSON: <where
// and why>" or "expected a JSON object, got <type>".
bool parse_json_object(std::string_view text, nlohmann::json* out, std::string* error);

}  // namespace tw
