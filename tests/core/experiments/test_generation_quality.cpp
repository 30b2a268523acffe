// What the shipped language models write: seeded samples measured for form. Tang poems continued from the first
// line of 100 held-out poems (temperature 0.8, top-p 0.9) keep five- or seven-character half-lines (≥ 85%; the
// corpus: 95%) and one half-line length throughout (≥ 75% of poems); English continued from the first two words of
// 100 held-out fortunes uses words of Debian's wamerican list (≥ 93%; the text itself: 98%). No sample holds half a
// character. The measures themselves are checked on hand-made text first.
#include "core/experiments/generation_quality.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/io/read_file.h"
#include "core/text/utf8.h"

namespace tw {
namespace {

TEST(GenerationQuality, HalfLinesAreThePiecesClosedByFullWidthMarks) {
  EXPECT_EQ(poem_half_lines("床前明月光，疑是地上霜。举头"),
            (std::vector<std::string>{"床前明月光", "疑是地上霜"}));  // 举头 is still open
  const PoemForm f = poem_form({"床前明月光，疑是地上霜。举头望明月，低头思故乡。",  // 4 × 5: uniform
                                "千山鸟飞绝，万径人踪灭。孤舟蓑笠翁，独钓寒江雪啊。",  // 5, 5, 5, 6
                                "一句。"});                                          // one half-line: not a poem
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

// The first records of a shipped model's held-out text.
std::vector<std::string> heldout_records(const std::string& model, size_t count) {
  std::string text, error;
  const std::string path = shipped_models_dir() + "/" + model + "/heldout.txt";
  EXPECT_TRUE(read_file_bounded(path, size_t{8} << 20, &text, &error)) << error;
  std::vector<std::string> records = blank_line_records(text);
  if (records.size() > count) records.resize(count);
  return records;
}

StepperModel shipped(const std::string& name) {
  StepperModel m;
  std::string error;
  EXPECT_TRUE(load_hf_stepper_model(shipped_models_dir() + "/" + name, {}, &m, &error)) << error;
  return m;
}

TEST(GenerationQuality, TangPoemsKeepTheirLineLengths) {
  const StepperModel m = shipped("poems");
  ASSERT_TRUE(m.weights);
  const std::vector<std::string> poems = heldout_records("poems", 100);
  ASSERT_EQ(poems.size(), 100u);
  const QualityRun q = poem_quality(m, poems);
  ASSERT_EQ(q.error, "");
  for (const SampledText& s : q.samples) ASSERT_TRUE(valid_utf8(s.text)) << s.text;
  EXPECT_GE(q.continued.five_or_seven_fraction(), 0.85) << q.continued.five_or_seven << " of " << q.continued.half_lines;
  EXPECT_GE(q.whole.uniform_fraction(), 0.75) << q.whole.uniform_poems << " of " << q.whole.poems;
  std::printf("poems: %.1f%% of %d generated half-lines of 5 or 7 characters; %.1f%% of %d poems uniform\n",
              100 * q.continued.five_or_seven_fraction(), q.continued.half_lines, 100 * q.whole.uniform_fraction(),
              q.whole.poems);
}

TEST(GenerationQuality, EnglishSamplesUseDictionaryWords) {
  std::string error;
  const std::unordered_set<std::string> list = read_word_list("/usr/share/dict/american-english", &error);
  ASSERT_FALSE(list.empty()) << error << " (Debian package wamerican)";
  const StepperModel m = shipped("quotes");
  ASSERT_TRUE(m.weights);
  const std::vector<std::string> records = heldout_records("quotes", 100);
  ASSERT_EQ(records.size(), 100u);
  const QualityRun q = english_quality(m, records, list);
  ASSERT_EQ(q.error, "");
  for (const SampledText& s : q.samples) ASSERT_TRUE(valid_utf8(s.text)) << s.text;
  EXPECT_GE(q.words.known_fraction(), 0.93) << q.words.known << " of " << q.words.words;
  std::printf("quotes: %.1f%% of %d generated words in wamerican\n", 100 * q.words.known_fraction(), q.words.words);
}

}  // namespace
}  // namespace tw
