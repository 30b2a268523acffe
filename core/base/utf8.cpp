#include "core/base/utf8.h"

#include <cstdio>

#include "core/base/i18n.h"

namespace tw {

namespace {

// Length of the well-formed sequence starting at s[i], or 0 when it is not one.
size_t sequence_length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t extra = 0;
  unsigned int cp = 0;
  if (c < 0x80)
    return 1;
  else if ((c & 0xE0) == 0xC0)
    extra = 1, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0)
    extra = 2, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0)
    extra = 3, cp = c & 0x07;
  else
    return 0;
  if (i + extra >= s.size()) return 0;  // truncated sequence
  for (size_t k = 1; k <= extra; ++k) {
    const unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  const unsigned int min_cp[] = {0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong, surrogate
  return extra + 1;
}

uint32_t code_point(std::string_view s, size_t i, size_t n) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::vector<std::string> utf8_chars(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    out.emplace_back(s.substr(i, n ? n : 1));
    i += n ? n : 1;
  }
  return out;
}

std::vector<uint32_t> decode_utf8(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    out.push_back(n ? code_point(s, i, n) : 0xFFFD);
    i += n ? n : 1;
  }
  return out;
}

size_t utf8_sequence_length(std::string_view s, size_t i) { return i < s.size() ? sequence_length(s, i) : 0; }

size_t utf8_char_start(std::string_view s, size_t i) {
  for (size_t back = 1; back <= 3 && back <= i && i < s.size(); ++back) {
    const size_t n = sequence_length(s, i - back);
    if (n > back) return i - back;
  }
  return i;
}

std::string_view utf8_prefix(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  return s.substr(0, utf8_char_start(s, max_bytes));
}

uint32_t decode_utf8_at(std::string_view s, size_t i, size_t* len) {
  const size_t n = utf8_sequence_length(s, i);
  *len = n ? n : 1;
  return n ? code_point(s, i, n) : 0xFFFD;
}

void append_utf8(std::string* out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string encode_utf8(uint32_t cp) {
  std::string out;
  append_utf8(&out, cp);
  return out;
}

size_t first_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

namespace {

// t (1 to 3 bytes) is the start of a well-formed sequence that the end of the text cut short.
bool truncated_sequence(std::string_view t) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(t[i]); };
  const unsigned char lead = b(0);
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF)
    need = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    need = 3, lo = lead == 0xE0 ? 0xA0 : 0x80, hi = lead == 0xED ? 0x9F : 0xBF;
  else if (lead >= 0xF0 && lead <= 0xF4)
    need = 4, lo = lead == 0xF0 ? 0x90 : 0x80, hi = lead == 0xF4 ? 0x8F : 0xBF;
  if (need == 0 || t.size() >= need) return false;
  if (t.size() > 1 && (b(1) < lo || b(1) > hi)) return false;
  return t.size() < 3 || (b(2) >= 0x80 && b(2) <= 0xBF);
}

// Offset of the first byte that does not start a well-formed sequence, or s.size().
size_t whole_characters(std::string_view s) {
  const size_t bad = first_invalid_utf8(s);
  return bad == std::string_view::npos ? s.size() : bad;
}

}  // namespace

bool utf8_valid_prefix(std::string_view s) {
  const size_t whole = whole_characters(s);
  return whole == s.size() || truncated_sequence(s.substr(whole));
}

std::string_view utf8_unfinished_tail(std::string_view s) { return s.substr(whole_characters(s)); }

std::vector<char> utf8_allowed_tokens(const std::vector<std::string>& token_bytes, std::string_view pending) {
  std::vector<char> allowed(token_bytes.size(), 0);
  std::string joined(pending);
  for (size_t id = 0; id < token_bytes.size(); ++id) {
    joined.resize(pending.size());
    joined += token_bytes[id];
    allowed[id] = !token_bytes[id].empty() && utf8_valid_prefix(joined) ? 1 : 0;
  }
  return allowed;
}

std::string utf8_error(std::string_view s, std::string_view what) {
  const size_t bad = first_invalid_utf8(s);
  if (bad == std::string_view::npos) return "";
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(s[bad]));
  return subst(tr("{0} is not valid UTF-8: byte {1} at offset {2} does not start a character (save it as UTF-8)"),
               {what, byte, std::to_string(bad)});
}

}  // namespace tw
