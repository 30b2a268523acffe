#include "core/text/script_alphabet.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

// Counted by hand from the Unicode blocks (Unicode 15, ICU 72):
//   Basic Latin U+0000–U+007F: Latin = A–Z, a–z (52); Common = the other 76 (controls, digits, punctuation, space).
//   CJK Unified Ideographs U+4E00–U+9FFF: every one of its 0x5200 = 20,992 code points is an assigned Han character.
//   Hiragana U+3040–U+309F: Hiragana = U+3041–U+3096 (86) and U+309D–U+309F (3) = 89; U+3099–U+309A are Inherited,
//   U+309B–U+309C Common, U+3040 and U+3097–U+3098 unassigned.
TEST(ScriptAlphabet, SizesOfTheScriptWithinTheBlock) {
  EXPECT_EQ(script_alphabet_size('a'), 52);
  EXPECT_EQ(script_alphabet_size('Z'), 52);
  EXPECT_EQ(script_alphabet_size('7'), 76);
  EXPECT_EQ(script_alphabet_size(' '), 76);
  EXPECT_EQ(script_alphabet_size(0x660E), 20992);  // 明
  EXPECT_EQ(script_alphabet_size(0x4E00), 20992);  // 一, the block's first
  EXPECT_EQ(script_alphabet_size(0x3042), 89);     // あ
  // Asked twice (the second from the kept sizes): the same.
  EXPECT_EQ(script_alphabet_size(0x660E), 20992);
}

TEST(ScriptAlphabet, NotACodePointIsAnAlphabetOfOne) {
  EXPECT_EQ(script_alphabet_size(0x110000), 1);
  EXPECT_EQ(script_alphabet_size(0xFFFFFFFF), 1);
  EXPECT_GE(script_alphabet_size(0x10FFFF), 1);  // a noncharacter: still a count, never 0
}

}  // namespace
}  // namespace tw
