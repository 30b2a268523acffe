// BPE tokenizers from tokenizer.json. Sections:
//   [SECTION] UTF-8 and character classes
//   [SECTION] pre-tokenizer patterns (hand-written GPT-2 / Llama 3 / Qwen2 splitters)
//   [SECTION] encode / decode
//   [SECTION] tokenizer.json
#include "core/tokenizer_bpe.h"
#include "core/io/json_parse.h"
#include "core/io/read_file.h"


#include <unicode/uchar.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/text/i18n.h"

namespace tw {

namespace {

// [SECTION] UTF-8 and character classes

// Decodes one UTF-8 character at s[i]; *len gets its byte length. Invalid or truncated sequences decode as one
// byte with code point -1, so every byte of the input stays accounted for.
int32_t decode_utf8(std::string_view s, size_t i, int* len) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  *len = 1;
  if (n == 0 || i + n > s.size()) return n == 1 ? c : -1;
  int32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
  for (int k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return -1;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not characters.
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
      (cp >= 0xd800 && cp <= 0xdfff))
    return -1;
  *len = n;
  return cp;
}

void append_utf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

enum CharClass : uint8_t { kOther, kLetter, kNumber, kSpace };

CharClass classify(int32_t cp) {
  if (cp < 0) return kOther;  // a stray byte: punctuation-like, never merged with letters
  if (u_isUWhiteSpace(cp)) return kSpace;
  switch (u_charType(cp)) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER: return kLetter;
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER: return kNumber;
    default: return kOther;
  }
}

struct Char {
  int32_t cp;      // code point, -1 for an invalid byte
  uint32_t begin;  // byte offset in the text
  uint32_t end;    // one past the last byte
  CharClass cls;
};

std::vector<Char> split_chars(std::string_view s) {
  std::vector<Char> out;
  for (size_t i = 0; i < s.size();) {
    int len = 1;
    const int32_t cp = decode_utf8(s, i, &len);
    out.push_back({cp, static_cast<uint32_t>(i), static_cast<uint32_t>(i + len), classify(cp)});
    i += static_cast<size_t>(len);
  }
  return out;
}

// [SECTION] pre-tokenizer patterns
// Each splitter returns the length (in characters) of the match starting at character i, trying the pattern's
// alternatives in order as a backtracking regex engine does. Every pattern here matches at least one character
// at any position, so the pieces tile the text.

struct Cursor {
  const std::vector<Char>& c;
  size_t n() const { return c.size(); }
  bool is(size_t i, CharClass k) const { return i < c.size() && c[i].cls == k; }
  bool eq(size_t i, char32_t ch) const { return i < c.size() && c[i].cp == static_cast<int32_t>(ch); }
  bool newline(size_t i) const { return eq(i, '\r') || eq(i, '\n'); }
  size_t run(size_t i, CharClass k, size_t max = SIZE_MAX) const {  // length of a run of class k from i
    size_t j = i;
    while (j < c.size() && c[j].cls == k && j - i < max) ++j;
    return j - i;
  }
  // 's|'t|'re|'ve|'m|'ll|'d (case-insensitive for Llama 3 / Qwen2).
  size_t contraction(size_t i, bool fold) const {
    if (!eq(i, '\'')) return 0;
    const auto at = [&](size_t k, char lower) {
      return eq(k, static_cast<char32_t>(lower)) || (fold && eq(k, static_cast<char32_t>(lower - 'a' + 'A')));
    };
    if (at(i + 1, 's') || at(i + 1, 't')) return 2;
    if ((at(i + 1, 'r') || at(i + 1, 'v')) && at(i + 2, 'e')) return 3;
    if (at(i + 1, 'm')) return 2;
    if (at(i + 1, 'l') && at(i + 2, 'l')) return 3;
    if (at(i + 1, 'd')) return 2;
    return 0;
  }
  // \s+(?!\S) then \s+: a whitespace run gives back its last character when a non-space follows, so that
  // character can lead the next word (" world" keeps its space).
  size_t whitespace(size_t i) const {
    const size_t k = run(i, kSpace);
    if (i + k == n() || k < 2) return k;
    return k - 1;
  }
};

size_t match_gpt2(const Cursor& s, size_t i) {
  if (const size_t m = s.contraction(i, false)) return m;
  const size_t j = s.eq(i, ' ') && !s.is(i + 1, kSpace) && i + 1 < s.n() ? i + 1 : i;  // " ?"
  if (s.is(j, kLetter)) return j - i + s.run(j, kLetter);
  if (s.is(j, kNumber)) return j - i + s.run(j, kNumber);
  if (s.is(j, kOther)) return j - i + s.run(j, kOther);
  return s.whitespace(i);
}

size_t match_llama3(const Cursor& s, size_t i, size_t max_digits) {
  if (const size_t m = s.contraction(i, true)) return m;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  if (!s.newline(i) && !s.is(i, kLetter) && !s.is(i, kNumber) && s.is(i + 1, kLetter)) return 1 + s.run(i + 1, kLetter);
  if (s.is(i, kLetter)) return s.run(i, kLetter);
  // \p{N}{1,3} (Llama 3) or \p{N} (Qwen2)
  if (s.is(i, kNumber)) return s.run(i, kNumber, max_digits);
  // " ?[^\s\p{L}\p{N}]+[\r\n]*"
  const size_t j = s.eq(i, ' ') && s.is(i + 1, kOther) ? i + 1 : i;
  if (s.is(j, kOther)) {
    size_t k = j + s.run(j, kOther);
    while (s.newline(k)) ++k;
    return k - i;
  }
  // \s*[\r\n]+: the whitespace run up to and including its last newline.
  const size_t k = s.run(i, kSpace);
  for (size_t m = i + k; m > i; --m)
    if (s.newline(m - 1)) return m - i;
  return s.whitespace(i);
}

// [SECTION] encode / decode helpers

constexpr const char* kMetaspace = "\xE2\x96\x81";  // ▁ U+2581

}  // namespace

// [SECTION] merge loop

void bpe_merge_reference(std::vector<int>& sym, const BpeMerges& merges) {
  while (sym.size() > 1) {
    int best_rank = INT_MAX, best_id = -1;
    size_t best = 0;
    for (size_t i = 0; i + 1 < sym.size(); ++i) {
      auto it = merges.find(bpe_pair_key(sym[i], sym[i + 1]));
      if (it != merges.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        best_id = it->second.second;
        best = i;
      }
    }
    if (best_id < 0) break;
    sym[best] = best_id;
    sym.erase(sym.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
}

void bpe_merge(std::vector<int>& sym, const BpeMerges& merges) {
  const int n = static_cast<int>(sym.size());
  if (n < 2) return;
  // A doubly linked list over the original positions; a merged pair lives on at its left position. Positions
  // never reorder, so "leftmost" is the smallest left position, as in the reference scan.
  std::vector<int> prev(static_cast<size_t>(n)), next(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) prev[size_t(i)] = i - 1, next[size_t(i)] = i + 1 < n ? i + 1 : -1;
  struct Candidate {
    int rank, left, left_id, right_id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::vector<Candidate> heap;
  const auto push = [&](int left) {
    const int right = left >= 0 ? next[size_t(left)] : -1;
    if (right < 0) return;
    auto it = merges.find(bpe_pair_key(sym[size_t(left)], sym[size_t(right)]));
    if (it == merges.end()) return;
    heap.push_back({it->second.first, left, sym[size_t(left)], sym[size_t(right)]});
    std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  for (int i = 0; i + 1 < n; ++i) push(i);
  std::vector<char> alive(static_cast<size_t>(n), 1);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const Candidate c = heap.back();
    heap.pop_back();
    // Stale entries: the left symbol was merged away or changed, or its right neighbour is another one now.
    const int right = alive[size_t(c.left)] ? next[size_t(c.left)] : -1;
    if (right < 0 || sym[size_t(c.left)] != c.left_id || sym[size_t(right)] != c.right_id) continue;
    sym[size_t(c.left)] = merges.at(bpe_pair_key(c.left_id, c.right_id)).second;
    alive[size_t(right)] = 0;
    next[size_t(c.left)] = next[size_t(right)];
    if (next[size_t(right)] >= 0) prev[size_t(next[size_t(right)])] = c.left;
    push(prev[size_t(c.left)]);
    push(c.left);
  }
  std::vector<int> out;
  for (int i = 0; i >= 0; i = next[size_t(i)]) out.push_back(sym[size_t(i)]);
  sym = std::move(out);
}

const std::vector<std::string>& byte_level_alphabet() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      append_utf8(&t[static_cast<size_t>(b)], static_cast<uint32_t>(printable ? b : next++));
    }
    return t;
  }();
  return table;
}

namespace {

const std::unordered_map<std::string, int>& byte_level_inverse() {
  static const std::unordered_map<std::string, int> inverse = [] {
    std::unordered_map<std::string, int> m;
    for (int b = 0; b < 256; ++b) m[byte_level_alphabet()[static_cast<size_t>(b)]] = b;
    return m;
  }();
  return inverse;
}

}  // namespace

std::vector<std::string> BpeTokenizer::pre_split(std::string_view text) const {
  std::vector<std::string> pieces;
  const auto split_regex = [&](std::string_view part) {
    if (split_ == PreSplit::None) {
      if (!part.empty()) pieces.emplace_back(part);
      return;
    }
    const std::vector<Char> chars = split_chars(part);
    const Cursor s{chars};
    for (size_t i = 0; i < chars.size();) {
      size_t len = split_ == PreSplit::Gpt2     ? match_gpt2(s, i)
                   : split_ == PreSplit::Llama3 ? match_llama3(s, i, 3)
                                                : match_llama3(s, i, 1);
      len = std::max<size_t>(len, 1);  // defensive: the patterns always match, but never loop forever
      const size_t end = std::min(i + len, chars.size());
      pieces.emplace_back(part.substr(chars[i].begin, chars[end - 1].end - chars[i].begin));
      i = end;
    }
  };
  if (!split_digits_) {
    split_regex(text);
    return pieces;
  }
  // Digits pre-tokenizer first: digits are isolated (one each, or in runs), the rest goes to the pattern.
  const std::vector<Char> chars = split_chars(text);
  size_t start = 0;
  for (size_t i = 0; i < chars.size();) {
    if (chars[i].cls != kNumber) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (!individual_digits_)
      while (j < chars.size() && chars[j].cls == kNumber) ++j;
    split_regex(text.substr(chars[start].begin, chars[i].begin - chars[start].begin));
    pieces.emplace_back(text.substr(chars[i].begin, chars[j - 1].end - chars[i].begin));
    start = i = j;
  }
  if (start < chars.size()) split_regex(text.substr(chars[start].begin));
  return pieces;
}

void BpeTokenizer::encode_piece(std::string_view piece, std::vector<int>* out) const {
  // Units: the byte-level characters of each byte, or the UTF-8 characters (Metaspace).
  std::vector<std::string> units;
  if (kind_ == BpeKind::ByteLevel) {
    for (unsigned char b : piece) units.push_back(byte_level_alphabet()[b]);
  } else {
    for (size_t i = 0; i < piece.size();) {
      int len = 1;
      decode_utf8(piece, i, &len);
      units.emplace_back(piece.substr(i, static_cast<size_t>(len)));
      i += static_cast<size_t>(len);
    }
  }
  if (ignore_merges_) {
    std::string whole;
    for (const std::string& u : units) whole += u;
    if (auto it = vocab_.find(whole); it != vocab_.end()) {
      out->push_back(it->second);
      return;
    }
  }
  // Each unit becomes its vocabulary id; a missing unit falls back to <0xNN> bytes, else to <unk>.
  std::vector<int> sym;
  for (const std::string& u : units) {
    if (auto it = vocab_.find(u); it != vocab_.end()) {
      sym.push_back(it->second);
      continue;
    }
    const std::string raw = kind_ == BpeKind::ByteLevel ? std::string(1, char(byte_level_inverse().at(u))) : u;
    bool fell_back = byte_fallback_;
    for (unsigned char b : raw) fell_back = fell_back && byte_token_[b] >= 0;
    if (fell_back) {
      for (unsigned char b : raw) sym.push_back(byte_token_[b]);
    } else if (unk_id_ >= 0) {
      if (!(fuse_unk_ && !sym.empty() && sym.back() == unk_id_)) sym.push_back(unk_id_);
    }
  }
  bpe_merge(sym, merges_);
  out->insert(out->end(), sym.begin(), sym.end());
}

void BpeTokenizer::encode_segment(std::string_view segment, bool first, std::vector<int>* out) const {
  if (segment.empty()) return;
  if (kind_ == BpeKind::ByteLevel) {
    std::string text(segment);
    if (add_prefix_space_ && first && text[0] != ' ') text.insert(text.begin(), ' ');
    for (const std::string& piece : pre_split(text)) encode_piece(piece, out);
    return;
  }
  // Metaspace: spaces become ▁ and one ▁ goes in front (of the first segment, or of every one).
  std::string text = (prepend_ && (first || prepend_always_)) ? kMetaspace : "";
  for (char ch : segment) {
    if (ch == ' ')
      text += kMetaspace;
    else
      text.push_back(ch);
  }
  if (!metaspace_split_) {
    encode_piece(text, out);
    return;
  }
  // Split mode: a new piece starts at every ▁.
  size_t start = 0;
  for (size_t i = 1; i + 2 < text.size(); ++i)
    if (text.compare(i, 3, kMetaspace) == 0) {
      encode_piece(std::string_view(text).substr(start, i - start), out);
      start = i;
    }
  encode_piece(std::string_view(text).substr(start), out);
}

std::vector<int> BpeTokenizer::encode(std::string_view text, bool add_bos) const {
  std::vector<int> ids;
  if (add_bos && bos_id_ >= 0) ids.push_back(bos_id_);
  // Cut out added tokens first (longest match at each position), then tokenize the text between them.
  size_t seg_start = 0;
  bool first = true;
  for (size_t i = 0; i < text.size();) {
    const AddedToken* best = nullptr;
    for (const AddedToken& a : added_)
      if (!a.content.empty() && text.compare(i, a.content.size(), a.content) == 0 &&
          (!best || a.content.size() > best->content.size()))
        best = &a;
    if (!best) {
      ++i;
      continue;
    }
    encode_segment(text.substr(seg_start, i - seg_start), first, &ids);
    first = first && i == seg_start;
    ids.push_back(best->id);
    i += best->content.size();
    seg_start = i;
  }
  encode_segment(text.substr(seg_start), first, &ids);
  return ids;
}

const std::string& BpeTokenizer::token_string(int id) const {
  static const std::string empty;
  return id >= 0 && id < vocab_size() ? id_to_token_[static_cast<size_t>(id)] : empty;
}

bool BpeTokenizer::is_special(int id) const { return id >= 0 && id < vocab_size() && special_[size_t(id)]; }

int BpeTokenizer::token_id(const std::string& token) const {
  auto it = vocab_.find(token);
  return it == vocab_.end() ? -1 : it->second;
}

std::string BpeTokenizer::token_bytes(int id) const {
  const std::string& s = token_string(id);
  for (const AddedToken& a : added_)
    if (a.id == id) return a.content;
  if (kind_ == BpeKind::ByteLevel) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
      int len = 1;
      decode_utf8(s, i, &len);
      const std::string ch = s.substr(i, static_cast<size_t>(len));
      auto it = byte_level_inverse().find(ch);
      if (it != byte_level_inverse().end())
        out.push_back(static_cast<char>(it->second));
      else
        out += ch;  // not from the byte alphabet: keep it as text
      i += static_cast<size_t>(len);
    }
    return out;
  }
  // <0xNN> byte tokens stand for their byte; ▁ stands for a space.
  if (s.size() == 6 && s.compare(0, 3, "<0x") == 0 && s[5] == '>') {
    for (int b = 0; b < 256; ++b)
      if (byte_token_[b] == id) return std::string(1, static_cast<char>(b));
  }
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, kMetaspace) == 0) {
      out.push_back(' ');
      i += 3;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

std::string BpeTokenizer::decode(const std::vector<int>& ids, bool skip_special) const {
  std::string out;
  bool at_start = true;
  for (int id : ids) {
    if (id < 0 || id >= vocab_size()) continue;
    if (is_special(id) && (skip_special || id == bos_id_)) continue;
    std::string bytes = token_bytes(id);
    // SentencePiece's decoder drops the one space the encoder put in front of the text.
    if (at_start && kind_ == BpeKind::Metaspace && prepend_ && !bytes.empty() && bytes[0] == ' ') bytes.erase(0, 1);
    at_start = false;
    out += bytes;
  }
  return out;
}

std::string BpeTokenizer::label(int id) const {
  if (id < 0 || id >= vocab_size()) return "<id " + std::to_string(id) + ">";
  if (is_special(id)) return token_string(id);
  const std::string bytes = token_bytes(id);
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    int len = 1;
    const int32_t cp = decode_utf8(bytes, i, &len);
    if (cp == ' ')
      out += "\xE2\x90\xA3";  // ␣
    else if (cp == '\n')
      out += "\xE2\x86\xB5";  // ↵
    else if (cp == '\t')
      out += "\xE2\x87\xA5";  // ⇥
    else if (cp < 0x20 || cp == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned char>(bytes[i]));
      out += buf;
    } else {
      out += bytes.substr(i, static_cast<size_t>(len));
    }
    i += static_cast<size_t>(len);
  }
  return out.empty() ? "<empty>" : out;
}

// [SECTION] tokenizer.json

namespace {

using nlohmann::json;

constexpr int kMaxVocab = 1 << 20;  // bounds hostile ids before any allocation (Gemma has 256000 tokens)

const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::string type_of(const json& j) {
  return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "";
}

// The steps of a pipeline stage (normalizer, pre_tokenizer, post_processor): a {"type": "Sequence", list_key:
// [...]} gives its list, any other object is the one step, and an absent or null stage has none.
std::vector<json> stage_steps(const json& j, const char* stage, const char* list_key) {
  if (!j.contains(stage) || j[stage].is_null()) return {};
  const json& s = j[stage];
  if (type_of(s) == "Sequence" && s.contains(list_key) && s[list_key].is_array())
    return s[list_key].get<std::vector<json>>();
  return {s};
}

bool get_bool(const json& j, const char* key, bool fallback) {
  return j.is_object() && j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback;
}

}  // namespace

bool bpe_tokenizer_from_json(const std::string& text, BpeTokenizer* out, std::string* error) {
  const auto fail = [&](const std::string& m) {  // m is translated; the prefix stays ASCII (load_bpe_tokenizer)
    *error = "tokenizer.json: " + m;
    return false;
  };
  json j;
  std::string why;
  if (!parse_json_object(text, &j, &why)) return fail(why);
  BpeTokenizer t;
  std::fill(std::begin(t.byte_token_), std::end(t.byte_token_), -1);
  bool kind_known = false;

  // The model: a BPE vocabulary and merge list.
  if (!j.contains("model") || !j["model"].is_object()) return fail(tr("missing the 'model' object"));
  const json& model = j["model"];
  const std::string model_type = type_of(model);
  if (!model_type.empty() && model_type != "BPE")
    return fail(subst(tr("model type '{0}' is not supported (only BPE tokenizers are)"), {model_type}));
  if (!model.contains("vocab") || !model["vocab"].is_object()) return fail(tr("model.vocab must be an object"));
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(key) && model[key].is_string() && !model[key].get<std::string>().empty())
      return fail(subst(tr("model.{0} is not supported (WordPiece-style BPE)"), {key}));
  int max_id = -1;
  for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() >= kMaxVocab)
      return fail(
          subst(tr("vocab id of '{0}' must be an integer in 0..{1}"), {it.key(), std::to_string(kMaxVocab - 1)}));
    const int id = it.value().get<int>();
    t.vocab_[it.key()] = id;
    max_id = std::max(max_id, id);
  }
  std::vector<AddedToken> added;
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& a : j["added_tokens"]) {
      if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") ||
          !a["content"].is_string())
        return fail(tr("every added_tokens entry needs an integer 'id' and a string 'content'"));
      const int64_t id = a["id"].get<int64_t>();
      if (id < 0 || id >= kMaxVocab) return fail(subst(tr("added token id {0} is out of range"), {std::to_string(id)}));
      added.push_back({a["content"].get<std::string>(), static_cast<int>(id), get_bool(a, "special", false)});
      max_id = std::max(max_id, static_cast<int>(id));
    }
  }
  t.id_to_token_.assign(static_cast<size_t>(max_id + 1), std::string());
  t.special_.assign(static_cast<size_t>(max_id + 1), 0);
  for (const auto& [token, id] : t.vocab_) t.id_to_token_[static_cast<size_t>(id)] = token;
  for (const AddedToken& a : added) {
    t.id_to_token_[static_cast<size_t>(a.id)] = a.content;
    t.special_[static_cast<size_t>(a.id)] = a.special;
    t.vocab_.emplace(a.content, a.id);
  }
  // Longest first, so "<|im_start|>" wins over a shorter token that is its prefix.
  std::sort(added.begin(), added.end(),
            [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
  t.added_ = std::move(added);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    t.byte_token_[b] = t.token_id(name);
  }
  t.byte_fallback_ = get_bool(model, "byte_fallback", false);
  t.ignore_merges_ = get_bool(model, "ignore_merges", false);
  t.fuse_unk_ = get_bool(model, "fuse_unk", false);
  if (model.contains("unk_token") && model["unk_token"].is_string())
    t.unk_id_ = t.token_id(model["unk_token"].get<std::string>());
  if (model.contains("merges")) {
    if (!model["merges"].is_array()) return fail(tr("model.merges must be an array"));
    int rank = 0;
    for (const json& m : model["merges"]) {
      std::string a, b;
      if (m.is_string()) {  // "a b"
        const std::string s = m.get<std::string>();
        const size_t space = s.find(' ', 1);
        if (space == std::string::npos)
          return fail(subst(tr("merge '{0}' is not two tokens separated by a space"), {s}));
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {  // ["a", "b"]
        a = m[0].get<std::string>();
        b = m[1].get<std::string>();
      } else {
        return fail(tr("merges must be strings \"a b\" or pairs [\"a\", \"b\"]"));
      }
      const int ia = t.token_id(a), ib = t.token_id(b), im = t.token_id(a + b);
      if (ia < 0 || ib < 0 || im < 0)
        return fail(subst(tr("merge #{0} ('{1}' + '{2}') names a token that is not in the vocabulary"),
                          {std::to_string(rank), a, b}));
      t.merges_.emplace(bpe_pair_key(ia, ib), std::make_pair(rank, im));  // the first (lowest) rank wins
      ++rank;
    }
  }

  // Normalizer: none, NFC (treated as identity: input text is expected in NFC), or SentencePiece's
  // Prepend("▁") + Replace(" ", "▁").
  for (const json& n : stage_steps(j, "normalizer", "normalizers")) {
    const std::string type = type_of(n);
    if (type == "NFC" || type == "Strip") continue;
    if (type == "Prepend") {
      t.kind_ = BpeKind::Metaspace, kind_known = true;
      t.prepend_ = t.prepend_always_ = true;
      continue;
    }
    if (type == "Replace") {
      t.kind_ = BpeKind::Metaspace, kind_known = true;
      continue;
    }
    return fail(subst(tr("normalizer '{0}' is not supported (NFC, Prepend and Replace are)"), {type}));
  }

  // Pre-tokenizer: Sequence of Split(pattern) / ByteLevel / Digits / Metaspace.
  for (const json& p : stage_steps(j, "pre_tokenizer", "pretokenizers")) {
    const std::string type = type_of(p);
    if (type == "Split") {
      const json pattern = p.contains("pattern") && p["pattern"].is_object() ? p["pattern"] : json();
      const std::string regex =
          pattern.contains("Regex") && pattern["Regex"].is_string() ? pattern["Regex"].get<std::string>() : "";
      if (regex == kGpt2Pattern)
        t.split_ = PreSplit::Gpt2;
      else if (regex == kLlama3Pattern)
        t.split_ = PreSplit::Llama3;
      else if (regex == kQwen2Pattern)
        t.split_ = PreSplit::Qwen2;
      else
        return fail(
            tr("the Split pre-tokenizer's pattern is not one of the GPT-2, Llama 3 or Qwen2 patterns this "
               "tokenizer implements"));
    } else if (type == "ByteLevel") {
      t.kind_ = BpeKind::ByteLevel, kind_known = true;
      t.add_prefix_space_ = get_bool(p, "add_prefix_space", false);
      if (get_bool(p, "use_regex", true)) t.split_ = PreSplit::Gpt2;
    } else if (type == "Digits") {
      t.split_digits_ = true;
      t.individual_digits_ = get_bool(p, "individual_digits", false);
    } else if (type == "Metaspace") {
      t.kind_ = BpeKind::Metaspace, kind_known = true;
      const std::string scheme = p.contains("prepend_scheme") && p["prepend_scheme"].is_string()
                                     ? p["prepend_scheme"].get<std::string>()
                                     : (get_bool(p, "add_prefix_space", true) ? "always" : "never");
      t.prepend_ = scheme != "never";
      t.prepend_always_ = scheme == "always";
      t.metaspace_split_ = get_bool(p, "split", true);
    } else {
      return fail(
          subst(tr("pre-tokenizer '{0}' is not supported (Split, ByteLevel, Digits and Metaspace are)"), {type}));
    }
  }
  if (!kind_known) {
    // No normalizer or pre-tokenizer says: the decoder does, or byte fallback marks SentencePiece.
    const std::string dec = j.contains("decoder") ? type_of(j["decoder"]) : "";
    t.kind_ = dec == "ByteLevel" || !t.byte_fallback_ ? BpeKind::ByteLevel : BpeKind::Metaspace;
  }
  if (t.kind_ == BpeKind::Metaspace && t.split_ != PreSplit::None)
    return fail(tr("a Metaspace tokenizer with a Split pattern is not supported"));

  // BOS: the post-processor's template puts a special token before the text (Llama 2, Llama 3), or none.
  for (const json& p : stage_steps(j, "post_processor", "processors")) {
    if (type_of(p) != "TemplateProcessing" || !p.contains("single") || !p["single"].is_array()) continue;
    for (const json& item : p["single"]) {
      if (item.contains("Sequence")) break;
      if (item.contains("SpecialToken") && item["SpecialToken"].is_object() && item["SpecialToken"].contains("id") &&
          item["SpecialToken"]["id"].is_string()) {
        const int id = t.token_id(item["SpecialToken"]["id"].get<std::string>());
        if (id >= 0) t.set_bos(id, true);
        break;
      }
    }
  }
  *out = std::move(t);
  return true;
}

bool load_bpe_tokenizer(const std::string& path, BpeTokenizer* out, std::string* error) {
  // The bounded reader: a FIFO, /dev/zero or a file over the tokenizer cap is refused before a byte is read.
  std::string text;
  if (!read_file_bounded(path, kMaxTokenizerBytes, &text, error)) return false;
  if (!bpe_tokenizer_from_json(text, out, error)) {
    *error = path + ": " + error->substr(std::string("tokenizer.json: ").size());
    return false;
  }
  return true;
}

}  // namespace tw
