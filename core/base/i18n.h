#pragma once
// The interface language and its message catalogue. Every string a user reads passes tr() (or trn() where a
// count decides the form); xgettext extracts the literals with the keywords tr, trn:1,2 and N_, translators work on
// po/zh.po with standard tools, and msgfmt compiles it at build time.
//
//   ImGui::TextUnformatted(tr("Export"));
//   status = subst(tr("{0} of {1} steps"), {std::to_string(i), std::to_string(n)});
//   label = trn("{0} token", "{0} tokens", n);
//
// Patterns use {0}, {1}, … so a translation may put the arguments in another order. Numbers keep '.' as the
// decimal point in every language. Scenes, CSV column names and export file names never pass the catalogue.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

// Marks a literal for extraction without translating it (tables of names translated where they are shown).
#define N_(s) s

namespace tw {

enum class Language { En, Zh };

// The language tr() translates into. Switching takes effect on the next call; callers redraw. Choosing Chinese
// loads its catalogue the first time (core/assets.h find_catalogue); when there is none the interface stays
// English and one warning goes to stderr. Safe to call from any thread; tr() may run concurrently on workers.
void set_language(Language lang);
Language language();

// "en" / "zh": the --lang values and what the session file stores.
const char* language_code(Language lang);
// "en" or "zh" (also "zh_CN", "zh-Hans", "en_US.UTF-8" …: only the language part counts); nullopt otherwise.
std::optional<Language> parse_language(std::string_view code);
// The language the environment asks for: the first set one of LANGUAGE (its first entry), LC_ALL, LC_MESSAGES,
// LANG; Chinese when it starts with "zh", else English.
Language language_from_environment();
// True when the current language's strings come from a loaded catalogue (always true for English).
bool catalogue_loaded();

// The translation of msgid in the current language, or msgid itself when there is none. The pointer stays valid
// for the life of the process.
const char* tr(const char* msgid);
// The singular or plural form for n (Chinese has one form).
const char* trn(const char* singular, const char* plural, unsigned long n);

// pattern with each {k} replaced by args[k]; "{{" is a literal brace. An index without an argument stays as written.
// A NUL byte in an argument is written as U+2400 ␀, so no message is cut short where it is printed.
std::string subst(std::string_view pattern, std::initializer_list<std::string_view> args);

}  // namespace tw
