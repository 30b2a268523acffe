#pragma once
// The one UTF-8 codec: tokenizers, tokenizer experiments, scene checks and the text renderer all decode here, so
// they agree on what is invalid (overlong forms, surrogates, truncated sequences, anything above U+10FFFF).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

// True when s is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

// The characters of s, each as its UTF-8 bytes; a byte that does not start a well-formed sequence is its own unit.
std::vector<std::string> utf8_chars(std::string_view s);

// The code points of s; each byte that does not start a well-formed sequence becomes U+FFFD.
std::vector<uint32_t> decode_utf8(std::string_view s);

// The UTF-8 bytes of one code point (U+FFFD for a surrogate or anything above U+10FFFF).
std::string encode_utf8(uint32_t cp);

// Byte offset of the first byte that does not start a well-formed sequence, or std::string_view::npos.
size_t first_invalid_utf8(std::string_view s);

// "" when s is well-formed UTF-8; otherwise one translated line naming `what` (a file name, "the training text"),
// the byte offset of the first bad byte and its value, so text read from a file is reported, not shown as garbage.
std::string utf8_error(std::string_view s, std::string_view what);

}  // namespace tw
