#include "core/text/corpus.h"

#include "core/base/i18n.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"

namespace tw {

namespace {

constexpr size_t kMaxCorpusFileBytes = size_t{8} << 20;  // the largest collection used is under 300 KB

// Removes ANSI escape sequences (ESC [ parameters final-byte); true when the line had one.
bool strip_escapes(std::string& line) {
  std::string out;
  bool had = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b') {
      had = true;
      size_t j = i + 1;
      if (j < line.size() && line[j] == '[') {
        ++j;
        while (j < line.size() && !(line[j] >= '@' && line[j] <= '~')) ++j;
      }
      i = j;  // skips the final byte too
      continue;
    }
    out += line[i];
  }
  line = std::move(out);
  return had;
}

std::string trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string_view::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return std::string(s.substr(a, b - a + 1));
}

}  // namespace

const std::vector<CorpusInfo>& corpus_catalogue() {
  static const std::vector<CorpusInfo> catalogue = {
      {CorpusId::TangPoems, N_("tang300"), N_("300 Tang poems"), "fortunes-zh", {"tang300"}},
      {CorpusId::SongCi, N_("song100"), N_("100 Song ci"), "fortunes-zh", {"song100"}},
      {CorpusId::EnglishQuotes, N_("quotes"), N_("English quotations"), "fortunes", {"wisdom", "people"}},
  };
  return catalogue;
}

const CorpusInfo& corpus_info(CorpusId id) {
  for (const CorpusInfo& c : corpus_catalogue())
    if (c.id == id) return c;
  return corpus_catalogue().front();
}

std::vector<std::string> parse_fortune_records(std::string_view raw) {
  std::vector<std::string> records;
  std::string record;
  auto flush = [&] {
    while (!record.empty() && record.back() == '\n') record.pop_back();
    if (!record.empty()) records.push_back(record);
    record.clear();
  };
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find('\n', start);
    if (end == std::string_view::npos) end = raw.size();
    std::string line(raw.substr(start, end - start));
    start = end + 1;
    if (trim(line) == "%") {
      flush();
      continue;
    }
    if (strip_escapes(line)) continue;  // a coloured heading: title or author
    line = trim(line);
    if (line.empty()) continue;
    record += line;
    record += '\n';
    if (end == raw.size()) break;
  }
  flush();
  return records;
}

Corpus split_corpus(CorpusId id, std::vector<std::string> records) {
  Corpus c;
  c.id = id;
  for (size_t i = 0; i < records.size(); ++i) {
    std::vector<std::string>& part = i % 10 == 9 ? c.heldout : c.train;
    size_t& chars = i % 10 == 9 ? c.heldout_chars : c.train_chars;
    chars += decode_utf8(records[i]).size() + 1;  // + the newline that ends the record
    part.push_back(std::move(records[i]));
  }
  return c;
}

std::string load_corpus(CorpusId id, Corpus* out, const std::string& fortune_dir) {
  const CorpusInfo& info = corpus_info(id);
  std::vector<std::string> records;
  for (const char* file : info.files) {
    const std::string path = fortune_dir + "/" + file;
    std::string bytes, error;
    if (!read_file_bounded(path, kMaxCorpusFileBytes, &bytes, &error))
      return subst(tr("{0} (install the Debian package {1})"), {error, info.package});
    const size_t bad = first_invalid_utf8(bytes);
    if (bad != std::string_view::npos) return subst(tr("{0}: invalid UTF-8 at byte {1}"), {path, std::to_string(bad)});
    for (std::string& r : parse_fortune_records(bytes)) records.push_back(std::move(r));
  }
  *out = split_corpus(id, std::move(records));
  return "";
}

}  // namespace tw
