// Tests for generation: a fixed seed gives the same continuation, every appended token's logits equal a full
// recompute, greedy decoding (top-k 1) is the argmax of the full pass, and the stepper's session samples the
// same tokens as generate().
#include "core/model/generation.h"

#include <gtest/gtest.h>

#include "core/experiments/forward_session.h"
#include "core/model/forward.h"
#include "test_util.h"

namespace tw {
namespace {

struct Fixture {
  ModelConfig config = tiny_config();
  ModelWeights weights = init_weights(config, 3);
  std::vector<int> prompt = {84, 104, 101, 32, 99, 97, 116};  // "The cat"
};

// The last row of a full (uncached) forward pass over `tokens`.
RowVec full_last_row(const Fixture& f, const std::vector<int>& tokens) {
  Mat logits;
  std::string error;
  EXPECT_TRUE(forward(logits, nullptr, f.weights, f.config, tokens, &error)) << error;
  return logits.row(logits.rows() - 1);
}

TEST(Generation, FixedSeedIsDeterministicAndTheSeedMatters) {
  const Fixture f;
  const SamplingConfig s{.temperature = 1.0f};
  const Generation a = generate(f.config, f.weights, f.prompt, 20, s, 7);
  const Generation b = generate(f.config, f.weights, f.prompt, 20, s, 7);
  const Generation c = generate(f.config, f.weights, f.prompt, 20, s, 8);
  ASSERT_TRUE(a.error.empty()) << a.error;
  ASSERT_EQ(a.tokens.size(), 20u);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.probability, b.probability);
  EXPECT_NE(a.tokens, c.tokens);  // 20 draws from a random model's broad distributions
  for (size_t i = 0; i < a.tokens.size(); ++i) {
    EXPECT_GT(a.probability[i], 0.0f);
    EXPECT_LE(a.probability[i], 1.0f);
    // Without filters the final distribution is the tempered softmax itself.
    EXPECT_FLOAT_EQ(a.probability[i], a.raw_probability[i]);
  }
}

TEST(Generation, AppendedLogitsEqualAFullRecompute) {
  const Fixture f;
  const Generation g = generate(f.config, f.weights, f.prompt, 12, {.temperature = 0.8f, .top_p = 0.9f}, 1);
  ASSERT_TRUE(g.error.empty()) << g.error;
  KVCache cache;
  cache.reset(f.config);
  RowVec next;
  std::string error;
  ASSERT_TRUE(append_tokens(&next, nullptr, nullptr, cache, f.weights, f.config, f.prompt, &error)) << error;
  std::vector<int> so_far = f.prompt;
  for (int token : g.tokens) {
    ASSERT_TRUE(append_tokens(&next, nullptr, nullptr, cache, f.weights, f.config, {token}, &error)) << error;
    so_far.push_back(token);
    EXPECT_EQ(cache.length, static_cast<int>(so_far.size()));
    EXPECT_TRUE(testing::MatNear(Mat(next), Mat(full_last_row(f, so_far)), 1e-4f)) << "after " << so_far.size();
  }
}

TEST(Generation, GreedyIsTheArgmaxOfTheFullPass) {
  const Fixture f;
  const Generation g = generate(f.config, f.weights, f.prompt, 10, {.top_k = 1}, 99);
  ASSERT_TRUE(g.error.empty()) << g.error;
  std::vector<int> so_far = f.prompt;
  for (size_t i = 0; i < g.tokens.size(); ++i) {
    const RowVec last = full_last_row(f, so_far);
    Eigen::Index best = 0;
    last.maxCoeff(&best);
    EXPECT_EQ(g.tokens[i], static_cast<int>(best)) << "token " << i;
    EXPECT_FLOAT_EQ(g.probability[i], 1.0f);  // top-k 1 leaves one token
    so_far.push_back(g.tokens[i]);
  }
}

TEST(Generation, TheStepperSessionSamplesTheSameTokens) {
  const Fixture f;
  ForwardRequest r = make_forward_request(f.config, {.seed = 3}, f.prompt, 6, {.temperature = 1.3f, .min_p = 0.02f}, 5);
  const ForwardSession s = run_forward_session(r);
  // The session's byte vocabulary draws only bytes that keep the text valid UTF-8: the same constraint here.
  const Generation g = generate(f.config, f.weights, f.prompt, 6, {.temperature = 1.3f, .min_p = 0.02f}, 5, {},
                                [&](const std::vector<int>& ids) { return r.vocab().utf8_allowed_after(ids); });
  ASSERT_TRUE(g.error.empty()) << g.error;
  EXPECT_EQ(s.appended, g.tokens);
  // The session's traced passes may round differently in the last bits; the draws are the same tokens.
  ASSERT_EQ(s.appended_probability.size(), g.probability.size());
  for (size_t i = 0; i < g.probability.size(); ++i)
    EXPECT_NEAR(s.appended_probability[i], g.probability[i], 1e-5f * g.probability[i]) << i;
}

TEST(Generation, RefusalsAreMessages) {
  Fixture f;
  EXPECT_NE(generate(f.config, f.weights, {}, 3, {}, 1).error, "");
  EXPECT_NE(generate(f.config, f.weights, {f.config.vocab}, 3, {}, 1).error, "");
  EXPECT_NE(generate(f.config, f.weights, f.prompt, 3, {.temperature = 0.0f}, 1).error, "");
  // Stops at max_seq with what it had: max_seq − prompt appended, plus the one predicted after the last.
  f.config.max_seq = 10;
  const Generation g = generate(f.config, f.weights, f.prompt, 8, {}, 1);
  EXPECT_EQ(g.tokens.size(), 4u);
  EXPECT_NE(g.error.find("max_seq"), std::string::npos) << g.error;
  // Cancelling keeps what was generated.
  const Generation c = generate(f.config, f.weights, f.prompt, 3, {}, 1, [](int done, int) { return done < 2; });
  EXPECT_TRUE(c.cancelled);
  EXPECT_EQ(c.tokens.size(), 2u);
}

}  // namespace
}  // namespace tw
