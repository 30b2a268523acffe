// ALiBi analysis: the last query's distribution against numpy and against the closed-form geometric series,
// the "add m·j" shortcut (equal for causal, not for symmetric), shapes, determinism and input validation.
#include "core/experiments/alibi_analysis.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/ops/alibi.h"
#include "test_util.h"

namespace tw {
namespace {

TEST(AlibiAnalysis, LastQueryUniformMatchesNumpy) {
  // H = 2 → slopes 1/16, 1/256. numpy: p ∝ exp(−(1/16)·[2, 1, 0]).
  const AlibiParams p{.n_heads = 2, .train_len = 2, .eval_len = 3};
  const AlibiAnalysis a = analyze_alibi(p);
  ASSERT_EQ(a.error, "");
  EXPECT_NEAR(a.last_query_probs(0, 0), 0.312730354, 1e-6);
  EXPECT_NEAR(a.last_query_probs(0, 1), 0.332899729, 1e-6);
  EXPECT_NEAR(a.last_query_probs(0, 2), 0.354369917, 1e-6);
  EXPECT_NEAR(a.mean_distance[0], 0.958360437, 1e-6);
  EXPECT_NEAR(a.mass_beyond_train[0], 0.312730354, 1e-6);  // only distance 2 ≥ train_len
  EXPECT_EQ(a.half_mass_distance[0], 1);                   // 0.354 < 0.5 ≤ 0.354 + 0.333
}

TEST(AlibiAnalysis, UniformScoresFollowTheGeometricSeries) {
  // With equal scores, p(d) = (1 − r) r^d / (1 − r^n), r = e^{−m}: closed forms for mean distance and tail mass.
  AlibiParams p;
  p.n_heads = 8;  // slopes 1/2, 1/4, ...
  p.eval_len = 200;
  p.train_len = 10;
  const AlibiAnalysis a = analyze_alibi(p);
  for (int h : {0, 1, 2}) {
    const double r = std::exp(-a.slopes[h]), n = p.eval_len, L = p.train_len;
    double mean = 0.0;
    for (int d = 0; d < n; ++d) mean += d * (1 - r) * std::pow(r, d) / (1 - std::pow(r, n));
    EXPECT_NEAR(a.mean_distance[h], mean, 1e-4) << h;
    EXPECT_NEAR(a.mass_beyond_train[h], std::pow(r, L) * (1 - std::pow(r, n - L)) / (1 - std::pow(r, n)), 1e-5) << h;
  }
  // Steeper slopes forget faster.
  EXPECT_LT(a.mean_distance[0], a.mean_distance[1]);
  EXPECT_LT(a.mass_beyond_train[0], a.mass_beyond_train[7]);
}

TEST(AlibiAnalysis, AddMjShortcutEqualsCausalBiasButNotSymmetric) {
  AlibiParams p;
  p.n_heads = 12;
  p.T = 40;
  p.random_scores = true;
  p.seed = 3;
  const AlibiAnalysis causal = analyze_alibi(p);
  EXPECT_TRUE(causal.equivalence_applies);
  EXPECT_EQ(causal.equivalence_T, 40);
  EXPECT_LT(causal.equivalence_max_diff, 1e-6);
  p.symmetric = true;
  const AlibiAnalysis sym = analyze_alibi(p);
  EXPECT_FALSE(sym.equivalence_applies);
  EXPECT_GT(sym.equivalence_max_diff, 0.1);
}

TEST(AlibiAnalysis, MatricesShapesAndDeterminism) {
  const AlibiParams p{.n_heads = 5, .T = 20, .head = 4, .random_scores = true, .thumb_T = 8};
  const AlibiAnalysis a = analyze_alibi(p), b = analyze_alibi(p);
  Mat expected;
  alibi_bias(expected, alibi_slopes(5)[4], 20, 20, 0, false);
  EXPECT_MAT_NEAR(a.bias, expected, 0.0f);
  ASSERT_EQ(a.thumbs.size(), 5u);
  EXPECT_EQ(a.thumbs[2].rows(), 8);
  EXPECT_MAT_NEAR(a.last_query_probs, b.last_query_probs, 0.0f);
  for (int h = 0; h < 5; ++h) EXPECT_NEAR(a.last_query_probs.row(h).sum(), 1.0f, 1e-5f);
}

TEST(AlibiAnalysis, InvalidParametersGiveMessages) {
  AlibiParams p;
  p.n_heads = 65;
  EXPECT_EQ(analyze_alibi(p).error, "number of heads must be in 1..64, got 65");
  p.n_heads = 4;
  p.head = 4;
  EXPECT_EQ(analyze_alibi(p).error, "selected head must be in 0..3, got 4");
}

}  // namespace
}  // namespace tw
