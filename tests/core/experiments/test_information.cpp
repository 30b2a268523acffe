#include "core/experiments/information.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/ops/softmax.h"

namespace tw {
namespace {

// Hand-worked: p = [1/2, 1/4, 1/4], q = [1/4, 1/2, 1/4].
//   H(p) = ½·1 + ¼·2 + ¼·2 = 1.5 bits;  H(p, q) = ½·2 + ¼·1 + ¼·2 = 1.75 bits;  KL(p‖q) = 0.25 bits;
//   H(q) = 1.5 bits, H(q, p) = ¼·1 + ½·2 + ¼·2 = 1.75, so KL(q‖p) = 0.25 as well (a symmetric pair by design).
TEST(Information, HandWorkedEntropyCrossEntropyAndKl) {
  const InformationMeasures m = information_measures({0.5, 0.25, 0.25}, {0.25, 0.5, 0.25});
  EXPECT_NEAR(m.entropy_p, 1.5, 1e-12);
  EXPECT_NEAR(m.entropy_q, 1.5, 1e-12);
  EXPECT_NEAR(m.cross_entropy, 1.75, 1e-12);
  EXPECT_NEAR(m.kl_pq, 0.25, 1e-12);
  EXPECT_NEAR(m.kl_qp, 0.25, 1e-12);
  EXPECT_NEAR(m.perplexity, std::pow(2.0, 1.75), 1e-12);
}

// A uniform guess over V tokens: cross-entropy ln V nats against any target, perplexity V (ln 256 = 5.545177...).
TEST(Information, UniformGuessLossIsLnVAndItsPerplexityIsV) {
  EXPECT_NEAR(uniform_loss_nats(256), 5.545177444479562, 1e-12);
  EXPECT_EQ(uniform_loss_nats(1), 0.0);
  for (int v : {2, 3, 50257}) EXPECT_NEAR(perplexity_from_loss(uniform_loss_nats(v)), v, 1e-9 * v);
}

// KL is not symmetric: p = [0.9, 0.1], q = [0.5, 0.5].
//   KL(p‖q) = 0.9 log2(1.8) + 0.1 log2(0.2) = 0.531004...;  KL(q‖p) = 0.5 log2(0.5/0.9) + 0.5 log2(5) = 0.736966...
TEST(Information, KlIsNotSymmetric) {
  const InformationMeasures m = information_measures({0.9, 0.1}, {0.5, 0.5});
  EXPECT_NEAR(m.kl_pq, 0.9 * std::log2(1.8) + 0.1 * std::log2(0.2), 1e-12);
  EXPECT_NEAR(m.kl_pq, 0.5310044064, 1e-9);
  EXPECT_NEAR(m.kl_qp, 0.7369655942, 1e-9);
}

TEST(Information, KlIsNonNegativeAndZeroOnlyForEqualDistributions) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> a(6), b(6);
    for (int i = 0; i < 6; ++i) a[i] = u(rng), b[i] = u(rng);
    const auto p = softmax(a), q = softmax(b);
    const InformationMeasures m = information_measures(p, q);
    EXPECT_GT(m.kl_pq, 0.0);
    EXPECT_NEAR(m.kl_pq, m.cross_entropy - m.entropy_p, 1e-9);  // KL = H(p, q) − H(p)
    EXPECT_EQ(information_measures(p, p).kl_pq, 0.0);
  }
}

TEST(Information, MissingSupportIsInfiniteNotNaN) {
  const InformationMeasures m = information_measures({0.5, 0.5, 0.0}, {1.0, 0.0, 0.0});
  EXPECT_TRUE(std::isinf(m.cross_entropy));
  EXPECT_TRUE(std::isinf(m.kl_pq));
  EXPECT_NEAR(m.kl_qp, 1.0, 1e-12);  // q's support lies inside p's: KL(q‖p) = 1·log2(1/0.5)
  EXPECT_EQ(m.entropy_q, 0.0);       // 0 log 0 = 0
}

TEST(Information, UniformEntropyAndPerplexityCountTheChoices) {
  const std::vector<double> u8(8, 1.0 / 8);
  const InformationMeasures m = information_measures(u8, u8);
  EXPECT_NEAR(m.entropy_p, 3.0, 1e-12);
  EXPECT_NEAR(m.perplexity, 8.0, 1e-9);
  // A loss of ln 8 nats is perplexity 8.
  EXPECT_NEAR(perplexity_from_loss(std::log(8.0)), 8.0, 1e-12);
}

TEST(Information, ChecksDistributions) {
  EXPECT_EQ(check_distribution({0.25, 0.75}), "");
  EXPECT_NE(check_distribution({0.5, 0.6}).find("sum to 1"), std::string::npos);
  EXPECT_NE(check_distribution({-0.5, 1.5}).find("non-negative"), std::string::npos);
  EXPECT_NE(check_distribution({}).find("empty"), std::string::npos);
  const auto t = softmax({1.0, 2.0, 3.0}, 2.0);  // same numbers as the sampling test's temperature 2
  EXPECT_NEAR(t[0], 0.18632372, 1e-8);
  EXPECT_NEAR(t[2], 0.50648039, 1e-8);
}

}  // namespace
}  // namespace tw
