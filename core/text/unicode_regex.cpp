#include "core/text/unicode_regex.h"

#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <atomic>
#include <unordered_map>
#include <utility>

#include "core/base/i18n.h"
#include "core/base/utf8.h"

namespace tw {

std::string oniguruma_to_icu(std::string_view p) {
  std::string out;
  out.reserve(p.size() + 16);
  int class_depth = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[i + 1];
      if (e == 's' || e == 'S') {
        out += e == 's' ? "\\p{White_Space}" : "\\P{White_Space}";
      } else if (e == 'h' || e == 'H') {
        out += e == 'h' ? (class_depth ? "0-9a-fA-F" : "[0-9a-fA-F]") : "[^0-9a-fA-F]";
      } else if ((e == 'p' || e == 'P') && i + 2 < p.size() && p[i + 2] != '{') {
        out += std::string("\\") + e + "{" + p[i + 2] + "}";  // \pL → \p{L}
        ++i;
      } else if ((e == 'p' || e == 'P') && i + 3 < p.size() && p[i + 2] == '{' && p[i + 3] == '^') {
        out += std::string("\\") + (e == 'p' ? 'P' : 'p') + "{";  // \p{^L} → \P{L}
        i += 2;
      } else {
        out += c;
        out += e;
      }
      ++i;
      continue;
    }
    if (c == '[') ++class_depth;
    if (c == ']' && class_depth > 0) --class_depth;
    out += c;
  }
  return out;
}

// [SECTION] pipeline failures

namespace {
thread_local std::string t_pipeline_failure;

// The pattern quoted with its line breaks and tabs escaped, so a message stays one line (a tokenizer.json pattern
// may hold a raw newline; the fuzzer found one); a long one is cut.
std::string shown_pattern(std::string_view pattern) {
  std::string shown;
  for (char c : pattern) shown += c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : std::string(1, c);
  if (shown.size() > 120) shown = std::string(utf8_prefix(shown, 117)) + "...";
  return shown;
}
}  // namespace

void report_pipeline_failure(const std::string& message) {
  if (t_pipeline_failure.empty()) t_pipeline_failure = message;
}

std::string take_pipeline_failure() { return std::exchange(t_pipeline_failure, std::string()); }

bool pipeline_failure_pending() { return !t_pipeline_failure.empty(); }

// [SECTION] regex

struct UnicodeRegex::Impl {
  std::unique_ptr<icu::RegexPattern> pattern;
  uint64_t serial = 0;  // tells the per-thread matcher cache which pattern a matcher belongs to
  std::string shown;    // the pattern as a message quotes it
  std::string where;    // the component that compiled it
};

bool UnicodeRegex::compile(std::string_view pattern, std::string* error, std::string_view where) {
  const std::string icu_text = oniguruma_to_icu(pattern);
  UErrorCode status = U_ZERO_ERROR;
  UParseError parse{};
  auto impl = std::make_shared<Impl>();
  impl->pattern.reset(icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(icu_text), 0, parse, status));
  impl->shown = shown_pattern(pattern);
  impl->where = where;
  if (U_FAILURE(status) || !impl->pattern) {
    *error = subst(tr("the regular expression '{0}' does not compile ({1} at offset {2})"),
                   {impl->shown, u_errorName(status), std::to_string(parse.offset)});
    if (!where.empty()) *error = std::string(where) + ": " + *error;
    return false;
  }
  static std::atomic<uint64_t> serial{0};
  impl->serial = ++serial;
  impl_ = std::move(impl);
  return true;
}

std::vector<std::pair<size_t, size_t>> UnicodeRegex::find_all(std::string_view s) const {
  std::vector<std::pair<size_t, size_t>> out;
  if (!impl_ || s.empty() || pipeline_failure_pending()) return out;
  // UTF-16 for ICU, with the byte offset of every UTF-16 unit (and one past the end).
  icu::UnicodeString u;
  std::vector<size_t> byte_at;
  byte_at.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    const uint32_t cp = decode_utf8_at(s, i, &len);
    u.append(static_cast<UChar32>(cp));
    byte_at.push_back(i);
    if (cp >= 0x10000) byte_at.push_back(i);
    i += len;
  }
  byte_at.push_back(s.size());
  // A compiled matcher per thread and pattern: creating one costs more than matching a short piece. The cache
  // holds the pattern too, so a matcher never outlives the pattern it reads.
  struct Cached {
    std::shared_ptr<const Impl> owner;
    std::unique_ptr<icu::RegexMatcher> matcher;
  };
  thread_local std::unordered_map<uint64_t, Cached> matchers;
  UErrorCode status = U_ZERO_ERROR;
  auto found = matchers.find(impl_->serial);
  if (found == matchers.end()) {
    if (matchers.size() >= 64) matchers.clear();
    std::unique_ptr<icu::RegexMatcher> fresh(impl_->pattern->matcher(status));
    if (U_FAILURE(status) || !fresh) return out;
    fresh->setTimeLimit(kRegexTimeLimitSteps, status);
    fresh->setStackLimit(kRegexStackLimitBytes, status);
    if (U_FAILURE(status)) return out;
    found = matchers.emplace(impl_->serial, Cached{impl_, std::move(fresh)}).first;
  }
  icu::RegexMatcher* m = found->second.matcher.get();
  m->reset(u);
  // find(from) resets the matcher's clock, so the time limit bounds each match (ICU's plain find() counts from the
  // last reset: a 2.4 MB corpus ran past it on the GPT-2 pattern). After an empty match the next search starts
  // one code point later, as find() does.
  for (int32_t from = 0; from <= u.length() && m->find(from, status) && U_SUCCESS(status);) {
    const int32_t b = m->start(status), e = m->end(status);
    if (U_FAILURE(status)) break;
    out.emplace_back(byte_at[size_t(b)], byte_at[size_t(e)]);
    from = e > b ? e : u.moveIndex32(e, 1);
    if (e == b && from == e) break;  // an empty match at the end of the text
  }
  if (status == U_REGEX_TIME_OUT || status == U_REGEX_STACK_OVERFLOW) {
    const std::string why =
        status == U_REGEX_TIME_OUT
            ? subst(tr("the regular expression '{0}' ran past its time limit on a text of {1} bytes (it backtracks "
                       "catastrophically)"),
                    {impl_->shown, std::to_string(s.size())})
            : subst(tr("the regular expression '{0}' ran past its stack limit of {1} MiB on a text of {2} bytes"),
                    {impl_->shown, std::to_string(kRegexStackLimitBytes >> 20), std::to_string(s.size())});
    report_pipeline_failure(impl_->where.empty() ? why : impl_->where + ": " + why);
  }
  m->reset(icu::UnicodeString());  // drop the reference to u
  return out;
}

}  // namespace tw
