#include "core/text/byte_tokenizer.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

TEST(ByteTokenizer, AsciiIsItsByteValues) {
  EXPECT_EQ(ByteTokenizer::encode("Hi!"), (std::vector<int>{72, 105, 33}));
  EXPECT_EQ(ByteTokenizer::encode("Hi", true), (std::vector<int>{256, 72, 105}));
}

TEST(ByteTokenizer, Utf8RoundTrips) {
  // "é" is C3 A9, "中" is E4 B8 AD, "😀" is F0 9F 98 80 in UTF-8.
  const std::string text = "caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80";
  const std::vector<int> ids = ByteTokenizer::encode(text);
  EXPECT_EQ(ids.size(), 4u + 1 + 3 + 1 + 4 + 1);
  EXPECT_EQ(ids[3], 0xC3);
  EXPECT_EQ(ids[4], 0xA9);
  EXPECT_EQ(ByteTokenizer::decode(ids), text);
}

TEST(ByteTokenizer, EveryByteRoundTripsEvenInvalidUtf8) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_EQ(ByteTokenizer::decode(ByteTokenizer::encode(all, true)), all);
}

TEST(ByteTokenizer, SpecialsAreSkippedWhenDecoding) {
  EXPECT_EQ(ByteTokenizer::decode({ByteTokenizer::kBos, 'o', 'k', ByteTokenizer::kEos, ByteTokenizer::kPad, 9000}),
            "ok");
  EXPECT_TRUE(ByteTokenizer::is_special(257));
  EXPECT_FALSE(ByteTokenizer::is_special(255));
}

TEST(ByteTokenizer, Labels) {
  EXPECT_EQ(ByteTokenizer::label('a'), "a");
  EXPECT_EQ(ByteTokenizer::label('\n'), "\xE2\x86\xB5");  // ↵
  EXPECT_EQ(ByteTokenizer::label(' '), "\xE2\x90\xA3");   // ␣
  EXPECT_EQ(ByteTokenizer::label(0xE2),
            "\xE2\x9F\xA8"
            "E2"
            "\xE2\x9F\xA9");  // ⟨E2⟩: part of a character
  EXPECT_EQ(ByteTokenizer::label(ByteTokenizer::kBos), "<bos>");
  EXPECT_EQ(ByteTokenizer::label(ByteTokenizer::kPad), "<pad>");
  EXPECT_EQ(ByteTokenizer::label(9000), "<id 9000>");
}

}  // namespace
}  // namespace tw
