// One UTF-8 codec (core/base/utf8): the places that used to cut, measure or re-encode UTF-8 by hand (the corpus cut
// before BPE training, the start page's card summary, export file names, the text renderer) now ask the codec, so
// invalid input means the same to all of them: a byte that does not start a well-formed sequence is one character.
#include <gtest/gtest.h>

#include <string>

#include "app/start_presets.h"
#include "core/base/utf8.h"
#include "views/plot/export_naming.h"

namespace tw {
namespace {

TEST(Utf8Callers, APrefixNeverEndsInsideAWellFormedSequence) {
  const std::string zh =
      "ab\xE4\xB8\xAD"
      "cd";  // ab中cd
  EXPECT_EQ(utf8_prefix(zh, 2), "ab");
  EXPECT_EQ(utf8_prefix(zh, 3), "ab");
  EXPECT_EQ(utf8_prefix(zh, 4), "ab");
  EXPECT_EQ(utf8_prefix(zh, 5), "ab\xE4\xB8\xAD");
  EXPECT_EQ(utf8_prefix(zh, 100), zh);
  // Invalid input: stray continuation bytes and a truncated sequence are characters of their own, so the cut keeps
  // them (the old hand-rolled loop walked back over every 10xxxxxx byte and dropped them).
  EXPECT_EQ(utf8_prefix("ab\x80\x80"
                        "cd",
                        3),
            "ab\x80");
  EXPECT_EQ(utf8_prefix("ab\xE4\xB8"
                        "cd",
                        3),
            "ab\xE4");
  EXPECT_EQ(utf8_prefix("ab\xE4\xB8"
                        "cd",
                        4),
            "ab\xE4\xB8");
  EXPECT_EQ(utf8_prefix("\x80\x80\x80", 2), "\x80\x80");
}

TEST(Utf8Callers, TheCardSummaryCutsWhereTheCodecDoes) {
  for (const std::string tail : {"\xE4\xB8\xAD\xE6\x96\x87\xE4\xB8\xAD\xE6\x96\x87", "\x80\x80\x80\x80\x80\x80"}) {
    const std::string description = std::string(108, 'x') + tail;
    const std::string s = preset_summary(description, 110);
    const std::string ellipsis = " \xE2\x80\xA6";
    ASSERT_GE(s.size(), ellipsis.size());
    ASSERT_EQ(s.substr(s.size() - ellipsis.size()), ellipsis);
    EXPECT_EQ(s.substr(0, s.size() - ellipsis.size()), utf8_prefix(description, 110));
  }
}

TEST(Utf8Callers, AFileNameTakesOneBadByteAsOneCharacter) {
  // A lone lead byte used to swallow the bytes after it (here the parenthesis that hides "(sorted)").
  const std::string c3 = plot::title_slug("scores \xC3(sorted) keys");
  EXPECT_EQ(c3, plot::title_slug("scores \xFF(sorted) keys"));
  EXPECT_EQ(c3, plot::title_slug("scores \x80(sorted) keys"));
  EXPECT_EQ(c3.find("sorted"), std::string::npos) << c3;
  EXPECT_NE(c3.find("keys"), std::string::npos) << c3;
}

TEST(Utf8Callers, EncodingRefusesWhatIsNotAScalarValue) {
  EXPECT_EQ(encode_utf8(0x4E2D), "\xE4\xB8\xAD");
  EXPECT_EQ(encode_utf8(0xD800), "\xEF\xBF\xBD");
  EXPECT_EQ(encode_utf8(0x110000), "\xEF\xBF\xBD");
  std::string out;
  append_utf8(&out, 0x1D49C);  // 𝒜, as the math layout writes script capitals
  EXPECT_EQ(out, "\xF0\x9D\x92\x9C");
}

}  // namespace
}  // namespace tw
