// Tokenizers from tokenizer.json. Sections:
//   [SECTION] merge loop
//   [SECTION] added tokens
//   [SECTION] models: BPE, WordPiece, Unigram
//   [SECTION] encode / decode
//   [SECTION] tokenizer.json
#include "core/text/tokenizer.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/text/token_display.h"
#include "core/text/tokenizer_json.h"
#include "core/text/unicode_regex.h"

namespace tw {

namespace {
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
  if (n <= 6) {  // a handful of symbols: the plain scan is faster than building the heap
    bpe_merge_reference(sym, merges);
    return;
  }
  // A doubly linked list over the original positions; a merged pair lives on at its left position. Positions
  // never reorder, so "leftmost" is the smallest left position, as in the reference scan.
  std::vector<int> prev(static_cast<size_t>(n)), next(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) prev[size_t(i)] = i - 1, next[size_t(i)] = i + 1 < n ? i + 1 : -1;
  struct Candidate {
    int rank, left, left_id, right_id, merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  std::vector<Candidate> heap;
  const auto push = [&](int left) {
    const int right = left >= 0 ? next[size_t(left)] : -1;
    if (right < 0) return;
    auto it = merges.find(bpe_pair_key(sym[size_t(left)], sym[size_t(right)]));
    if (it == merges.end()) return;
    heap.push_back({it->second.first, left, sym[size_t(left)], sym[size_t(right)], it->second.second});
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
    sym[size_t(c.left)] = c.merged;
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

// [SECTION] added tokens

namespace {

bool is_space_at(std::string_view s, size_t i, size_t* len) {
  const uint32_t cp = decode_utf8_at(s, i, len);
  return u_isUWhiteSpace(UChar32(cp));
}

// Start of the whitespace run that ends s.
size_t trailing_space_start(std::string_view s) {
  size_t i = s.size();
  while (i > 0) {
    const size_t k = utf8_char_start(s, i - 1);
    size_t len = 0;
    if (!is_space_at(s, k, &len) || k + len != i) break;
    i = k;
  }
  return i;
}

size_t leading_space_length(std::string_view s) {
  size_t i = 0, len = 0;
  while (i < s.size() && is_space_at(s, i, &len)) i += len;
  return i;
}

bool is_word_char(uint32_t cp) { return cp == '_' || u_isalnum(UChar32(cp)); }

bool ends_with_word(std::string_view s) {
  if (s.empty()) return false;
  const size_t k = utf8_char_start(s, s.size() - 1);
  size_t len = 0;
  return is_word_char(decode_utf8_at(s, k, &len));
}

bool starts_with_word(std::string_view s) {
  size_t len = 0;
  return !s.empty() && is_word_char(decode_utf8_at(s, 0, &len));
}

}  // namespace

void Tokenizer::split_added(std::vector<Segment>* segments, bool normalized) const {
  const Trie& trie = normalized ? normalized_trie_ : raw_trie_;
  if (trie.empty()) return;
  std::vector<Segment> out;
  for (Segment& seg : *segments) {
    if (seg.added_id >= 0) {
      out.push_back(std::move(seg));
      continue;
    }
    const std::string_view s = seg.text;
    size_t start_offset = 0;  // end of the previous match
    for (size_t i = 0; i < s.size();) {
      // Leftmost-longest: the longest added token starting at i, if any.
      int node = 0, best = -1;
      size_t best_end = 0;
      for (size_t k = i; k < s.size(); ++k) {
        const auto& edges = trie.next[size_t(node)];
        auto it = edges.find(static_cast<unsigned char>(s[k]));
        if (it == edges.end()) break;
        node = it->second;
        if (trie.token[size_t(node)] >= 0) best = trie.token[size_t(node)], best_end = k + 1;
      }
      if (best < 0) {
        ++i;
        continue;
      }
      const AddedToken& a = added_[size_t(best)];
      size_t start = i, stop = best_end;
      if (a.single_word && ((start > 0 && ends_with_word(s.substr(0, start))) ||
                            (stop < s.size() && starts_with_word(s.substr(stop))))) {
        ++i;
        continue;
      }
      if (a.lstrip) start = std::max(trailing_space_start(s.substr(0, start)), start_offset);
      if (a.rstrip) stop += leading_space_length(s.substr(stop));
      if (start_offset < start)
        out.push_back(
            {std::string(s.substr(start_offset, start - start_offset)), -1, seg.at_start && start_offset == 0});
      out.push_back({std::string(s.substr(start, stop - start)), a.id, false});
      start_offset = i = stop;
    }
    if (start_offset < s.size())
      out.push_back({std::string(s.substr(start_offset)), -1, seg.at_start && start_offset == 0});
  }
  *segments = std::move(out);
}

// [SECTION] models: BPE, WordPiece, Unigram

void Tokenizer::encode_bpe(std::string_view piece, std::vector<int>* out) const {
  if (ignore_merges_) {
    if (auto it = vocab_.find(piece); it != vocab_.end()) {
      out->push_back(it->second);
      return;
    }
  }
  // Each character becomes its vocabulary id (with the continuation prefix / end-of-word suffix); a missing one
  // falls back to its <0xNN> bytes, else to <unk>.
  std::vector<int> sym;
  sym.reserve(piece.size());
  bool last_unk = false;
  std::string affixed;
  for (size_t i = 0; i < piece.size();) {
    const size_t n = std::max<size_t>(utf8_sequence_length(piece, i), 1);
    const std::string_view unit = piece.substr(i, n);
    std::string_view key = unit;
    if ((!subword_prefix_.empty() && i > 0) || (!word_suffix_.empty() && i + n == piece.size())) {
      affixed.assign(i > 0 ? subword_prefix_ : "");
      affixed.append(unit);
      if (i + n == piece.size()) affixed += word_suffix_;
      key = affixed;
    }
    i += n;
    if (auto it = vocab_.find(key); it != vocab_.end()) {
      sym.push_back(it->second);
      last_unk = false;
      continue;
    }
    bool fell_back = byte_fallback_;
    for (unsigned char b : unit) fell_back = fell_back && byte_token_[b] >= 0;
    if (fell_back) {
      for (unsigned char b : unit) sym.push_back(byte_token_[b]);
      last_unk = false;
    } else if (unk_id_ >= 0) {
      if (!(fuse_unk_ && last_unk)) sym.push_back(unk_id_);
      last_unk = true;
    }
  }
  bpe_merge(sym, merges_);
  out->insert(out->end(), sym.begin(), sym.end());
}

void Tokenizer::encode_wordpiece(std::string_view word, std::vector<int>* out) const {
  std::vector<size_t> bounds;  // character starts, then the end
  for (size_t i = 0; i < word.size(); i += std::max<size_t>(utf8_sequence_length(word, i), 1)) bounds.push_back(i);
  bounds.push_back(word.size());
  const auto unknown = [&] {
    if (unk_id_ >= 0)
      out->push_back(unk_id_);
    else  // Hugging Face raises MissingUnkToken here
      report_pipeline_failure(subst(tr("WordPiece's unknown token '{0}' is not in the vocabulary, so the word '{1}' "
                                       "cannot be tokenized (Hugging Face refuses it too)"),
                                    {unk_token_, std::string(utf8_prefix(word, 40))}));
  };
  if (bounds.size() - 1 > size_t(max_word_chars_)) return unknown();
  std::vector<int> ids;
  std::string key;
  for (size_t b = 0; b + 1 < bounds.size();) {
    int found = -1;
    size_t e = bounds.size() - 1;
    for (; e > b; --e) {
      key.assign(b > 0 ? subword_prefix_ : "");
      key.append(word.substr(bounds[b], bounds[e] - bounds[b]));
      if (auto it = vocab_.find(key); it != vocab_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) return unknown();
    ids.push_back(found);
    b = e;
  }
  out->insert(out->end(), ids.begin(), ids.end());
}

void Tokenizer::encode_unigram(std::string_view s, std::vector<int>* out) const {
  // Viterbi over byte positions (character starts only): best[e] is the highest total log-probability of a
  // segmentation of s[0, e); an unknown character costs unk_score_.
  const size_t n = s.size();
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  // Reachability is kept apart from the score: scores whose sum underflows to −inf still segment the text.
  std::vector<double> best(n + 1, kNone);
  std::vector<int> from(n + 1, -1), id_at(n + 1, -1);
  std::vector<char> reached(n + 1, 0);
  best[0] = 0;
  reached[0] = 1;
  for (size_t i = 0; i < n;) {
    const size_t clen = std::max<size_t>(utf8_sequence_length(s, i), 1);
    if (reached[i]) {
      bool single = false;
      for (size_t e = i + 1; e <= n && e - i <= max_piece_bytes_; ++e) {
        auto it = vocab_.find(s.substr(i, e - i));
        if (it == vocab_.end() || size_t(it->second) >= scores_.size()) continue;
        if (e == i + clen) single = true;
        const double score = best[i] + scores_[size_t(it->second)];
        if (!reached[e] || score > best[e]) best[e] = score, from[e] = int(i), id_at[e] = it->second, reached[e] = 1;
      }
      if (!single) {
        const double score = best[i] + unk_score_;
        if (!reached[i + clen] || score > best[i + clen])
          best[i + clen] = score, from[i + clen] = int(i), id_at[i + clen] = -1, reached[i + clen] = 1;
      }
    }
    i += clen;
  }
  std::vector<std::pair<size_t, int>> path;  // (start, id or -1 for unknown)
  for (size_t e = n; e > 0 && from[e] >= 0; e = size_t(from[e])) path.push_back({size_t(from[e]), id_at[e]});
  std::reverse(path.begin(), path.end());
  for (size_t k = 0; k < path.size(); ++k) {
    const size_t b = path[k].first, e = k + 1 < path.size() ? path[k + 1].first : n;
    if (path[k].second >= 0) {
      out->push_back(path[k].second);
      continue;
    }
    // Unknown: consecutive unknown characters fuse into one <unk>, or become their bytes with byte_fallback.
    size_t end = e;
    while (k + 1 < path.size() && path[k + 1].second < 0) {
      ++k;
      end = k + 1 < path.size() ? path[k + 1].first : n;
    }
    bool fell_back = byte_fallback_;
    for (size_t i = b; i < end; ++i) fell_back = fell_back && byte_token_[static_cast<unsigned char>(s[i])] >= 0;
    if (fell_back)
      for (size_t i = b; i < end; ++i) out->push_back(byte_token_[static_cast<unsigned char>(s[i])]);
    else if (unk_id_ >= 0)
      out->push_back(unk_id_);
    else  // Hugging Face: "Encountered an unknown token but `unk_id` is missing"
      report_pipeline_failure(subst(tr("the Unigram model has no unk_id, so '{0}' cannot be tokenized (Hugging Face "
                                       "refuses it too)"),
                                    {std::string(utf8_prefix(s.substr(b, end - b), 40))}));
  }
}

void Tokenizer::encode_piece(std::string_view piece, std::vector<int>* out) const {
  if (piece.empty()) return;
  switch (model_) {
    case TokenizerModel::BPE: encode_bpe(piece, out); return;
    case TokenizerModel::WordPiece: encode_wordpiece(piece, out); return;
    case TokenizerModel::Unigram: encode_unigram(piece, out); return;
  }
}

// [SECTION] encode / decode

std::vector<int> Tokenizer::encode(std::string_view text, bool add_special) const {
  (void)take_pipeline_failure();  // a failure of an earlier text must not cut this one short
  std::vector<int> ids;
  if (add_special) ids = prefix_ids_;
  std::vector<Segment> segments{{std::string(text), -1, true}};
  split_added(&segments, false);
  if (!normalizer_.empty())
    for (Segment& seg : segments)
      if (seg.added_id < 0) seg.text = normalizer_.apply(seg.text);
  split_added(&segments, true);
  // Words repeat: each distinct short piece is tokenized once per call.
  std::unordered_map<std::string, std::vector<int>> cache;
  for (const Segment& seg : segments) {
    if (seg.added_id >= 0) {
      ids.push_back(seg.added_id);
      continue;
    }
    if (seg.text.empty() || pipeline_failure_pending()) continue;
    for (const PreToken& p : pre_tokenizer_.apply({{seg.text, seg.at_start}})) {
      if (pipeline_failure_pending()) break;
      if (p.text.size() > 48) {
        encode_piece(p.text, &ids);
        continue;
      }
      auto [it, fresh] = cache.try_emplace(p.text);
      if (fresh) encode_piece(p.text, &it->second);
      ids.insert(ids.end(), it->second.begin(), it->second.end());
    }
  }
  if (add_special) ids.insert(ids.end(), suffix_ids_.begin(), suffix_ids_.end());
  return ids;
}

bool Tokenizer::encode_checked(std::string_view text, bool add_special, std::vector<int>* ids,
                               std::string* error) const {
  std::vector<int> out = encode(text, add_special);
  if (const std::string failure = take_pipeline_failure(); !failure.empty()) {
    *error = (source_.empty() ? std::string("tokenizer.json") : source_) + ": " + failure;
    return false;
  }
  if (std::string dropped = dropped_text_error(*this, text, out); !dropped.empty()) {
    *error = std::move(dropped);
    return false;
  }
  *ids = std::move(out);
  return true;
}

std::vector<std::string> Tokenizer::pre_split(std::string_view text) const {
  (void)take_pipeline_failure();
  std::vector<Segment> segments{{std::string(text), -1, true}};
  split_added(&segments, false);
  for (Segment& seg : segments)
    if (seg.added_id < 0) seg.text = normalizer_.apply(seg.text);
  split_added(&segments, true);
  std::vector<std::string> out;
  for (const Segment& seg : segments) {
    if (seg.added_id >= 0) {
      out.push_back(seg.text);
      continue;
    }
    for (const PreToken& p : pre_tokenizer_.apply({{seg.text, seg.at_start}})) {
      if (!pre_tokenizer_.byte_level()) {
        out.push_back(p.text);
        continue;
      }
      std::string bytes;
      for (const std::string& ch : utf8_chars(p.text)) {
        const int b = byte_level_byte(ch);
        if (b >= 0)
          bytes.push_back(char(b));
        else
          bytes += ch;
      }
      out.push_back(bytes);
    }
  }
  return out;
}

struct Tokenizer::Decoder {
  enum Kind { ByteLevel, Metaspace, ByteFallback, Fuse, Strip, ReplaceString, ReplaceRegex, WordPiece, BpeSuffix } kind;
  std::string a, b;  // Metaspace: replacement; Strip: content; Replace: pattern, content; WordPiece: prefix; suffix
  UnicodeRegex regex;
  bool flag = true;  // Metaspace: strip the prepended space; WordPiece: cleanup
  int start = 0, stop = 0;
};

namespace {

std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  std::string out;
  size_t i = 0;
  for (size_t k; (k = s.find(from, i)) != std::string::npos; i = k + from.size()) out.append(s, i, k - i) += to;
  return out.append(s, i, std::string::npos);
}

int byte_token_value(const std::string& t) {  // <0xNN> → NN, else -1
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int v = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = t[size_t(k)];
    const int d = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

std::string byte_level_decode(const std::string& t) {  // all characters from the byte alphabet, else t itself
  std::string bytes;
  for (size_t i = 0; i < t.size();) {
    const size_t n = std::max<size_t>(utf8_sequence_length(t, i), 1);
    const int b = byte_level_byte(std::string_view(t).substr(i, n));
    if (b < 0) return t;
    bytes.push_back(char(b));
    i += n;
  }
  return bytes;
}

std::string wordpiece_cleanup(std::string s) {
  for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{{" .", "."},
                                                                                           {" ?", "?"},
                                                                                           {" !", "!"},
                                                                                           {" ,", ","},
                                                                                           {" ' ", "'"},
                                                                                           {" n't", "n't"},
                                                                                           {" 'm", "'m"},
                                                                                           {" do not", " don't"},
                                                                                           {" 's", "'s"},
                                                                                           {" 've", "'ve"},
                                                                                           {" 're", "'re"}})
    s = replace_all(s, from, to);
  return s;
}

void run_decoder(const Tokenizer::Decoder& d, std::vector<std::string>* tokens) {
  using D = Tokenizer::Decoder;
  std::vector<std::string>& t = *tokens;
  switch (d.kind) {
    case D::ByteLevel: {
      std::string all;
      for (const std::string& s : t) all += byte_level_decode(s);
      t = {all};
      return;
    }
    case D::Fuse: {
      std::string all;
      for (const std::string& s : t) all += s;
      t = {all};
      return;
    }
    case D::ByteFallback: {
      std::vector<std::string> out;
      std::string bytes;
      const auto flush = [&] {
        if (bytes.empty()) return;
        if (valid_utf8(bytes))
          out.push_back(bytes);
        else
          for (size_t k = 0; k < bytes.size(); ++k) out.push_back("\xEF\xBF\xBD");
        bytes.clear();
      };
      for (const std::string& s : t) {
        const int v = byte_token_value(s);
        if (v >= 0) {
          bytes.push_back(char(v));
          continue;
        }
        flush();
        out.push_back(s);
      }
      flush();
      t = std::move(out);
      return;
    }
    case D::Metaspace:
      for (size_t k = 0; k < t.size(); ++k) {
        t[k] = replace_all(t[k], d.a, " ");
        if (k == 0 && d.flag && !t[k].empty() && t[k][0] == ' ') t[k].erase(0, 1);
      }
      return;
    case D::Strip:
      for (std::string& s : t) {
        for (int k = 0; k < d.start && s.compare(0, d.a.size(), d.a) == 0 && !d.a.empty(); ++k) s.erase(0, d.a.size());
        for (int k = 0; k < d.stop && !d.a.empty() && s.size() >= d.a.size() &&
                        s.compare(s.size() - d.a.size(), d.a.size(), d.a) == 0;
             ++k)
          s.erase(s.size() - d.a.size());
      }
      return;
    case D::ReplaceString:
      for (std::string& s : t) s = replace_all(s, d.a, d.b);
      return;
    case D::ReplaceRegex:
      for (std::string& s : t) {
        std::string out;
        size_t at = 0;
        for (const auto& [b, e] : d.regex.find_all(s)) out.append(s, at, b - at) += d.b, at = e;
        s = out.append(s, at, std::string::npos);
      }
      return;
    case D::WordPiece:
      for (size_t k = 0; k < t.size(); ++k) {
        if (k > 0) {
          if (t[k].compare(0, d.a.size(), d.a) == 0)
            t[k].erase(0, d.a.size());
          else
            t[k] = " " + t[k];
        }
        if (d.flag) t[k] = wordpiece_cleanup(t[k]);
      }
      return;
    case D::BpeSuffix:
      for (size_t k = 0; k < t.size(); ++k) t[k] = replace_all(t[k], d.a, k + 1 < t.size() ? " " : "");
      return;
  }
}

}  // namespace

std::string Tokenizer::decode(const std::vector<int>& ids, bool skip_special) const {
  (void)take_pipeline_failure();  // an earlier encoding's failure must not silence the decoder's regexes
  std::vector<std::string> tokens;
  for (int id : ids) {
    if (id < 0 || id >= vocab_size()) continue;
    if (skip_special && is_special(id)) continue;
    tokens.push_back(id_to_token_[size_t(id)]);
  }
  if (decoders_.empty()) {  // no decoder: the tokens as they are, joined (the reference joins with spaces)
    std::string out;
    for (size_t k = 0; k < tokens.size(); ++k) out += (k ? " " : "") + tokens[k];
    return out;
  }
  for (const auto& d : decoders_) run_decoder(*d, &tokens);
  std::string out;
  for (const std::string& s : tokens) out += s;
  return out;
}

const std::string& Tokenizer::token_string(int id) const {
  static const std::string empty;
  return id >= 0 && id < vocab_size() ? id_to_token_[static_cast<size_t>(id)] : empty;
}

bool Tokenizer::is_special(int id) const { return id >= 0 && id < vocab_size() && special_[size_t(id)]; }

int Tokenizer::token_id(std::string_view token) const {
  auto it = vocab_.find(token);
  return it == vocab_.end() ? -1 : it->second;
}

void Tokenizer::set_bos(int id, bool add) {
  bos_id_ = id;
  prefix_ids_.clear();
  if (add && id >= 0) prefix_ids_.push_back(id);
}

std::string Tokenizer::token_bytes(int id) const {
  const std::string& s = token_string(id);
  if (id >= 0 && id < vocab_size() && added_index_[size_t(id)] >= 0) return s;
  if (const int v = byte_token_value(s); v >= 0 && byte_token_[v] == id) return std::string(1, char(v));
  if (kind_ == BpeKind::ByteLevel) return byte_level_decode(s);
  std::string out = s;
  if (model_ == TokenizerModel::WordPiece && !subword_prefix_.empty() &&
      out.compare(0, subword_prefix_.size(), subword_prefix_) == 0)
    out.erase(0, subword_prefix_.size());
  const std::string& rep =
      pre_tokenizer_.metaspace() ? pre_tokenizer_.metaspace_replacement() : std::string(kMetaspace);
  return replace_all(out, rep, " ");
}

std::string Tokenizer::label(int id) const { return display_token(*this, id).text; }

// [SECTION] tokenizer.json

namespace {

using nlohmann::json;

constexpr int kMaxVocab = 1 << 21;  // bounds hostile ids before any allocation (Gemma 3 has 262144 tokens)

std::string type_of(const json& j) {
  return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>() : "";
}

std::string get_string(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool parse_decoder(const json& j, std::vector<std::shared_ptr<const Tokenizer::Decoder>>* out, std::string* error,
                   int depth) {
  using D = Tokenizer::Decoder;
  if (j.is_null()) return true;
  std::string type;
  if (!open_component(j, tr("decoder"), N_("decoders are nested too deeply"), depth, &type, error)) return false;
  if (type == "Sequence")
    return read_sequence(
        j, tr("decoder"), "decoders", [&](const json& d) { return parse_decoder(d, out, error, depth + 1); },
        [&] { return out->size(); }, error);
  auto d = std::make_shared<D>();
  if (type == "ByteLevel") {
    d->kind = D::ByteLevel;
  } else if (type == "Fuse") {
    d->kind = D::Fuse;
  } else if (type == "ByteFallback") {
    d->kind = D::ByteFallback;
  } else if (type == "Metaspace") {
    d->kind = D::Metaspace;
    d->a = j.contains("replacement") && j["replacement"].is_string() ? j["replacement"].get<std::string>() : kMetaspace;
    std::string scheme = json_bool(j, "add_prefix_space", true) ? "always" : "never";
    if (j.contains("prepend_scheme") && j["prepend_scheme"].is_string())
      scheme = j["prepend_scheme"].get<std::string>();
    d->flag = scheme != "never";
  } else if (type == "Strip") {
    d->kind = D::Strip;
    d->a = get_string(j, "content");
    d->start =
        j.contains("start") && j["start"].is_number_integer() ? std::clamp(j["start"].get<int>(), 0, 1 << 20) : 0;
    d->stop = j.contains("stop") && j["stop"].is_number_integer() ? std::clamp(j["stop"].get<int>(), 0, 1 << 20) : 0;
  } else if (type == "Replace") {
    const json pattern = j.contains("pattern") && j["pattern"].is_object() ? j["pattern"] : json::object();
    d->b = get_string(j, "content");
    if (pattern.contains("String") && pattern["String"].is_string()) {
      d->kind = D::ReplaceString;
      d->a = pattern["String"].get<std::string>();
    } else if (pattern.contains("Regex") && pattern["Regex"].is_string()) {
      d->kind = D::ReplaceRegex;
      if (!d->regex.compile(pattern["Regex"].get<std::string>(), error, "decoder Replace")) return false;
    } else {
      *error = tr("decoder Replace needs a pattern {\"String\": …} or {\"Regex\": …}");
      return false;
    }
  } else if (type == "WordPiece") {
    d->kind = D::WordPiece;
    d->a = j.contains("prefix") && j["prefix"].is_string() ? j["prefix"].get<std::string>() : "##";
    d->flag = json_bool(j, "cleanup", true);
  } else if (type == "BPEDecoder") {
    d->kind = D::BpeSuffix;
    d->a = j.contains("suffix") && j["suffix"].is_string() ? j["suffix"].get<std::string>() : "</w>";
  } else {
    *error = subst(tr("unknown decoder '{0}'"), {type});
    return false;
  }
  out->push_back(std::move(d));
  return true;
}

// The special tokens a post-processor puts before and after one sequence.
bool parse_post(const json& j, const Tokenizer& t, std::vector<int>* prefix, std::vector<int>* suffix,
                std::string* error, int depth) {
  if (j.is_null()) return true;
  std::string type;
  if (!open_component(j, tr("post-processor"), N_("post-processors are nested too deeply"), depth, &type, error))
    return false;
  if (type == "Sequence")  // no step limit: a post-processor only adds tokens at the ends, once
    return read_sequence(
        j, tr("post-processor"), "processors",
        [&](const json& p) { return parse_post(p, t, prefix, suffix, error, depth + 1); }, nullptr, error);
  if (type == "ByteLevel") return true;  // offsets only
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    const auto id_of = [&](const char* key, int* id) {
      if (!j.contains(key) || !j[key].is_array() || j[key].size() != 2 || !j[key][1].is_number_integer()) return false;
      *id = j[key][1].get<int>();
      return *id >= 0 && *id < t.vocab_size();
    };
    int cls = -1, sep = -1;
    if (!id_of("cls", &cls) || !id_of("sep", &sep)) {
      *error = subst(tr("post-processor {0} needs 'cls' and 'sep' as [token, id] with ids in the vocabulary"), {type});
      return false;
    }
    *prefix = {cls};
    *suffix = {sep};
    return true;
  }
  if (type == "TemplateProcessing") {
    if (!j.contains("single") || !j["single"].is_array()) {
      *error = tr("post-processor TemplateProcessing needs a 'single' list");
      return false;
    }
    std::vector<int> pre, post;
    bool seen_sequence = false;
    for (const json& item : j["single"]) {
      if (item.is_object() && item.contains("Sequence")) {
        seen_sequence = true;
        continue;
      }
      const json st = item.is_object() && item.contains("SpecialToken") ? item["SpecialToken"] : json();
      const std::string name = get_string(st, "id");
      if (name.empty()) {
        *error = tr("post-processor TemplateProcessing: every item of 'single' must be a Sequence or a SpecialToken");
        return false;
      }
      std::vector<int> ids;
      const json specials =
          j.contains("special_tokens") && j["special_tokens"].is_object() ? j["special_tokens"] : json::object();
      if (specials.contains(name) && specials[name].is_object() && specials[name].contains("ids") &&
          specials[name]["ids"].is_array()) {
        for (const json& v : specials[name]["ids"])
          if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < t.vocab_size())
            ids.push_back(v.get<int>());
      } else if (const int id = t.token_id(name); id >= 0) {
        ids.push_back(id);
      }
      if (ids.empty()) {
        *error = subst(tr("post-processor TemplateProcessing names the special token '{0}', which has no id"), {name});
        return false;
      }
      (seen_sequence ? post : pre).insert((seen_sequence ? post : pre).end(), ids.begin(), ids.end());
    }
    *prefix = std::move(pre);
    *suffix = std::move(post);
    return true;
  }
  *error = subst(tr("unknown post-processor '{0}'"), {type});
  return false;
}

void trie_insert(std::vector<std::unordered_map<unsigned char, int>>* next, std::vector<int>* token,
                 const std::string& s, int index) {
  if (s.empty()) return;
  int node = 0;
  for (unsigned char c : s) {
    auto it = (*next)[size_t(node)].find(c);
    if (it == (*next)[size_t(node)].end()) {
      next->emplace_back();
      token->push_back(-1);
      const int fresh = int(next->size()) - 1;
      (*next)[size_t(node)][c] = fresh;
      node = fresh;
    } else {
      node = it->second;
    }
  }
  if ((*token)[size_t(node)] < 0) (*token)[size_t(node)] = index;
}

}  // namespace

// tokenizer.json's parts, read into a Tokenizer in the order the file needs them (the vocabulary before the merges
// and the post-processor, which name its tokens). Each step returns "" or the problem, translated; `notes` collects
// what was approximated.
struct TokenizerJsonReader {
  using Notes = std::vector<std::string>;

  // model.type (or what the model's keys imply: merges → BPE, a list vocab → Unigram).
  static std::string model_type(const json& model, Tokenizer& t) {
    std::string type = type_of(model);
    if (type.empty())
      type = model.contains("merges") ? "BPE" : model.contains("vocab") && model["vocab"].is_array() ? "Unigram" : "";
    if (const std::string bad = option_type_error(model, "model " + (type.empty() ? "BPE" : type)); !bad.empty())
      return bad;
    if (type == "BPE")
      t.model_ = TokenizerModel::BPE;
    else if (type == "WordPiece")
      t.model_ = TokenizerModel::WordPiece;
    else if (type == "Unigram")
      t.model_ = TokenizerModel::Unigram;
    else
      return subst(tr("unknown model type '{0}'"), {type});
    return "";
  }

  // Unigram's [piece, score] list: ids in order, scores finite, over-long pieces never matched.
  static std::string unigram_vocab(const json& model, Tokenizer& t, int* max_id, Notes* notes) {
    if (!model.contains("vocab") || !model["vocab"].is_array())
      return tr("model.vocab must be a list of [piece, score]");
    const json& vocab = model["vocab"];
    if (vocab.size() >= size_t(kMaxVocab)) return tr("model.vocab has too many entries");
    double min_score = 0;
    int long_pieces = 0;
    for (size_t id = 0; id < vocab.size(); ++id) {
      const json& e = vocab[id];
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
        return subst(tr("model.vocab entry {0} is not [piece, score]"), {std::to_string(id)});
      const std::string piece = e[0].get<std::string>();
      const double score = e[1].get<double>();
      if (!std::isfinite(score))
        return subst(tr("model.vocab entry {0} ('{1}') has the score {2}; a score must be a finite number"),
                     {std::to_string(id), std::string(utf8_prefix(piece, 40)), e[1].dump()});
      t.vocab_.emplace(piece, int(id));
      t.scores_.push_back(score);
      min_score = std::min(min_score, score);
      if (piece.size() > kMaxUnigramPieceBytes)
        ++long_pieces;
      else
        t.max_piece_bytes_ = std::max(t.max_piece_bytes_, piece.size());
    }
    if (long_pieces > 0)
      notes->push_back(subst(trn("{0} Unigram piece is longer than {1} bytes and is never matched",
                                 "{0} Unigram pieces are longer than {1} bytes and are never matched", long_pieces),
                             {std::to_string(long_pieces), std::to_string(kMaxUnigramPieceBytes)}));
    t.unk_score_ = min_score - 10;
    *max_id = int(vocab.size()) - 1;
    if (model.contains("unk_id") && model["unk_id"].is_number_integer()) {
      const int64_t u = model["unk_id"].get<int64_t>();
      if (u < 0 || u > *max_id) return tr("model.unk_id is out of range");
      t.unk_id_ = int(u);
    }
    return "";
  }

  // BPE's and WordPiece's {token: id} object.
  static std::string vocab_object(const json& model, Tokenizer& t, int* max_id) {
    if (!model.contains("vocab") || !model["vocab"].is_object()) return tr("model.vocab must be an object");
    t.vocab_.reserve(model["vocab"].size() + 1024);
    for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
      if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() >= kMaxVocab)
        return subst(tr("vocab id of '{0}' must be an integer in 0..{1}"), {it.key(), std::to_string(kMaxVocab - 1)});
      const int id = it.value().get<int>();
      t.vocab_[it.key()] = id;
      *max_id = std::max(*max_id, id);
    }
    return "";
  }

  // The top-level added_tokens list, with Hugging Face's defaults for the flags a file leaves out.
  static std::string added_tokens(const json& j, std::vector<AddedToken>* added, int* max_id) {
    if (j.contains("added_tokens") && !j["added_tokens"].is_array() && !j["added_tokens"].is_null())
      return tr("added_tokens must be a list of {\"id\": …, \"content\": …} entries");
    if (!j.contains("added_tokens") || !j["added_tokens"].is_array()) return "";
    for (const json& a : j["added_tokens"]) {
      if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || !a.contains("content") ||
          !a["content"].is_string())
        return tr("every added_tokens entry needs an integer 'id' and a string 'content'");
      for (const char* key : {"special", "normalized", "lstrip", "rstrip", "single_word"})
        if (a.contains(key) && !a[key].is_boolean())
          return subst(tr("added token '{0}': '{1}' must be true or false, not {2}"),
                       {a["content"].get<std::string>(), key, a[key].dump()});
      const int64_t id = a["id"].get<int64_t>();
      if (id < 0 || id >= kMaxVocab) return subst(tr("added token id {0} is out of range"), {std::to_string(id)});
      AddedToken tok;
      tok.content = a["content"].get<std::string>();
      tok.id = int(id);
      tok.special = json_bool(a, "special", false);
      tok.normalized = json_bool(a, "normalized", !tok.special);
      tok.lstrip = json_bool(a, "lstrip", false);
      tok.rstrip = json_bool(a, "rstrip", false);
      tok.single_word = json_bool(a, "single_word", false);
      added->push_back(std::move(tok));
      *max_id = std::max(*max_id, static_cast<int>(id));
    }
    return "";
  }

  // The id → token tables (vocabulary and added tokens) and the <0xNN> byte tokens.
  static void id_tables(Tokenizer& t, const std::vector<AddedToken>& added, int max_id) {
    t.id_to_token_.assign(static_cast<size_t>(max_id + 1), std::string());
    t.special_.assign(static_cast<size_t>(max_id + 1), 0);
    t.added_index_.assign(static_cast<size_t>(max_id + 1), -1);
    for (const auto& [token, id] : t.vocab_) t.id_to_token_[static_cast<size_t>(id)] = token;
    for (size_t k = 0; k < added.size(); ++k) {
      const AddedToken& a = added[k];
      t.id_to_token_[size_t(a.id)] = a.content;
      t.special_[size_t(a.id)] = a.special;
      t.added_index_[size_t(a.id)] = int(k);
      t.vocab_.emplace(a.content, a.id);
    }
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof name, "<0x%02X>", b);
      t.byte_token_[b] = t.token_id(name);
    }
  }

  // The model's options: byte fallback, merges ignored, prefixes and suffixes, the unknown token.
  static void model_options(const json& model, Tokenizer& t, Notes* notes) {
    t.byte_fallback_ = json_bool(model, "byte_fallback", false);
    t.ignore_merges_ = json_bool(model, "ignore_merges", false);
    t.fuse_unk_ = json_bool(model, "fuse_unk", false);
    t.subword_prefix_ = get_string(model, "continuing_subword_prefix");
    t.word_suffix_ = get_string(model, "end_of_word_suffix");
    if (t.model_ == TokenizerModel::WordPiece) {
      if (t.subword_prefix_.empty() && !model.contains("continuing_subword_prefix")) t.subword_prefix_ = "##";
      if (model.contains("max_input_chars_per_word") && model["max_input_chars_per_word"].is_number_integer())
        t.max_word_chars_ = std::clamp(model["max_input_chars_per_word"].get<int>(), 1, 1 << 20);
    }
    if (t.model_ != TokenizerModel::Unigram && model.contains("unk_token") && model["unk_token"].is_string()) {
      t.unk_token_ = model["unk_token"].get<std::string>();
      t.unk_id_ = t.token_id(t.unk_token_);
    }
    if (t.model_ == TokenizerModel::WordPiece && t.unk_token_.empty()) {  // the reference's default
      t.unk_token_ = "[UNK]";
      t.unk_id_ = t.token_id(t.unk_token_);
    }
    if (model.contains("dropout") && model["dropout"].is_number() && model["dropout"].get<double>() > 0)
      notes->push_back(tr("BPE dropout is ignored (encoding is deterministic)"));
  }

  // BPE's merges, "a b" or ["a", "b"], ranked in file order; each must name tokens of the vocabulary.
  static std::string merges(const json& model, Tokenizer& t) {
    if (t.model_ != TokenizerModel::BPE || !model.contains("merges")) return "";
    if (!model["merges"].is_array()) return tr("model.merges must be an array");
    int rank = 0;
    std::string a, b, merged;
    t.merges_.reserve(model["merges"].size());
    for (const json& m : model["merges"]) {
      if (m.is_string()) {  // "a b"
        const std::string& s = m.get_ref<const std::string&>();
        const size_t space = s.find(' ', 1);
        if (space == std::string::npos) return subst(tr("merge '{0}' is not two tokens separated by a space"), {s});
        a.assign(s, 0, space);
        b.assign(s, space + 1, std::string::npos);
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {  // ["a", "b"]
        a = m[0].get_ref<const std::string&>();
        b = m[1].get_ref<const std::string&>();
      } else {
        return tr("merges must be strings \"a b\" or pairs [\"a\", \"b\"]");
      }
      merged = a;
      if (!t.subword_prefix_.empty() && b.compare(0, t.subword_prefix_.size(), t.subword_prefix_) == 0)
        merged.append(b, t.subword_prefix_.size(), std::string::npos);
      else
        merged += b;
      const int ia = t.token_id(a), ib = t.token_id(b), im = t.token_id(merged);
      if (ia < 0 || ib < 0 || im < 0)
        return subst(tr("merge #{0} ('{1}' + '{2}') names a token that is not in the vocabulary"),
                     {std::to_string(rank), a, b});
      t.merges_.emplace(bpe_pair_key(ia, ib), std::make_pair(rank, im));  // the first (lowest) rank wins
      ++rank;
    }
    return "";
  }

  // The stages around the model: normalizer, pre-tokenizer, decoder chain, post-processor (BOS/EOS).
  static std::string pipeline(const json& j, Tokenizer& t, Notes* notes) {
    std::string stage_error, note;
    if (!t.normalizer_.from_json(j.contains("normalizer") ? j["normalizer"] : json(), &stage_error, &note))
      return stage_error;
    if (!note.empty()) notes->push_back(note);
    if (!t.pre_tokenizer_.from_json(j.contains("pre_tokenizer") ? j["pre_tokenizer"] : json(), &stage_error))
      return stage_error;
    if (!parse_decoder(j.contains("decoder") ? j["decoder"] : json(), &t.decoders_, &stage_error, 0))
      return stage_error;
    if (!parse_post(j.contains("post_processor") ? j["post_processor"] : json(), t, &t.prefix_ids_, &t.suffix_ids_,
                    &stage_error, 0))
      return stage_error;
    bool byte_level_decoder = false;
    for (const auto& d : t.decoders_)
      byte_level_decoder = byte_level_decoder || d->kind == Tokenizer::Decoder::ByteLevel;
    t.kind_ = t.pre_tokenizer_.byte_level() || byte_level_decoder ? BpeKind::ByteLevel : BpeKind::Metaspace;
    t.bos_id_ = t.prefix_ids_.size() == 1 ? t.prefix_ids_[0] : -1;
    t.eos_id_ = t.suffix_ids_.size() == 1 ? t.suffix_ids_[0] : -1;
    return "";
  }

  // Added tokens are matched first: a trie over the raw text for the non-normalized ones, over the normalized text
  // for the others.
  static void added_tries(Tokenizer& t, std::vector<AddedToken> added) {
    t.added_ = std::move(added);
    for (size_t k = 0; k < t.added_.size(); ++k) {
      const AddedToken& a = t.added_[k];
      if (a.normalized)
        trie_insert(&t.normalized_trie_.next, &t.normalized_trie_.token, t.normalizer_.apply(a.content), int(k));
      else
        trie_insert(&t.raw_trie_.next, &t.raw_trie_.token, a.content, int(k));
    }
  }
};

bool tokenizer_from_json(const std::string& text, Tokenizer* out, std::string* error) {
  const auto fail = [&](const std::string& m) {  // m is translated; the prefix stays ASCII (load_tokenizer)
    *error = "tokenizer.json: ";
    for (char c : m) error->append(c == '\n' ? "\\n" : c == '\r' ? "\\r" : std::string(1, c));  // one line
    return false;
  };
  using R = TokenizerJsonReader;
  json j;
  std::string why;
  if (!parse_json_object(text, &j, &why)) return fail(why);
  Tokenizer t;
  std::fill(std::begin(t.byte_token_), std::end(t.byte_token_), -1);
  R::Notes notes;
  if (!j.contains("model") || !j["model"].is_object()) return fail(tr("missing the 'model' object"));
  const json& model = j["model"];
  int max_id = -1;
  std::vector<AddedToken> added;
  std::string problem = R::model_type(model, t);
  if (problem.empty())
    problem = t.model_ == TokenizerModel::Unigram ? R::unigram_vocab(model, t, &max_id, &notes)
                                                  : R::vocab_object(model, t, &max_id);
  if (problem.empty()) problem = R::added_tokens(j, &added, &max_id);
  if (!problem.empty()) return fail(problem);
  R::id_tables(t, added, max_id);
  R::model_options(model, t, &notes);
  if (problem = R::merges(model, t); problem.empty()) problem = R::pipeline(j, t, &notes);
  if (!problem.empty()) return fail(problem);
  R::added_tries(t, std::move(added));
  for (size_t k = 0; k < notes.size(); ++k) t.note_ += (k ? "; " : "") + notes[k];
  (void)take_pipeline_failure();  // normalizing the added tokens above reports nothing to the next encoding
  *out = std::move(t);
  return true;
}

bool load_tokenizer(const std::string& path, Tokenizer* out, std::string* error) {
  // The bounded reader: a FIFO, /dev/zero or a file over the tokenizer cap is refused before a byte is read.
  std::string text;
  if (!read_file_bounded(path, kMaxTokenizerBytes, &text, error)) return false;
  if (!tokenizer_from_json(text, out, error)) {
    *error = path + ": " + error->substr(std::string("tokenizer.json: ").size());
    return false;
  }
  out->source_ = path;
  return true;
}

std::string dropped_text_error(const Tokenizer& t, std::string_view text, const std::vector<int>& ids) {
  if (text.empty() || std::any_of(ids.begin(), ids.end(), [&](int id) { return !t.is_special(id); })) return "";
  // Special ids alone are no drop when the text itself holds them (<|endoftext|> typed as text is [50256], as in
  // Hugging Face): only the post-processor's own BOS/EOS around nothing is.
  if (!t.encode(text, false).empty()) return "";
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) i += std::max<size_t>(utf8_sequence_length(text, i), 1);
  return subst(trn("the tokenizer turned the text ({0} character) into no tokens: it is not in the vocabulary, and "
                   "the tokenizer has no unknown token and no byte fallback",
                   "the tokenizer turned the text ({0} characters) into no tokens: none of them is in the "
                   "vocabulary, and the tokenizer has no unknown token and no byte fallback",
                   chars),
               {std::to_string(chars)});
}

}  // namespace tw
