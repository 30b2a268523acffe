#pragma once
// UTF-8 helpers shared by the tokenizers, the tokenizer experiments and the scene checks.

#include <string>
#include <string_view>
#include <vector>

namespace tw {

// True when s is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

// The characters of s, each as its UTF-8 bytes; a byte that does not start a well-formed sequence is its own unit.
std::vector<std::string> utf8_chars(std::string_view s);

}  // namespace tw
