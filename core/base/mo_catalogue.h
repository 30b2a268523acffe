#pragma once
// A compiled GNU gettext message catalogue (.mo, as msgfmt writes it), read into memory once and looked up without
// locks. The interface language switches at run time (View › Language), so the app reads the file itself instead of
// asking glibc's gettext: glibc finds a catalogue only through setlocale() with a locale the system has generated
// (zh_CN.UTF-8 is missing on most machines and containers), caches the answer per locale, and setlocale() is
// process-wide and not thread-safe while worker threads format figures. Reading the documented file format is a
// few dozen lines and behaves the same everywhere.
//
// Format (GNU gettext manual, "The Format of GNU MO Files"): a header of 32-bit words (magic 0x950412de in the
// file's byte order, revision, N strings, offset of the original-string table, offset of the translation table,
// hash-table size S and offset), two tables of N (length, offset) pairs sorted by original string, and an optional
// hash table of S slots. A plural entry's original is "singular\0plural" and its translation holds every form,
// separated by NUL; the header entry (empty msgid) carries "Plural-Forms: nplurals=…; plural=<C expression in n>;".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

class MoCatalogue {
 public:
  // Reads `path`; on failure returns nullopt and sets *error to one line naming the file and the problem.
  static std::optional<MoCatalogue> load(const std::string& path, std::string* error);
  // Parses the bytes of a .mo file (load() reads the file and calls this); `where` names it in errors.
  static std::optional<MoCatalogue> parse(std::string bytes, const std::string& where, std::string* error);

  // The translation of msgid, or nullptr when the catalogue has none (or it is empty). The pointer lives as long as
  // the catalogue.
  const char* find(std::string_view msgid) const;
  // The form for n of the entry whose singular is `singular`, or nullptr when there is none.
  const char* find_plural(std::string_view singular, unsigned long n) const;

  size_t size() const { return originals_.size(); }
  // Every msgstr (plural forms separated by NUL), for whoever needs all the characters the catalogue can show.
  const std::vector<std::string_view>& translations() const { return translations_; }
  int plural_forms() const { return nplurals_; }
  // Which form a count takes under this catalogue's Plural-Forms rule (0 for English's n == 1, else 1, when the
  // header has none).
  unsigned long plural_index(unsigned long n) const;

 private:
  long lookup(std::string_view msgid) const;  // index into originals_, or -1

  std::string bytes_;                           // the whole file; every view below points into it
  std::vector<std::string_view> originals_;     // msgid, or "singular\0plural", sorted as in the file
  std::vector<std::string_view> translations_;  // msgstr, forms separated by NUL
  std::vector<uint32_t> hash_;                  // the file's hash table (may be empty: then binary search)
  int nplurals_ = 2;
  std::string plural_expr_ = "n != 1";
};

// Evaluates a Plural-Forms expression (C syntax in n: ?:, ||, &&, ==, !=, <, <=, >, >=, +, -, *, /, %, !, (),
// decimal numbers) for n. nullopt when the expression does not parse or divides by zero.
std::optional<unsigned long> eval_plural(std::string_view expr, unsigned long n);

}  // namespace tw
