#pragma once
// Unicode regular expressions for tokenizer.json patterns, on ICU's regex engine (icu::RegexPattern).
//
// Why ICU: it is already linked for Unicode properties, and its engine has what Hugging Face's patterns use —
// \p{L}/\p{N}/\p{Lu}… classes, (?i:…) groups, look-ahead (\s+(?!\S)), possessive quantifiers and nested
// character classes — with the same leftmost-first backtracking semantics as Oniguruma, the engine the
// reference library compiles them with. PCRE2 would need a second library for the same result.
//
// Hugging Face writes its patterns in Oniguruma syntax. Where ICU reads the same text differently,
// oniguruma_to_icu() rewrites it, in this one place:
//   \s, \S          Oniguruma: Unicode White_Space (incl. U+000B, U+0085); ICU: [\t\n\f\r\p{Z}] → \p{White_Space}
//   \h, \H          Oniguruma: hex digit; ICU: horizontal space → [0-9a-fA-F]
//   \pL, \p{^L}     one-letter and negated property forms → \p{L}, \P{L}
//   kept as they are: [a&&b] (intersection in both), [ inside a class (a nested class in both), (?i:…),
//   possessive quantifiers, look-ahead, \x{…}. (ICU also reads "--" in a class as set difference, which
//   Oniguruma does not; no tokenizer pattern we know writes an unescaped "--" in a class.)

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tw {

// The ICU spelling of an Oniguruma pattern (see above).
std::string oniguruma_to_icu(std::string_view pattern);

// [SECTION] pipeline failures
// A step of the tokenizer pipeline that gives up on a text (a regex past its time or stack limit, a normalizer
// growing the text past its bound, an unknown character the model cannot spell) says so here, for the current
// thread, as one line; Tokenizer::encode_checked turns it into a refusal. The first report since the last take
// is kept.
void report_pipeline_failure(const std::string& message);
std::string take_pipeline_failure();
bool pipeline_failure_pending();  // the later steps of a failed encoding skip their work

// ICU's match-engine limits for one find(): steps of roughly a millisecond each, and the heap its backtracking
// stack may use. A catastrophically backtracking pattern ("(a+)+$" on "aaaa…b") stops here instead of hanging.
constexpr int kRegexTimeLimitSteps = 500;
constexpr int kRegexStackLimitBytes = 8 << 20;

class UnicodeRegex {
 public:
  UnicodeRegex() = default;
  // Compiles an Oniguruma pattern; false with a one-line *error naming the problem when ICU refuses it. `where`
  // names the component in a failure report ("pre-tokenizer Split").
  bool compile(std::string_view oniguruma_pattern, std::string* error, std::string_view where = "");
  bool valid() const { return impl_ != nullptr; }
  // Byte ranges [begin, end) of the successive non-overlapping matches in the UTF-8 text, left to right.
  // An invalid byte is matched as U+FFFD (one byte long). A match that runs past the time or stack limit ends the
  // search and is reported (report_pipeline_failure); the matches before it are returned.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view utf8) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace tw
