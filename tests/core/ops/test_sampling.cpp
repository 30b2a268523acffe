#include "core/ops/sampling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace tw {
namespace {

// Every filter of a config that must be valid.
SamplingTrace filtered(const std::vector<float>& logits, const SamplingConfig& cfg) {
  EXPECT_EQ(validate(cfg), "");
  SamplingTrace t;
  sampling_filter(t, logits, cfg);
  return t;
}

SamplingTrace run(const std::vector<float>& logits, float temperature, int top_k, float top_p, int keep = 1) {
  SamplingConfig cfg;
  cfg.temperature = temperature;
  cfg.top_k = top_k;
  cfg.top_p = top_p;
  cfg.min_tokens_to_keep = keep;
  return filtered(logits, cfg);
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

SamplingTrace run_min_p(const std::vector<float>& logits, float min_p, float top_p = 1.0f, int keep = 1) {
  SamplingConfig cfg;
  cfg.min_p = min_p;
  cfg.top_p = top_p;
  cfg.min_tokens_to_keep = keep;
  return filtered(logits, cfg);
}

// min-p keeps p_i ≥ min_p · p_max, i.e. s_i ≥ s_max + ln(min_p): for logits [2, 1, 0, −1] the cut is
// 2 + ln 0.3 = 0.796 (keeps 2, 1) and 2 + ln 0.1 = −0.303 (keeps 2, 1, 0). Survivor probabilities are the
// softmax of the kept logits: [e, 1]/(e + 1) and [e², e, 1]/(e² + e + 1).
TEST(Sampling, MinPKeepsTokensAboveAFractionOfTheTopProbability) {
  const std::vector<float> logits{2.0f, 1.0f, 0.0f, -1.0f};
  const auto a = run_min_p(logits, 0.3f);
  EXPECT_EQ(a.kept_min_p, (std::vector<char>{1, 1, 0, 0}));
  expect_probs(a.probs, {0.7310585786, 0.2689414214, 0.0, 0.0});
  const auto b = run_min_p(logits, 0.1f);
  EXPECT_EQ(b.n_final, 3);
  expect_probs(b.probs, {0.6652409558, 0.2447284711, 0.0900305732, 0.0});
  EXPECT_EQ(run_min_p(logits, 1.0f).n_final, 1);           // only the top token reaches p_max
  EXPECT_EQ(run_min_p(logits, 1.0f, 1.0f, 2).n_final, 2);  // min_tokens_to_keep still holds
  EXPECT_EQ(run_min_p(logits, 0.0f).n_final, 4);           // 0 disables
}

TEST(Sampling, MinPComesAfterTopP) {
  // top-p 0.9 over softmax([2, 1, 0, −1]) = [0.644, 0.237, 0.087, 0.032] keeps three tokens (mass before the
  // third is 0.881 < 0.9); min-p 0.2 then drops the third (0 < 2 + ln 0.2 = 0.39).
  const auto t = run_min_p({2.0f, 1.0f, 0.0f, -1.0f}, 0.2f, 0.9f);
  EXPECT_EQ(t.n_top_p, 3);
  EXPECT_EQ(t.kept_top_p, (std::vector<char>{1, 1, 1, 0}));
  EXPECT_EQ(t.kept_min_p, (std::vector<char>{1, 1, 0, 0}));
  EXPECT_EQ(t.n_final, 2);
  SamplingConfig bad;
  bad.min_p = 1.5f;
  EXPECT_NE(validate(bad).find("min_p"), std::string::npos);
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
  EXPECT_EQ(run(logits, 1.0f, 10, 1.0f, 1).n_top_k, 4);                                  // k capped at V
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

// A deliberately plain reference: sort every token (descending, ties by id), count the k-th value, walk the
// prefix. The op uses nth_element and sorts only the survivors; both must keep the same tokens.
std::vector<char> naive_final(const std::vector<float>& logits, int top_k, float top_p, int keep) {
  const size_t V = logits.size();
  std::vector<size_t> order(V);
  for (size_t i = 0; i < V; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return logits[a] > logits[b]; });
  std::vector<char> kept(V, 1);
  if (top_k > 0) {
    const size_t k = std::min(V, static_cast<size_t>(std::max(top_k, keep)));
    for (size_t i = 0; i < V; ++i) kept[i] = logits[i] >= logits[order[k - 1]];
  }
  double z = 0.0, mx = logits[order[0]];
  for (size_t i = 0; i < V; ++i)
    if (kept[i]) z += std::exp(static_cast<double>(logits[i]) - mx);
  double before = 0.0;
  int rank = 0;
  std::vector<char> out = kept;
  for (size_t i : order) {
    if (!kept[i]) continue;
    out[i] = before < top_p || rank < keep;
    before += static_cast<float>(std::exp(static_cast<double>(logits[i]) - mx) / z);
    ++rank;
  }
  return out;
}

TEST(Sampling, MatchesAFullSortReferenceOnRandomLogitsWithTies) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const int V = 1 + static_cast<int>(rng() % 60);
    std::vector<float> logits(static_cast<size_t>(V));
    for (float& l : logits) l = static_cast<float>(static_cast<int>(rng() % 9)) * 0.5f;  // few values: many ties
    const int top_k = static_cast<int>(rng() % 12);
    const float top_p = 0.05f + 0.95f * static_cast<float>(rng() % 100) / 100.0f;
    const int keep = 1 + static_cast<int>(rng() % 3);
    EXPECT_EQ(run(logits, 1.0f, top_k, top_p, keep).kept_top_p, naive_final(logits, top_k, top_p, keep))
        << "trial " << trial;
  }
}

TEST(Sampling, ArgmaxIsGreedy) { EXPECT_EQ(argmax_token({0.1f, 2.0f, -1.0f, 2.0f}), 1); }

TEST(Sampling, AllowedTokensAreTheOnlyCandidates) {
  // Logits 3, 2, 1, 0 with token 0 not allowed: top-k 2 keeps tokens 1 and 2, and the draw renormalises over them.
  const std::vector<float> logits{3, 2, 1, 0};
  const std::vector<char> allowed{0, 1, 1, 1};
  SamplingTrace t;
  sampling_filter(t, logits, {.temperature = 1, .top_k = 2}, &allowed);
  EXPECT_EQ(t.kept_min_p, (std::vector<char>{0, 1, 1, 0}));
  const double z = std::exp(2.0) + std::exp(1.0);
  EXPECT_NEAR(t.probs[1], std::exp(2.0) / z, 1e-6);
  EXPECT_NEAR(t.probs[2], std::exp(1.0) / z, 1e-6);
  EXPECT_EQ(t.probs[0], 0.0f);
  // probs_before stays the model's own distribution, the disallowed token included.
  EXPECT_NEAR(t.probs_before[0], std::exp(3.0) / (std::exp(3.0) + z + 1.0), 1e-6);
  // A mask that allows nothing restricts nothing.
  const std::vector<char> none{0, 0, 0, 0};
  sampling_filter(t, logits, {.temperature = 1}, &none);
  EXPECT_EQ(t.n_final, 4);
}

}  // namespace
}  // namespace tw
