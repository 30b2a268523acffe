#include "core/text/corpus.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

// The shape of fortunes-zh's files: coloured title and author lines, then the poem, records split by "%".
TEST(Corpus, HeadingsAndEscapesAreRemoved) {
  const std::string raw =
      "\x1b[32m\xE3\x80\x8A\xE9\x9D\x99\xE5\xA4\x9C\xE6\x80\x9D\xE3\x80\x8B\x1b[m\n"  // 〈静夜思〉 in green
      "\x1b[33m\xE4\xBD\x9C\xE8\x80\x85\xEF\xBC\x9A\xE6\x9D\x8E\xE7\x99\xBD\x1b[m\n"  // 作者：李白 in yellow
      "  \xE5\xBA\x8A\xE5\x89\x8D\xE6\x98\x8E\xE6\x9C\x88\xE5\x85\x89  \n"            // 床前明月光 (padded)
      "\n"
      "\xE7\x96\x91\xE6\x98\xAF\xE5\x9C\xB0\xE4\xB8\x8A\xE9\x9C\x9C\n"  // 疑是地上霜
      "%\n"
      "second\r\n"
      "%\n"
      "%\n";
  const std::vector<std::string> r = parse_fortune_records(raw);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0],
            "\xE5\xBA\x8A\xE5\x89\x8D\xE6\x98\x8E\xE6\x9C\x88\xE5\x85\x89\n\xE7\x96\x91\xE6\x98\xAF\xE5\x9C\xB0\xE4\xB8"
            "\x8A\xE9\x9C\x9C");
  EXPECT_EQ(r[1], "second");
}

TEST(Corpus, EveryTenthRecordIsHeldOut) {
  std::vector<std::string> records;
  for (int i = 0; i < 25; ++i) records.push_back(std::string("r").append(std::to_string(i)));  // GCC 12: no "r" + s
  const Corpus c = split_corpus(CorpusId::EnglishQuotes, records);
  ASSERT_EQ(c.heldout.size(), 2u);
  EXPECT_EQ(c.heldout[0], "r9");
  EXPECT_EQ(c.heldout[1], "r19");
  EXPECT_EQ(c.train.size(), 23u);
  EXPECT_EQ(c.heldout_chars, 7u);  // "r9" and "r19", each with the newline that ends a record: 3 + 4
}

TEST(Corpus, TangPoemsFromTheDebianPackage) {
  Corpus c;
  ASSERT_EQ(load_corpus(CorpusId::TangPoems, &c), "") << "scripts/install-deps.sh installs fortunes-zh";
  EXPECT_GT(c.train.size(), 250u);
  EXPECT_GT(c.heldout.size(), 25u);
  for (const auto& r : c.train) EXPECT_EQ(r.find('\x1b'), std::string::npos);
  // 床前明月光，疑是地上霜。 is in the collection (静夜思), in one part or the other.
  const std::string line = "\xE5\xBA\x8A\xE5\x89\x8D\xE6\x98\x8E\xE6\x9C\x88\xE5\x85\x89";
  bool found = false;
  for (const auto* part : {&c.train, &c.heldout})
    for (const auto& r : *part) found = found || r.find(line) != std::string::npos;
  EXPECT_TRUE(found);
}

TEST(Corpus, MissingFileNamesThePackage) {
  Corpus c;
  const std::string error = load_corpus(CorpusId::TangPoems, &c, "/nonexistent");
  EXPECT_NE(error.find("fortunes-zh"), std::string::npos) << error;
}

}  // namespace
}  // namespace tw
