// Held-out bits per character of a model: a model that knows nothing pays log₂ V bits per token, so log₂ V per
// ASCII character and 3 log₂ V per Chinese character under the byte tokenizer; long records are cut into windows
// without losing or repeating a token; a seeded model's bits are the sum of its own −log₂ p over one forward pass.
#include "core/experiments/model_bits.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/model/forward.h"

namespace tw {
namespace {

StepperModel byte_model(ModelWeights w, const ModelConfig& c) {
  StepperModel m;
  m.config = c;
  m.weights = std::make_shared<const ModelWeights>(std::move(w));
  m.vocabulary = TokenVocabulary::bytes();
  return m;
}

TEST(ModelBits, AModelThatKnowsNothingPaysLog2VPerToken) {
  const ModelConfig c = tiny_config();
  const StepperModel m = byte_model(zero_weights(c), c);  // every logit 0: uniform over V
  const double per_token = std::log2(double(c.vocab));
  const ModelBits ascii = model_bits_per_char(m, {"hello world", "abc"});
  ASSERT_EQ(ascii.error, "");
  EXPECT_EQ(ascii.tokens_scored, 14);  // <bos> starts each record, so every byte is predicted
  EXPECT_EQ(ascii.chars, 14);
  EXPECT_NEAR(ascii.bits_per_char, per_token, 1e-5 * per_token);
  const ModelBits zh = model_bits_per_char(m, {"\xE4\xBD\xA0\xE5\xA5\xBD"});  // 你好: 2 characters, 6 bytes
  ASSERT_EQ(zh.error, "");
  EXPECT_EQ(zh.chars, 2);
  EXPECT_NEAR(zh.bits_per_char, 3 * per_token, 1e-5 * per_token);
}

TEST(ModelBits, LongRecordsAreScoredInWindowsWithoutLosingATokenAndCapsAreWholeRecords) {
  const ModelConfig c = tiny_config();
  const StepperModel m = byte_model(zero_weights(c), c);
  const std::string record(3 * c.max_seq + 7, 'x');
  const ModelBits b = model_bits_per_char(m, {record});
  ASSERT_EQ(b.error, "");
  EXPECT_EQ(b.tokens_scored, int64_t(record.size()));
  // The character cap takes whole records, at least one.
  const ModelBits capped = model_bits_per_char(m, {"abcd", "efgh", "ijkl"}, 5);
  EXPECT_EQ(capped.records, 2);
  EXPECT_EQ(capped.chars, 8);
}

TEST(ModelBits, ASeededModelsBitsAreItsOwnNegativeLog2Probabilities) {
  const ModelConfig c = tiny_config();
  const StepperModel m = byte_model(init_weights(c, 3), c);
  const std::string text = "the cat sat";
  std::vector<int> ids;
  std::string error;
  ASSERT_TRUE(m.vocabulary->encode(text, true, &ids, &error)) << error;
  Mat logits;
  ASSERT_TRUE(forward(logits, nullptr, *m.weights, c, ids, &error)) << error;
  double bits = 0;
  for (size_t t = 0; t + 1 < ids.size(); ++t) {
    double z = 0;
    for (int v = 0; v < c.vocab; ++v) z += std::exp(double(logits(long(t), v)));
    bits -= std::log2(std::exp(double(logits(long(t), ids[t + 1]))) / z);
  }
  const ModelBits b = model_bits_per_char(m, {text});
  ASSERT_EQ(b.error, "");
  EXPECT_NEAR(b.bits, bits, 1e-9 * bits);
  EXPECT_NEAR(b.bits_per_char, bits / double(text.size()), 1e-9 * bits);
  // A seeded, untrained model is no better than uniform here by much, and surely not free.
  EXPECT_GT(b.bits_per_char, 1.0);
}

TEST(ModelBits, AStreamScoresEveryTokenOnceWithHalfAWindowOfContext) {
  ModelConfig c = tiny_config();
  c.max_seq = 8;  // windows of 8 tokens every 4
  const StepperModel m = byte_model(init_weights(c, 5), c);
  const std::string text = "床前\n\nmoonlight on the floor";  // 2 Chinese characters, 2 line breaks, 22 ASCII
  std::vector<int> ids;
  std::string error;
  ASSERT_TRUE(m.vocabulary->encode(text, true, &ids, &error)) << error;
  ASSERT_EQ(ids.size(), 1 + text.size());  // <bos>, then one token per byte
  // Independently: token i (i ≥ 1) is predicted from the window that starts at the largest multiple of 4 at or
  // below max(0, i − 4), i.e. with at least 4 tokens of context once there are that many.
  double bits = 0;
  for (size_t i = 1; i < ids.size(); ++i) {
    const size_t start = i <= 4 ? 0 : ((i - 4) / 4) * 4;
    const std::vector<int> w(ids.begin() + long(start), ids.begin() + long(std::min(ids.size(), start + 8)));
    Mat logits;
    ASSERT_TRUE(forward(logits, nullptr, *m.weights, c, w, &error)) << error;
    const size_t row = i - 1 - start;
    ASSERT_LT(row + 1, w.size());
    double z = 0;
    for (int v = 0; v < c.vocab; ++v) z += std::exp(double(logits(long(row), v)));
    bits -= std::log2(std::exp(double(logits(long(row), ids[i]))) / z);
  }
  const ModelBits b = model_bits_of_text(m, text);
  ASSERT_EQ(b.error, "");
  EXPECT_EQ(b.tokens_scored, int64_t(text.size()));
  EXPECT_EQ(b.chars, 26);
  EXPECT_NEAR(b.bits, bits, 1e-9 * bits);
  EXPECT_NEAR(b.bits_per_char, bits / 26.0, 1e-9 * bits);
  // Cancelling stops with a message.
  EXPECT_EQ(model_bits_of_text(m, text, [](double) { return false; }).error, "cancelled");
}

TEST(ModelBits, NoTokenizerOrNoTextIsAMessage) {
  EXPECT_NE(model_bits_per_char(StepperModel{}, {"abc"}).error, "");
  const ModelConfig c = tiny_config();
  EXPECT_NE(model_bits_per_char(byte_model(zero_weights(c), c), {}).error, "");
}

}  // namespace
}  // namespace tw
