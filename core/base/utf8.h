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
// Length of the well-formed sequence starting at s[i] (1..4), or 0 when s[i] does not start one.
size_t utf8_sequence_length(std::string_view s, size_t i);

// The longest prefix of s of at most max_bytes bytes that does not end inside a well-formed sequence (cut before
// the lead byte of the character that contains byte max_bytes). Bytes outside any sequence are characters of their own.
std::string_view utf8_prefix(std::string_view s, size_t max_bytes);

// Start of the character that contains byte i: the lead byte of a well-formed sequence covering i, else i itself.
size_t utf8_char_start(std::string_view s, size_t i);

// The code point of the sequence at s[i] and its length in *len; U+FFFD with *len = 1 when it is not well-formed.
uint32_t decode_utf8_at(std::string_view s, size_t i, size_t* len);

// Appends the UTF-8 of one code point (U+FFFD for surrogates and values above U+10FFFF).
void append_utf8(std::string* out, uint32_t cp);

// Byte offset of the first byte that does not start a well-formed sequence, or std::string_view::npos.
size_t first_invalid_utf8(std::string_view s);

// True when s is well-formed UTF-8 or becomes so with more bytes: only its last character may be unfinished (a lead
// byte and some of its continuation bytes, each already in its allowed range).
bool utf8_valid_prefix(std::string_view s);
// The unfinished last character of a valid prefix (0 to 3 bytes; "" when s ends on a whole character).
std::string_view utf8_unfinished_tail(std::string_view s);
// Generation that never shows half a character: (V) 1 for each candidate whose bytes, appended to `pending` (the
// unfinished tail of the text so far), keep it a valid prefix; 0 for a byte that cannot come next.
std::vector<char> utf8_allowed_tokens(const std::vector<std::string>& token_bytes, std::string_view pending);

// "" when s is well-formed UTF-8; otherwise one translated line naming `what` (a file name, "the training text"),
// the byte offset of the first bad byte and its value, so text read from a file is reported, not shown as garbage.
std::string utf8_error(std::string_view s, std::string_view what);

}  // namespace tw
