// The measures of sampled text (core/experiments/generation_quality.h) on hand-made text: half-lines of a Tang poem,
// poems that keep one half-line length, English words found in a word list; a sample from a model never ends in
// half a character.
#include "core/experiments/generation_quality.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/model/weights.h"
#include "core/text/utf8.h"

namespace tw {
namespace {

TEST(GenerationQuality, HalfLinesAreThePiecesClosedByFullWidthMarks) {
  EXPECT_EQ(poem_half_lines("床前明月光，疑是地上霜。举头"),
            (std::vector<std::string>{"床前明月光", "疑是地上霜"}));                   // 举头 is still open
  const PoemForm f = poem_form({"床前明月光，疑是地上霜。举头望明月，低头思故乡。",    // 4 × 5: uniform
                                "千山鸟飞绝，万径人踪灭。孤舟蓑笠翁，独钓寒江雪啊。",  // 5, 5, 5, 6
                                "一句。"});                                            // one half-line: not a poem
  EXPECT_EQ(f.poems, 2);
  EXPECT_EQ(f.half_lines, 8);
  EXPECT_EQ(f.five_or_seven, 7);
  EXPECT_EQ(f.uniform_poems, 1);
  EXPECT_DOUBLE_EQ(f.five_or_seven_fraction(), 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(f.uniform_fraction(), 0.5);
}

TEST(GenerationQuality, WordsAreLetterRunsCheckedAgainstTheList) {
  EXPECT_EQ(english_words("Don't panic -- it's 42 o'clock, Mr.Smith's."),
            (std::vector<std::string>{"don't", "panic", "it's", "o'clock", "mr", "smith's"}));
  const std::unordered_set<std::string> list{"don't", "panic", "smith"};
  const WordCheck c = dictionary_words({"Don't panic, Smith's xyzzy"}, list);
  EXPECT_EQ(c.words, 4);
  EXPECT_EQ(c.known, 3);  // smith's through its stem; xyzzy is not a word
}

TEST(GenerationQuality, SamplesOfAByteModelAreAlwaysWholeCharacters) {
  // A random byte-level model puts mass on every byte: unconstrained, 40 draws at temperature 1.5 are almost never
  // valid UTF-8 (a stray continuation byte has probability ~1/4 each draw). Constrained, every sample is.
  ModelConfig c = tiny_config();
  c.max_seq = 64;  // room for the prompt and 40 tokens
  StepperModel m;
  m.config = c;
  m.weights = std::make_shared<const ModelWeights>(init_weights(c, 7));
  m.vocabulary = TokenVocabulary::bytes();
  int non_ascii = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const SampledText s = sample_text(m, "床", 40, {.temperature = 1.5f}, seed);
    ASSERT_EQ(s.error, "");
    EXPECT_TRUE(valid_utf8(s.text)) << "seed " << seed;
    EXPECT_EQ(s.text.rfind("床", 0), 0u);
    for (uint32_t cp : decode_utf8(s.continuation)) non_ascii += cp >= 0x80 ? 1 : 0;
  }
  EXPECT_GT(non_ascii, 20);  // the constraint keeps multi-byte characters, it does not forbid them
}

}  // namespace
}  // namespace tw
