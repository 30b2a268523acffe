#pragma once
// Real text to learn from, offline: the fortune collections Debian packages (fortunes-zh: 300 Tang poems, 100 Song ci;
// fortunes: English quotations), read where the packages install them, cleaned, and split once into a training part
// and a held-out part that nothing ever trains on.
//
// Cleaning: the files are records separated by lines holding only "%"; fortunes-zh colours its headings (title and
// author) with ANSI escape sequences, so a line that carried an escape is a heading and is dropped, and every other
// escape is removed. Lines are trimmed; empty records are dropped. Held out: every tenth record (index % 10 == 9), so
// both parts span the whole collection and the split never changes.
//
// Licences: fortunes-zh is GPL-3.0+ (/usr/share/doc/fortunes-zh/copyright); the fortunes quotations are under the
// terms in /usr/share/doc/fortunes/copyright. The text is read from the installed package, never copied into this
// project.

#include <string>
#include <string_view>
#include <vector>

namespace tw {

enum class CorpusId {
  TangPoems,      // fortunes-zh tang300: five- and seven-character lines
  SongCi,         // fortunes-zh song100
  EnglishQuotes,  // fortunes: wisdom + people
};

struct CorpusInfo {
  CorpusId id;
  const char* name;                // "tang300"
  const char* title;               // "300 Tang poems" (translated where shown)
  const char* package;             // Debian package that installs it
  std::vector<const char*> files;  // under /usr/share/games/fortunes
};
const std::vector<CorpusInfo>& corpus_catalogue();
const CorpusInfo& corpus_info(CorpusId id);

struct Corpus {
  CorpusId id = CorpusId::TangPoems;
  std::vector<std::string> train;             // records (lines joined by '\n')
  std::vector<std::string> heldout;           // every tenth record
  size_t train_chars = 0, heldout_chars = 0;  // characters (code points), newlines included
};

// The cleaned records of fortune-file text (the whole file's bytes).
std::vector<std::string> parse_fortune_records(std::string_view raw);
// Splits records into train / held-out as described above.
Corpus split_corpus(CorpusId id, std::vector<std::string> records);

// Reads the corpus from its installed files (fortune_dir defaults to /usr/share/games/fortunes). Returns "" or one
// line naming the missing file and the package that installs it; invalid UTF-8 is refused with its byte offset.
std::string load_corpus(CorpusId id, Corpus* out, const std::string& fortune_dir = "/usr/share/games/fortunes");

}  // namespace tw
