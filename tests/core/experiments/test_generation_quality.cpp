// The measures of sampled text (core/experiments/generation_quality.h) on hand-made text: half-lines of a Tang poem,
// poems that keep one half-line length, English words found in a word list; a sample from a model never ends in
// half a character.
#include "core/experiments/generation_quality.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/base/utf8.h"
#include "core/model/weights.h"
#include "core/train/model_folder.h"
#include "test_util.h"

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

TEST(GenerationQuality, AWordTheBudgetCutOpenIsNotCounted) {
  EXPECT_EQ(without_open_word("the cat sat on the ma"), "the cat sat on the ");
  EXPECT_EQ(without_open_word("he said \"don'"), "he said \"");
  EXPECT_EQ(without_open_word("done."), "done.");
  EXPECT_EQ(without_open_word("word"), "");
  EXPECT_EQ(without_open_word(""), "");
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

// The shipped models' generation, measured as their cards are (bench/lm_card): 100 held-out records spread over the
// held-out part, each cut to a prompt and continued at temperature 0.8, top-p 0.9, seeded. The thresholds are the
// issue's where the model reaches them (poems: 85% of half-lines of 5 or 7 characters, 75% of poems of one length;
// the card measured 100% and 93.9%; English: 93% of the words in wamerican, the card measured 93.6% and the
// held-out text itself 96.9%).
StepperModel shipped_model(const std::string& name, std::vector<std::string>* records) {
  StepperModel m;
  std::string error;
  EXPECT_TRUE(load_hf_stepper_model(shipped_models_dir() + "/" + name, {}, &m, &error)) << error;
  std::ifstream in(shipped_models_dir() + "/" + name + "/heldout.txt", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  *records = spread_records(blank_line_records(text), 100);
  return m;
}

TEST(GenerationQuality, SpreadRecordsTakesEveryKthOfTheWhole) {
  const std::vector<std::string> r = {"a", "b", "c", "d", "e", "f", "g"};
  EXPECT_EQ(spread_records(r, 3), (std::vector<std::string>{"a", "c", "e"}));  // ⌊0·7/3⌋, ⌊7/3⌋, ⌊14/3⌋
  EXPECT_EQ(spread_records(r, 10), r);
  EXPECT_EQ(blank_line_records("x\n\ny z\n\n\n\nw"), (std::vector<std::string>{"x", "y z", "w"}));
}

TEST(GenerationQuality, ShippedPoemsModelWritesLinesOfFiveOrSevenCharacters) {
  TW_RELEASE_STAGE_ONLY();
  std::vector<std::string> records;
  const StepperModel m = shipped_model("poems", &records);
  ASSERT_TRUE(m.weights);
  ASSERT_EQ(records.size(), 100u);
  const QualityRun q = poem_quality(m, records);
  ASSERT_EQ(q.error, "");
  for (const SampledText& s : q.samples) EXPECT_TRUE(valid_utf8(s.text)) << s.text;
  EXPECT_GE(q.continued.half_lines, 100);  // the model continues, it does not stop at every prompt
  EXPECT_GE(q.continued.five_or_seven_fraction(), 0.85);
  EXPECT_GE(q.whole.uniform_fraction(), 0.75);
}

TEST(GenerationQuality, ShippedEnglishModelWritesDictionaryWords) {
  TW_RELEASE_STAGE_ONLY();
  std::string error;
  const std::unordered_set<std::string> list = read_word_list("/usr/share/dict/american-english", &error);
  ASSERT_FALSE(list.empty()) << error << " (Debian package wamerican)";
  std::vector<std::string> records;
  const StepperModel m = shipped_model("quotes", &records);
  ASSERT_TRUE(m.weights);
  const QualityRun q = english_quality(m, records, list);
  ASSERT_EQ(q.error, "");
  for (const SampledText& s : q.samples) EXPECT_TRUE(valid_utf8(s.text)) << s.text;
  EXPECT_GE(q.words.words, 1000);
  EXPECT_GE(q.words.known_fraction(), 0.93);
}

}  // namespace
}  // namespace tw
