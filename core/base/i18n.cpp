#include "core/base/i18n.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/assets.h"
#include "core/base/mo_catalogue.h"
#include "core/base/text_in_use.h"

namespace tw {

namespace {
std::atomic<Language> g_language{Language::En};        // process-wide interface language
std::atomic<const MoCatalogue*> g_catalogue{nullptr};  // the current language's catalogue; null: English source

// Chinese's catalogue, read once and never freed: tr() hands out pointers into it, and worker threads may hold
// them while the language changes.
const MoCatalogue* zh_catalogue() {
  static std::once_flag once;
  static const MoCatalogue* catalogue = nullptr;
  std::call_once(once, [] {
    const std::string path = find_catalogue("zh");
    std::string error;
    if (path.empty()) {
      error =
          "no zh catalogue (locale/zh/LC_MESSAGES/transformer-workbench.mo next to the executable, in "
          "../share/locale or in $XDG_DATA_DIRS)";
    } else if (auto c = MoCatalogue::load(path, &error)) {
      catalogue = new MoCatalogue(std::move(*c));
      // The screen's font atlas holds glyphs for the characters in use only (core/base/text_in_use.h): noting every
      // translation now puts the whole interface's characters in the atlas before the first Chinese frame.
      for (std::string_view t : catalogue->translations()) note_text_in_use(t);
      return;
    }
    std::fprintf(stderr, "transformer-workbench: %s; the interface stays English\n", error.c_str());
  });
  return catalogue;
}
}  // namespace

void set_language(Language lang) {
  const MoCatalogue* c = lang == Language::Zh ? zh_catalogue() : nullptr;
  g_language.store(lang);
  g_catalogue.store(c);
}
Language language() { return g_language.load(); }
bool catalogue_loaded() { return language() == Language::En || g_catalogue.load() != nullptr; }

const char* language_code(Language lang) { return lang == Language::Zh ? "zh" : "en"; }

std::optional<Language> parse_language(std::string_view code) {
  const std::string_view lang = code.substr(0, code.find_first_of("_-.@"));
  if (lang == "zh") return Language::Zh;
  if (lang == "en") return Language::En;
  return std::nullopt;
}

Language language_from_environment() {
  for (const char* name : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(name);
    if (!v || !*v) continue;
    return std::string_view(v).substr(0, 2) == "zh" ? Language::Zh : Language::En;  // LANGUAGE: its first entry
  }
  return Language::En;
}

const char* tr(const char* msgid) {
  const MoCatalogue* c = g_catalogue.load();
  if (!c || !msgid) return msgid;
  const char* t = c->find(msgid);
  return t ? t : msgid;
}

const char* trn(const char* singular, const char* plural, unsigned long n) {
  const MoCatalogue* c = g_catalogue.load();
  if (c && singular)
    if (const char* t = c->find_plural(singular, n)) return t;
  return n == 1 ? singular : plural;
}

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
        // A NUL inside a value (a JSON key "a\u0000b") would end the message wherever it is printed as a C string:
        // it is shown as U+2400 ␀, so the value arrives whole.
        for (const char ch : list[k])
          if (ch == '\0')
            out += "\xE2\x90\x80";
          else
            out += ch;
        i = j;
        continue;
      }
    }
    out += c;
  }
  return out;
}

}  // namespace tw
