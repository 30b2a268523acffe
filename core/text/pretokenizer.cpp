#include "core/text/pretokenizer.h"

#include <unicode/uchar.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/text/tokenizer_json.h"
#include "core/text/unicode_regex.h"

namespace tw {

using nlohmann::json;

// [SECTION] splitting by matches

std::vector<std::pair<size_t, size_t>> split_by_matches(size_t length,
                                                        const std::vector<std::pair<size_t, size_t>>& matches,
                                                        SplitBehavior behavior, bool invert) {
  // The text as alternating (range, is_match) parts, as the reference's find_matches gives them.
  std::vector<std::pair<std::pair<size_t, size_t>, bool>> parts;
  size_t prev = 0;
  for (const auto& [b, e] : matches) {
    if (b < prev || e < b || e > length) continue;  // defensive: matches come sorted and disjoint
    if (prev != b) parts.push_back({{prev, b}, invert});
    parts.push_back({{b, e}, !invert});
    prev = e;
  }
  if (prev != length) parts.push_back({{prev, length}, invert});

  std::vector<std::pair<size_t, size_t>> out;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::Isolated:
      for (const auto& p : parts) out.push_back(p.first);
      break;
    case SplitBehavior::Removed:
      for (const auto& p : parts)
        if (!p.second) out.push_back(p.first);
      break;
    case SplitBehavior::MergedWithPrevious:
      for (const auto& [r, is_match] : parts) {
        if (is_match && !previous_match && !out.empty())
          out.back().second = r.second;
        else
          out.push_back(r);
        previous_match = is_match;
      }
      break;
    case SplitBehavior::MergedWithNext:
      for (size_t k = parts.size(); k-- > 0;) {
        const auto& [r, is_match] = parts[k];
        if (is_match && !previous_match && !out.empty())
          out.back().first = r.first;
        else
          out.push_back(r);
        previous_match = is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
    case SplitBehavior::Contiguous:
      for (size_t k = 0; k < parts.size(); ++k) {
        const auto& [r, is_match] = parts[k];
        if (k > 0 && is_match == previous_match)
          out.back().second = r.second;
        else
          out.push_back(r);
        previous_match = is_match;
      }
      break;
  }
  std::vector<std::pair<size_t, size_t>> nonempty;
  for (const auto& r : out)
    if (r.second > r.first) nonempty.push_back(r);
  return nonempty;
}

// [SECTION] byte alphabet

const std::vector<std::string>& byte_level_alphabet() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      append_utf8(&t[size_t(b)], printable ? uint32_t(b) : next++);
    }
    return t;
  }();
  return table;
}

int byte_level_byte(std::string_view ch) {
  static const std::unordered_map<std::string, int> inverse = [] {
    std::unordered_map<std::string, int> m;
    for (int b = 0; b < 256; ++b) m[byte_level_alphabet()[size_t(b)]] = b;
    return m;
  }();
  auto it = inverse.find(std::string(ch));
  return it == inverse.end() ? -1 : it->second;
}

// [SECTION] steps

namespace {

const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

bool is_punctuation(uint32_t cp) {
  if (cp < 0x80)
    return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126);
  switch (u_charType(UChar32(cp))) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION: return true;
    default: return false;
  }
}

bool is_numeric(uint32_t cp) {
  const int8_t t = u_charType(UChar32(cp));
  return t == U_DECIMAL_DIGIT_NUMBER || t == U_LETTER_NUMBER || t == U_OTHER_NUMBER;
}

// Each character for which pred holds is one match (as the reference's char-predicate patterns).
std::vector<std::pair<size_t, size_t>> char_matches(std::string_view s, const std::function<bool(uint32_t)>& pred) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const uint32_t cp = decode_utf8_at(s, i, &len);
    if (pred(cp)) out.emplace_back(i, i + len);
    i += len;
  }
  return out;
}

}  // namespace

struct PreTokenizer::Step {
  enum Kind { Split, ByteLevel, Metaspace, Whitespace, WhitespaceSplit, Punctuation, Digits, Bert } kind = Split;
  UnicodeRegex regex;   // Split (Regex), ByteLevel (use_regex), Whitespace
  std::string literal;  // Split (String)
  bool use_literal = false;
  SplitBehavior behavior = SplitBehavior::Isolated;
  bool invert = false;
  bool add_prefix_space = false;  // ByteLevel
  std::string replacement;        // Metaspace
  enum Prepend { Always, First, Never } prepend = Always;
  bool split = true;               // Metaspace
  bool individual_digits = false;  // Digits

  std::vector<std::pair<size_t, size_t>> matches(std::string_view s) const {
    if (!use_literal) return regex.find_all(s);
    std::vector<std::pair<size_t, size_t>> out;
    if (literal.empty()) return out;
    for (size_t k = s.find(literal); k != std::string_view::npos; k = s.find(literal, k + literal.size()))
      out.emplace_back(k, k + literal.size());
    return out;
  }
};

namespace {

bool parse_behavior(const json& j, SplitBehavior* out, std::string* error) {
  if (!j.contains("behavior")) return true;
  const std::string b = j["behavior"].is_string() ? j["behavior"].get<std::string>() : "";
  static const std::pair<const char*, SplitBehavior> names[] = {
      {"Removed", SplitBehavior::Removed},
      {"Isolated", SplitBehavior::Isolated},
      {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
      {"MergedWithNext", SplitBehavior::MergedWithNext},
      {"Contiguous", SplitBehavior::Contiguous}};
  for (const auto& [name, v] : names)
    if (b == name) {
      *out = v;
      return true;
    }
  *error = subst(tr("unknown split behavior '{0}'"), {b});
  return false;
}

bool parse(const json& j, std::vector<std::shared_ptr<const PreTokenizer::Step>>* steps, std::string* error,
           int depth) {
  using Step = PreTokenizer::Step;
  if (j.is_null()) return true;
  std::string type;
  if (!open_component(j, tr("pre-tokenizer"), N_("pre-tokenizers are nested too deeply"), depth, &type, error))
    return false;
  if (type == "Sequence")
    return read_sequence(
        j, tr("pre-tokenizer"), "pretokenizers", [&](const json& s) { return parse(s, steps, error, depth + 1); },
        [&] { return steps->size(); }, error);
  auto st = std::make_shared<Step>();
  if (type == "Split") {
    st->kind = Step::Split;
    const json pattern = j.contains("pattern") && j["pattern"].is_object() ? j["pattern"] : json::object();
    if (pattern.contains("String") && pattern["String"].is_string()) {
      st->use_literal = true;
      st->literal = pattern["String"].get<std::string>();
    } else if (pattern.contains("Regex") && pattern["Regex"].is_string()) {
      if (!st->regex.compile(pattern["Regex"].get<std::string>(), error, "pre-tokenizer Split")) return false;
    } else {
      *error = tr("pre-tokenizer Split needs a pattern {\"String\": …} or {\"Regex\": …}");
      return false;
    }
    if (!parse_behavior(j, &st->behavior, error)) return false;
    st->invert = json_bool(j, "invert", false);
  } else if (type == "ByteLevel") {
    st->kind = Step::ByteLevel;
    st->add_prefix_space = json_bool(j, "add_prefix_space", true);
    if (json_bool(j, "use_regex", true) && !st->regex.compile(kGpt2Pattern, error, "pre-tokenizer ByteLevel"))
      return false;
  } else if (type == "Metaspace") {
    st->kind = Step::Metaspace;
    st->replacement = j.contains("replacement") && j["replacement"].is_string() ? j["replacement"].get<std::string>()
                                                                                : "\xE2\x96\x81";
    if (st->replacement.empty()) {
      *error = tr("pre-tokenizer Metaspace needs a non-empty 'replacement'");
      return false;
    }
    std::string scheme = json_bool(j, "add_prefix_space", true) ? "always" : "never";
    if (j.contains("prepend_scheme") && j["prepend_scheme"].is_string())
      scheme = j["prepend_scheme"].get<std::string>();
    if (scheme != "always" && scheme != "first" && scheme != "never") {
      *error = subst(tr("unknown Metaspace prepend_scheme '{0}'"), {scheme});
      return false;
    }
    st->prepend = scheme == "always" ? Step::Always : scheme == "first" ? Step::First : Step::Never;
    st->split = json_bool(j, "split", true);
  } else if (type == "Whitespace") {
    st->kind = Step::Whitespace;
    if (!st->regex.compile(R"(\w+|[^\w\s]+)", error, "pre-tokenizer Whitespace")) return false;
  } else if (type == "WhitespaceSplit") {
    st->kind = Step::WhitespaceSplit;
  } else if (type == "Punctuation") {
    st->kind = Step::Punctuation;
    if (!parse_behavior(j, &st->behavior, error)) return false;
  } else if (type == "Digits") {
    st->kind = Step::Digits;
    st->individual_digits = json_bool(j, "individual_digits", false);
  } else if (type == "BertPreTokenizer") {
    st->kind = Step::Bert;
  } else {
    *error = subst(tr("unknown pre-tokenizer '{0}'"), {type});
    return false;
  }
  steps->push_back(std::move(st));
  return true;
}

void push_pieces(const PreToken& piece, const std::vector<std::pair<size_t, size_t>>& ranges,
                 std::vector<PreToken>* out) {
  for (const auto& [b, e] : ranges) out->push_back({piece.text.substr(b, e - b), piece.at_start && b == 0});
}

void apply_step(const PreTokenizer::Step& st, const PreToken& piece, std::vector<PreToken>* out) {
  using Step = PreTokenizer::Step;
  const std::string& s = piece.text;
  switch (st.kind) {
    case Step::Split:
      push_pieces(piece, split_by_matches(s.size(), st.matches(s), st.behavior, st.invert), out);
      return;
    case Step::Whitespace:
      push_pieces(piece, split_by_matches(s.size(), st.regex.find_all(s), SplitBehavior::Removed, true), out);
      return;
    case Step::WhitespaceSplit:
      push_pieces(piece,
                  split_by_matches(s.size(), char_matches(s, [](uint32_t c) { return u_isUWhiteSpace(UChar32(c)); }),
                                   SplitBehavior::Removed, false),
                  out);
      return;
    case Step::Punctuation:
      push_pieces(piece, split_by_matches(s.size(), char_matches(s, is_punctuation), st.behavior, false), out);
      return;
    case Step::Digits:
      push_pieces(piece,
                  split_by_matches(s.size(), char_matches(s, is_numeric),
                                   st.individual_digits ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false),
                  out);
      return;
    case Step::Bert: {
      std::vector<PreToken> words;
      push_pieces(piece,
                  split_by_matches(s.size(), char_matches(s, [](uint32_t c) { return u_isUWhiteSpace(UChar32(c)); }),
                                   SplitBehavior::Removed, false),
                  &words);
      for (const PreToken& w : words)
        push_pieces(
            w, split_by_matches(w.text.size(), char_matches(w.text, is_punctuation), SplitBehavior::Isolated, false),
            out);
      return;
    }
    case Step::ByteLevel: {
      PreToken p = piece;
      if (st.add_prefix_space && (p.text.empty() || p.text[0] != ' ')) p.text.insert(p.text.begin(), ' ');
      std::vector<PreToken> parts;
      if (st.regex.valid())
        push_pieces(p, split_by_matches(p.text.size(), st.regex.find_all(p.text), SplitBehavior::Isolated, false),
                    &parts);
      else if (!p.text.empty())
        parts.push_back(p);
      const auto& alphabet = byte_level_alphabet();
      for (PreToken& part : parts) {
        std::string mapped;
        mapped.reserve(part.text.size() * 2);
        for (unsigned char b : part.text) mapped += alphabet[b];
        out->push_back({std::move(mapped), part.at_start});
      }
      return;
    }
    case Step::Metaspace: {
      std::string t;
      for (char c : s) {
        if (c == ' ')
          t += st.replacement;
        else
          t.push_back(c);
      }
      const bool starts = t.compare(0, st.replacement.size(), st.replacement) == 0;
      if (!starts && (st.prepend == Step::Always || (st.prepend == Step::First && piece.at_start)))
        t = st.replacement + t;
      const PreToken whole{t, piece.at_start};
      if (!st.split) {
        if (!t.empty()) out->push_back(whole);
        return;
      }
      std::vector<std::pair<size_t, size_t>> m;
      for (size_t k = t.find(st.replacement); k != std::string::npos;
           k = t.find(st.replacement, k + st.replacement.size()))
        m.emplace_back(k, k + st.replacement.size());
      push_pieces(whole, split_by_matches(t.size(), m, SplitBehavior::MergedWithNext, false), out);
      return;
    }
  }
}

}  // namespace

bool PreTokenizer::from_json(const json& j, std::string* error) {
  std::vector<std::shared_ptr<const Step>> steps;
  if (!parse(j, &steps, error, 0)) return false;
  steps_ = std::move(steps);
  byte_level_ = false;
  replacement_.clear();
  for (const auto& st : steps_) {
    if (st->kind == Step::ByteLevel) byte_level_ = true;
    if (st->kind == Step::Metaspace) replacement_ = st->replacement;
  }
  return true;
}

std::vector<PreToken> PreTokenizer::apply(std::vector<PreToken> pieces) const {
  for (const auto& st : steps_) {
    std::vector<PreToken> next;
    next.reserve(pieces.size());
    for (const PreToken& p : pieces) apply_step(*st, p, &next);
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace tw
