#include "core/experiments/norm_analysis.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tw {
namespace {

const std::vector<double> kOneToNine{1, 2, 3, 4, 5, 6, 7, 8, 9};

// [1 … 9]: mean 5, biased variance (16+9+4+1+0+1+4+9+16)/9 = 60/9, mean square 285/9.
//   LayerNorm = (x − 5)/√(60/9 + ε) → −1.5491922, …, 0, …, 1.5491922 (ε = 1e-5; −1.5491933 with ε = 0)
//   RMSNorm   = x/√(285/9 + ε)      → 0.1777046, …, 1.5993417 (ε = 1e-5)
TEST(NormAnalysis, OneToNineExactValues) {
  const NormComparison r = compare_norms(kOneToNine, 4, 1e-5, 1);
  EXPECT_DOUBLE_EQ(r.mean, 5.0);
  EXPECT_NEAR(r.var, 60.0 / 9.0, 1e-12);
  EXPECT_NEAR(r.rms, std::sqrt(285.0 / 9.0), 1e-12);
  for (int i = 0; i < 9; ++i) {
    EXPECT_NEAR(r.layernorm[i], (i + 1 - 5.0) / std::sqrt(60.0 / 9.0 + 1e-5), 1e-6) << i;
    EXPECT_NEAR(r.rmsnorm[i], (i + 1) / std::sqrt(285.0 / 9.0 + 1e-5), 1e-6) << i;
  }
  EXPECT_NEAR(r.layernorm[0], -1.5491921766, 1e-6);
  EXPECT_NEAR(r.rmsnorm[8], 1.5993417174, 1e-6);
}

TEST(NormAnalysis, WhatEachStatisticRemoves) {
  const NormComparison r = compare_norms(kOneToNine, 4, 1e-5, 1);
  EXPECT_LT(r.layernorm_shift_change, 1e-5);  // LN removes the mean…
  EXPECT_LT(r.layernorm_scale_change, 1e-5);  // …and the scale
  EXPECT_LT(r.rmsnorm_scale_change, 1e-5);    // RMSNorm removes the scale…
  EXPECT_GT(r.rmsnorm_shift_change, 0.1);     // …but not a shift: 3x + 10 is not a multiple of x
}

TEST(NormAnalysis, BatchNormNormalisesColumnsAndDependsOnTheBatch) {
  const NormComparison a = compare_norms(kOneToNine, 8, 1e-5, 1);
  for (Eigen::Index c = 0; c < a.batchnorm.cols(); ++c) {
    const auto col = a.batchnorm.col(c).cast<double>();
    EXPECT_NEAR(col.mean(), 0.0, 1e-5) << "feature " << c;
    EXPECT_NEAR((col.array() - col.mean()).square().mean(), 1.0, 1e-3) << "feature " << c;
  }
  const NormComparison b = compare_norms(kOneToNine, 8, 1e-5, 2);  // same x, other batch mates
  double change = 0;
  for (int i = 0; i < 9; ++i) change = std::max(change, std::abs(a.batchnorm_row0[i] - b.batchnorm_row0[i]));
  EXPECT_GT(change, 0.01);
  EXPECT_EQ(a.layernorm, b.layernorm);  // LayerNorm of x ignores the rest of the batch
}

// 2/3 rule: C = 4096 → 8C/3 = 10922.67, int() = 10922, up to a multiple of 256 = 11008 (LLaMA-7B's F);
// plain 2·4096·16384 = 134,217,728 weights, gated 3·4096·11008 = 135,266,304 (ratio 1.0078).
TEST(NormAnalysis, TwoThirdsRuleKeepsTheParameterCount) {
  const auto rows = hidden_size_table({4096, 256}, 256);
  EXPECT_EQ(rows[0].llama_hidden, 11008);
  EXPECT_EQ(rows[0].plain_params, 134217728LL);
  EXPECT_EQ(rows[0].gated_params, 135266304LL);
  EXPECT_NEAR(rows[0].ratio, 135266304.0 / 134217728.0, 1e-12);
  EXPECT_NEAR(rows[0].exact_hidden, 4096.0 * 8 / 3, 1e-9);
  EXPECT_EQ(rows[1].llama_hidden, 768);  // int(682.67) = 682 → 768
  EXPECT_NE(check_norm_input({1.0}, 4, 1e-5).find("between 2 and 64"), std::string::npos);
  EXPECT_NE(check_norm_input({1.0, NAN}, 4, 1e-5).find("finite"), std::string::npos);
}

}  // namespace
}  // namespace tw
