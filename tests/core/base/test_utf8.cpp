#include "core/base/utf8.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

TEST(Utf8, DecodesEveryLengthOfSequence) {
  // A, é (2 bytes), 注 (3 bytes), 🙂 (4 bytes)
  const std::vector<uint32_t> want = {0x41, 0xE9, 0x6CE8, 0x1F642};
  EXPECT_EQ(decode_utf8("A\xC3\xA9\xE6\xB3\xA8\xF0\x9F\x99\x82"), want);
}

TEST(Utf8, EachInvalidByteIsOneReplacementCharacter) {
  // A lone continuation byte, a truncated 3-byte sequence at the end, an overlong '/', a surrogate.
  EXPECT_EQ(decode_utf8("\x80"), (std::vector<uint32_t>{0xFFFD}));
  EXPECT_EQ(decode_utf8("a\xE6\xB3"), (std::vector<uint32_t>{'a', 0xFFFD, 0xFFFD}));
  EXPECT_EQ(decode_utf8("\xC0\xAF"), (std::vector<uint32_t>{0xFFFD, 0xFFFD}));
  EXPECT_EQ(decode_utf8("\xED\xA0\x80"), (std::vector<uint32_t>{0xFFFD, 0xFFFD, 0xFFFD}));
}

TEST(Utf8, FirstInvalidByteOffset) {
  EXPECT_EQ(first_invalid_utf8("\xE6\xB3\xA8\xE6\x84\x8F"), std::string_view::npos);
  EXPECT_EQ(first_invalid_utf8("ab\xE6\xB3\xA8\xFFx"), 5u);
  EXPECT_EQ(first_invalid_utf8("\xE6\xB3"), 0u);
}

TEST(Utf8, EncodeIsTheInverseOfDecode) {
  for (uint32_t cp : {0x41u, 0xE9u, 0x6CE8u, 0x1F642u, 0x10FFFFu})
    EXPECT_EQ(decode_utf8(encode_utf8(cp)), std::vector<uint32_t>{cp});
  EXPECT_EQ(encode_utf8(0xD800), "\xEF\xBF\xBD");  // a surrogate is not a character: U+FFFD
}

// A text file in another encoding (GBK: 力 is C1 A6) is reported with the offset of its first bad byte.
TEST(Utf8, ErrorNamesTheByteAndItsOffset) {
  EXPECT_EQ(utf8_error("\xE6\xB3\xA8 ok", "notes.txt"), "");
  EXPECT_EQ(utf8_error("ab\xE6\xB3\xA8\xC1\xA6", "\"notes.txt\""),
            "\"notes.txt\" is not valid UTF-8: byte 0xC1 at offset 5 does not start a character (save it as UTF-8)");
}

TEST(Utf8, AgreesWithValidAndChars) {
  const std::string s = "x\xE6\xB3\xA8\xFF";
  EXPECT_FALSE(valid_utf8(s));
  EXPECT_EQ(utf8_chars(s).size(), decode_utf8(s).size());
}

TEST(Utf8, EncodesWhatItDecodes) {
  std::string s;
  for (uint32_t cp : {0x41u, 0xE9u, 0x6CE8u, 0x1F642u}) append_utf8(&s, cp);
  EXPECT_EQ(s, "A\xC3\xA9\xE6\xB3\xA8\xF0\x9F\x99\x82");
  std::string bad;
  append_utf8(&bad, 0xD800);  // a surrogate is not a character
  EXPECT_EQ(bad, "\xEF\xBF\xBD");
  size_t len = 0;
  EXPECT_EQ(decode_utf8_at(s, 3, &len), 0x6CE8u);
  EXPECT_EQ(len, 3u);
  EXPECT_EQ(decode_utf8_at(s, 4, &len), 0xFFFDu);  // a continuation byte
  EXPECT_EQ(len, 1u);
}

TEST(Utf8, CharStart) {
  const std::string s = "a\xE6\xB3\xA8\x80";  // a, 注, a stray continuation byte
  EXPECT_EQ(utf8_char_start(s, 0), 0u);
  EXPECT_EQ(utf8_char_start(s, 2), 1u);
  EXPECT_EQ(utf8_char_start(s, 3), 1u);
  EXPECT_EQ(utf8_char_start(s, 4), 4u);  // belongs to no character
}

TEST(Utf8, ValidPrefixAllowsOnlyAnUnfinishedLastCharacter) {
  EXPECT_TRUE(utf8_valid_prefix(""));
  EXPECT_TRUE(utf8_valid_prefix("a\xE6\xB3\xA8"));  // a注: whole
  EXPECT_TRUE(utf8_valid_prefix("a\xE6"));          // 注 cut after its lead byte
  EXPECT_TRUE(utf8_valid_prefix("a\xE6\xB3"));      // ... and after its second
  EXPECT_FALSE(utf8_valid_prefix("\xB3"));          // a continuation byte with no lead
  EXPECT_FALSE(
      utf8_valid_prefix("\xE6"
                        "a"));                          // a lead byte followed by an ASCII letter
  EXPECT_FALSE(utf8_valid_prefix("\xE6\xB3\xA8\xA8"));  // one continuation byte too many
  EXPECT_FALSE(utf8_valid_prefix("\xC0"));              // can only start an overlong form
  EXPECT_FALSE(utf8_valid_prefix("\xE0\x80"));          // overlong three-byte form, already visible
  EXPECT_TRUE(utf8_valid_prefix("\xE0\xA0"));
  EXPECT_FALSE(utf8_valid_prefix("\xED\xA0"));     // a surrogate, already visible
  EXPECT_FALSE(utf8_valid_prefix("\xF4\x90"));     // above U+10FFFF
  EXPECT_TRUE(utf8_valid_prefix("\xF0\x9F\x98"));  // 😀 cut before its last byte
  EXPECT_EQ(utf8_unfinished_tail("a\xE6\xB3"), "\xE6\xB3");
  EXPECT_EQ(utf8_unfinished_tail("a\xE6\xB3\xA8"), "");
}

TEST(Utf8, AllowedTokensContinueACharacterOrStartOne) {
  // Tokens: "a", the three bytes of 注 (E6 B3 A8) one by one, and 注 whole.
  const std::vector<std::string> tokens{"a", "\xE6", "\xB3", "\xA8", "\xE6\xB3\xA8"};
  EXPECT_EQ(utf8_allowed_tokens(tokens, ""), (std::vector<char>{1, 1, 0, 0, 1}));
  EXPECT_EQ(utf8_allowed_tokens(tokens, "\xE6"), (std::vector<char>{0, 0, 1, 1, 0}));
  EXPECT_EQ(utf8_allowed_tokens(tokens, "\xE6\xB3"), (std::vector<char>{0, 0, 1, 1, 0}));
}

}  // namespace
}  // namespace tw
