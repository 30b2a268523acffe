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
#include <string>
#include <string_view>

// Marks a literal for extraction without translating it (tables of names translated where they are shown).
#define N_(s) s

namespace tw {

enum class Language { En, Zh };

// The language tr() translates into. Switching takes effect on the next call; callers redraw.
void set_language(Language lang);
Language language();

// The translation of msgid in the current language, or msgid itself when there is none. The pointer stays valid
// for the life of the process.
const char* tr(const char* msgid);
// The singular or plural form for n (Chinese has one form).
const char* trn(const char* singular, const char* plural, unsigned long n);

// pattern with each {k} replaced by args[k]; "{{" is a literal brace. An index without an argument stays as written.
std::string subst(std::string_view pattern, std::initializer_list<std::string_view> args);

}  // namespace tw
