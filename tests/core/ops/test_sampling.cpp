#include "core/ops/sampling.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tw {
namespace {

SamplingTrace run(const std::vector<float>& logits, float temperature, int top_k, float top_p, int keep = 1) {
  SamplingConfig cfg;
  cfg.temperature = temperature;
  cfg.top_k = top_k;
  cfg.top_p = top_p;
  cfg.min_tokens_to_keep = keep;
  EXPECT_EQ(validate(cfg), "");
  SamplingTrace t;
  sampling_filter(t, logits, cfg);
  return t;
}

void expect_probs(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "token " << i;
}

// Reference distributions from /tmp/ops-pos/sampling_ref.py: HF's warpers (temperature, TopK with
// `scores < topk[-1]`, TopP with ascending cumsum `<= 1 - p`) rewritten in numpy, float64.
TEST(Sampling, TemperatureDividesLogits) {
  const auto t = run({1.0f, 2.0f, 3.0f}, 2.0f, 0, 1.0f);
  EXPECT_FLOAT_EQ(t.scaled_logits[2], 1.5f);
  expect_probs(t.probs, {0.18632372, 0.30719589, 0.50648039});
  EXPECT_EQ(t.n_final, 3);
  // Lower temperature sharpens: the top token's probability grows.
  EXPECT_GT(run({1.0f, 2.0f, 3.0f}, 0.5f, 0, 1.0f).probs[2], t.probs[2]);
}

TEST(Sampling, TopKThenTopPMatchesHuggingFaceOrder) {
  const auto t = run({2.0f, 1.0f, 0.5f, -1.0f, 3.0f}, 0.7f, 3, 0.8f);
  EXPECT_EQ(t.kept_top_k, (std::vector<char>{1, 1, 0, 0, 1}));
  EXPECT_EQ(t.kept_top_p, (std::vector<char>{1, 0, 0, 0, 1}));
  EXPECT_EQ(t.n_top_k, 3);
  EXPECT_EQ(t.n_final, 2);
  expect_probs(t.probs, {0.19332137, 0.0, 0.0, 0.0, 0.80667863});
  expect_probs(run({2.0f, 1.0f, 0.5f, -1.0f, 3.0f}, 0.7f, 0, 0.95f).probs,
               {0.18476143, 0.04427827, 0.0, 0.0, 0.7709603});
}

TEST(Sampling, TopKKeepsTiesAtTheKthValue) {
  // Sorted: 3, 2, 2, 1, 0. With k = 2 the 2nd largest is 2, and both tokens holding 2 survive.
  const auto t = run({1.0f, 3.0f, 2.0f, 2.0f, 0.0f}, 1.0f, 2, 1.0f);
  EXPECT_EQ(t.kept_top_k, (std::vector<char>{0, 1, 1, 1, 0}));
  EXPECT_EQ(t.n_top_k, 3);
  EXPECT_NEAR(t.probs[2], t.probs[3], 1e-7);
  const auto k1 = run({1.0f, 3.0f, 2.0f, 2.0f, 0.0f}, 1.0f, 1, 1.0f);
  EXPECT_EQ(k1.n_final, 1);
  EXPECT_FLOAT_EQ(k1.probs[1], 1.0f);
}

TEST(Sampling, TopPKeepsTheCrossingToken) {
  // Probabilities 0.5, 0.3, 0.2 (logits are their logs). p = 0.6: 0.5 alone does not reach 0.6, so the
  // token that crosses (0.3) is kept as well; 0.2 is dropped.
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.2f)};
  const auto t = run(logits, 1.0f, 0, 0.6f);
  EXPECT_EQ(t.kept_top_p, (std::vector<char>{1, 1, 0}));
  expect_probs(t.probs, {0.625, 0.375, 0.0});
  // p = 0.45: the first token already reaches it.
  EXPECT_EQ(run(logits, 1.0f, 0, 0.45f).kept_top_p, (std::vector<char>{1, 0, 0}));
  // p = 0.85 crosses at the third token.
  EXPECT_EQ(run(logits, 1.0f, 0, 0.85f).n_final, 3);
}

TEST(Sampling, MinTokensToKeepOverridesFilters) {
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  EXPECT_EQ(run(logits, 1.0f, 0, 0.1f, 1).n_final, 1);
  EXPECT_EQ(run(logits, 1.0f, 0, 0.1f, 2).kept_top_p, (std::vector<char>{1, 1, 0, 0}));
  EXPECT_EQ(run(logits, 1.0f, 1, 1.0f, 3).kept_top_k, (std::vector<char>{1, 1, 1, 0}));  // k raised to 3
  EXPECT_EQ(run(logits, 1.0f, 10, 1.0f, 1).n_top_k, 4);                                   // k capped at V
}

TEST(Sampling, ValidateRejectsBadConfig) {
  SamplingConfig cfg;
  cfg.temperature = 0.0f;
  EXPECT_NE(validate(cfg), "");
  cfg = {};
  cfg.top_p = 0.0f;
  EXPECT_NE(validate(cfg), "");
  cfg = {};
  cfg.top_k = -1;
  EXPECT_NE(validate(cfg), "");
  cfg = {};
  cfg.min_tokens_to_keep = 0;
  EXPECT_NE(validate(cfg), "");
}

TEST(Sampling, SeededDrawsAreDeterministicAndFollowTheDistribution) {
  const auto t = run({2.0f, 1.0f, 0.5f, -1.0f, 3.0f}, 1.0f, 3, 1.0f);
  std::mt19937_64 a(42), b(42), c(43);
  std::vector<int> sa, sb, sc;
  for (int i = 0; i < 200; ++i) {
    sa.push_back(sample_token(t.probs, a));
    sb.push_back(sample_token(t.probs, b));
    sc.push_back(sample_token(t.probs, c));
  }
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, sc);
  // 40000 draws: each kept token's frequency within 0.01 of its probability (≈ 4 standard deviations);
  // filtered tokens are never drawn.
  std::mt19937_64 rng(7);
  std::vector<int> count(5, 0);
  const int n = 40000;
  for (int i = 0; i < n; ++i) ++count[static_cast<size_t>(sample_token(t.probs, rng))];
  for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(count[i] / static_cast<double>(n), t.probs[i], 0.01) << "token " << i;
  EXPECT_EQ(count[2] + count[3], 0);
}

TEST(Sampling, ArgmaxIsGreedy) {
  EXPECT_EQ(argmax_token({0.1f, 2.0f, -1.0f, 2.0f}), 1);
}

}  // namespace
}  // namespace tw
