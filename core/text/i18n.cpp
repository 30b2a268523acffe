#include "core/text/i18n.h"

#include <atomic>
#include <vector>

namespace tw {

namespace {
std::atomic<Language> g_language{Language::En};  // process-wide interface language
}  // namespace

void set_language(Language lang) { g_language.store(lang); }
Language language() { return g_language.load(); }

// The catalogue is not loaded yet: every string is its own translation.
const char* tr(const char* msgid) { return msgid; }
const char* trn(const char* singular, const char* plural, unsigned long n) { return n == 1 ? singular : plural; }

std::string subst(std::string_view pattern, std::initializer_list<std::string_view> args) {
  const std::vector<std::string_view> list(args);
  std::string out;
  out.reserve(pattern.size() + 16);
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (c == '{') {
      size_t j = i + 1, k = 0;
      bool digits = false;
      while (j < pattern.size() && pattern[j] >= '0' && pattern[j] <= '9') {
        k = k * 10 + static_cast<size_t>(pattern[j] - '0');
        ++j;
        digits = true;
      }
      if (digits && j < pattern.size() && pattern[j] == '}' && k < list.size()) {
        out += list[k];
        i = j;
        continue;
      }
    }
    out += c;
  }
  return out;
}

}  // namespace tw
