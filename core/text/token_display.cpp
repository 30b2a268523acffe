#include "core/text/token_display.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/base/utf8.h"
#include "core/text/pretokenizer.h"
#include "core/text/tokenizer.h"

namespace tw {

namespace {

void append_hex_run(std::string* out, std::string_view bytes) {
  *out += "\xE2\x9F\xA8";  // ⟨
  for (size_t k = 0; k < bytes.size(); ++k) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%s%02X", k ? " " : "", static_cast<unsigned char>(bytes[k]));
    *out += buf;
  }
  *out += "\xE2\x9F\xA9";  // ⟩
}

bool whole_utf8(std::string_view s) { return first_invalid_utf8(s) == std::string_view::npos; }

}  // namespace

std::string display_bytes(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence_length(s, i);
    if (n == 0) {  // a run of bytes that are not whole characters
      size_t j = i + 1;
      while (j < s.size() && utf8_sequence_length(s, j) == 0) ++j;
      append_hex_run(&out, s.substr(i, j - i));
      i = j;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == ' ')
      out += "\xE2\x90\xA3";  // ␣
    else if (c == '\n')
      out += "\xE2\x86\xB5";  // ↵
    else if (c == '\t')
      out += "\xE2\x87\xA5";  // ⇥
    else if (c == '\r')
      out += "\xE2\x90\x8D";  // ␍
    else if (c < 0x20 || c == 0x7F)
      append_hex_run(&out, s.substr(i, 1));
    else
      out.append(s, i, n);
    i += n;
  }
  return out;
}

std::string display_byte_level(std::string_view token) {
  std::string bytes;
  for (size_t i = 0; i < token.size();) {
    const size_t n = std::max<size_t>(utf8_sequence_length(token, i), 1);
    const int b = byte_level_byte(token.substr(i, n));
    if (b < 0) return display_bytes(token);  // not spelled in the byte alphabet: show it as text
    bytes.push_back(static_cast<char>(b));
    i += n;
  }
  return display_bytes(bytes);
}

std::string display_metaspace(std::string_view token) {
  if (token.size() == 6 && token.substr(0, 3) == "<0x" && token[5] == '>') {
    const std::string hex(token.substr(3, 2));
    char* end = nullptr;
    const long v = std::strtol(hex.c_str(), &end, 16);
    if (end == hex.c_str() + 2) return display_bytes(std::string(1, static_cast<char>(v)));
  }
  std::string text;
  for (size_t i = 0; i < token.size();) {
    if (token.substr(i, 3) == "\xE2\x96\x81") {
      text += ' ';
      i += 3;
    } else {
      text += token[i++];
    }
  }
  return display_bytes(text);
}

TokenDisplay display_token(const Tokenizer& t, int id) {
  TokenDisplay d;
  if (id < 0 || id >= t.vocab_size()) {
    d.text = "<id " + std::to_string(id) + ">";
    return d;
  }
  if (t.is_special(id)) {
    d.text = t.token_string(id).empty() ? "<empty>" : t.token_string(id);
    d.special = true;
    return d;
  }
  const std::string bytes = t.token_bytes(id);
  d.text = bytes.empty() ? "<empty>" : display_bytes(bytes);
  d.partial = !whole_utf8(bytes);
  return d;
}

std::vector<TokenDisplay> display_token_bytes(const std::vector<std::string>& tokens,
                                              const std::vector<bool>& special) {
  std::string all;
  std::vector<size_t> start;
  for (const std::string& b : tokens) start.push_back(all.size()), all += b;
  std::vector<TokenDisplay> out;
  for (size_t k = 0; k < tokens.size(); ++k) {
    TokenDisplay d;
    d.special = k < special.size() && special[k];
    d.text = tokens[k].empty() ? "<empty>" : d.special ? tokens[k] : display_bytes(tokens[k]);
    d.partial = !d.special && !whole_utf8(tokens[k]);
    if (d.partial) {
      // Every character of the joined bytes that overlaps this token's bytes and is not wholly inside it.
      const size_t b = start[k], e = b + tokens[k].size();
      size_t i = b < all.size() ? utf8_char_start(all, b) : b;
      const bool starts_here = i == b;
      for (; i < e;) {
        const size_t n = utf8_sequence_length(all, i);
        if (n > 0 && i + n > b && (i < b || i + n > e)) d.character.append(all, i, n);
        i += n ? n : 1;
      }
      d.character_starts = starts_here && !d.character.empty();
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<TokenDisplay> display_tokens(const Tokenizer& t, const std::vector<int>& ids) {
  std::vector<std::string> bytes;
  std::vector<bool> special;
  for (int id : ids) {
    special.push_back(t.is_special(id) || id < 0 || id >= t.vocab_size());
    bytes.push_back(special.back() ? display_token(t, id).text : t.token_bytes(id));
  }
  return display_token_bytes(bytes, special);
}

}  // namespace tw
