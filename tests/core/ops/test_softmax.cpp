// Softmax with temperature against numpy (script /tmp/opsattn/ref.py), invariants, and the empty-row rule.
#include "core/ops/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace tw {
namespace {

Mat row123() {
  Mat x(1, 3);
  x << 1, 2, 3;
  return x;
}

TEST(Softmax, MatchesNumpyAtSeveralTemperatures) {
  Mat p;
  Mat e1(1, 3), e2(1, 3), e05(1, 3);
  e1 << 0.0900305732f, 0.244728471f, 0.665240956f;  // softmax([1,2,3])
  e2 << 0.186323723f, 0.307195886f, 0.506480391f;   // softmax([1,2,3] / 2)
  e05 << 0.01587624f, 0.117310428f, 0.866813332f;   // softmax([1,2,3] / 0.5)
  softmax_rows(p, row123(), 1.0f);
  EXPECT_MAT_NEAR(p, e1, 1e-7f);
  softmax_rows(p, row123(), 2.0f);
  EXPECT_MAT_NEAR(p, e2, 1e-7f);
  softmax_rows(p, row123(), 0.5f);
  EXPECT_MAT_NEAR(p, e05, 1e-7f);
}

TEST(Softmax, RowsSumToOneAndHugeLogitsDoNotOverflow) {
  Mat x = Mat::Random(6, 50) * 1000.0f;  // exp(1000) overflows float without the max subtraction
  Mat p;
  EXPECT_EQ(softmax_rows(p, x), 0);
  ASSERT_TRUE(all_finite(p));
  for (int r = 0; r < 6; ++r) EXPECT_NEAR(p.row(r).sum(), 1.0f, 1e-5f);
}

TEST(Softmax, ShiftInvariant) {
  Mat x = Mat::Random(2, 7);
  Mat shifted = x.array() + 42.0f;
  Mat a, b;
  softmax_rows(a, x);
  softmax_rows(b, shifted);
  EXPECT_MAT_NEAR(a, b, 1e-6f);
}

TEST(Softmax, MaskedEntriesAreZeroAndEmptyRowsFlaggedNotNaN) {
  Mat x(3, 3);
  x << 1, kNegInf, 3, kNegInf, kNegInf, kNegInf, 0, 0, kNegInf;
  Mat p;
  std::vector<char> empty;
  EXPECT_EQ(softmax_rows(p, x, 1.0f, &empty), 1);
  EXPECT_EQ(empty, (std::vector<char>{0, 1, 0}));
  ASSERT_TRUE(all_finite(p));
  EXPECT_EQ(p(0, 1), 0.0f);
  EXPECT_NEAR(p(0, 2), 1.0f / (1.0f + std::exp(-2.0f)), 1e-7f);
  EXPECT_EQ(p.row(1).sum(), 0.0f);
  EXPECT_FLOAT_EQ(p(2, 0), 0.5f);
  EXPECT_EQ(p(2, 2), 0.0f);
}

TEST(Softmax, EntropyInBits) {
  Mat p;
  softmax_rows(p, row123());
  EXPECT_NEAR(entropy_bits(p.row(0)), 1.2008929779783633, 1e-6);  // numpy: -(p*log2 p).sum()
  RowVec uniform = RowVec::Constant(8, 0.125f);
  EXPECT_NEAR(entropy_bits(uniform), 3.0, 1e-6);
  RowVec onehot = RowVec::Zero(4);
  onehot[2] = 1.0f;
  EXPECT_EQ(entropy_bits(onehot), 0.0);
}

TEST(Softmax, ArgmaxAndSelfGradient) {
  const float v[] = {0.1f, 0.7f, 0.7f, 0.2f};
  EXPECT_EQ(argmax(v, 4), 1);
  EXPECT_EQ(argmax(v, 0), -1);
  EXPECT_DOUBLE_EQ(softmax_self_gradient(0.5), 0.25);
  EXPECT_DOUBLE_EQ(softmax_self_gradient(1.0), 0.0);
}

// A NaN row is not a masked row: it stays NaN (and is not flagged empty) instead of turning into zeros.
TEST(Softmax, NaNRowStaysNaNNotZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float all_nan[3] = {nan, nan, nan};
  EXPECT_TRUE(softmax_inplace(all_nan, 3, 1.0f));
  for (float v : all_nan) EXPECT_TRUE(std::isnan(v));
  float nan_and_masked[3] = {nan, kNegInf, kNegInf};
  EXPECT_TRUE(softmax_inplace(nan_and_masked, 3, 1.0f));
  EXPECT_TRUE(std::isnan(nan_and_masked[0]));
  float masked[2] = {kNegInf, kNegInf};
  EXPECT_FALSE(softmax_inplace(masked, 2, 1.0f));
  EXPECT_EQ(masked[0], 0.0f);
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

// log(e¹ + e² + e³) = 3 + log(1 + e⁻¹ + e⁻²) = 3.40760596444438 (by hand; numpy's logaddexp.reduce agrees).
TEST(LogSumExp, HandValuesInFloatAndDoubleAndNoOverflow) {
  const float f[] = {1.0f, 2.0f, 3.0f};
  const double d[] = {1.0, 2.0, 3.0};
  EXPECT_NEAR(log_sum_exp(f, 3), 3.40760596444438, 1e-12);
  EXPECT_NEAR(log_sum_exp(d, 3), 3.40760596444438, 1e-12);
  // exp(1000) overflows a double: with the maximum taken out, 1000 + log 2.
  const float big[] = {1000.0f, 1000.0f};
  EXPECT_NEAR(log_sum_exp(big, 2), 1000.0 + std::log(2.0), 1e-9);
  const float tiny[] = {-1000.0f, -1000.0f, -1000.0f};
  EXPECT_NEAR(log_sum_exp(tiny, 3), -1000.0 + std::log(3.0), 1e-9);
  // Blocked entries add nothing; a row of only blocked entries (or none) has sum 0, log −∞, never NaN.
  const float masked[] = {kNegInf, 0.0f, kNegInf};
  EXPECT_DOUBLE_EQ(log_sum_exp(masked, 3), 0.0);
  const float none[] = {kNegInf, kNegInf};
  EXPECT_EQ(log_sum_exp(none, 2), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(log_sum_exp(none, 0), -std::numeric_limits<double>::infinity());
}

TEST(LogSumExp, LogSoftmaxIsTheLogOfTheSoftmaxRows) {
  const Mat x = (Mat(1, 5) << 0.3f, -2.0f, 4.5f, 4.5f, 1.0f).finished();
  Mat p;
  softmax_rows(p, x);
  const std::vector<double> lp = log_softmax(x.data(), 5);
  double total = 0;
  for (int j = 0; j < 5; ++j) {
    EXPECT_NEAR(std::exp(lp[size_t(j)]), p(0, j), 1e-6) << j;
    total += std::exp(lp[size_t(j)]);
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(lp[2], lp[3]);  // equal logits, equal log-probabilities
}

TEST(LogSumExp, SoftmaxOfDoublesMatchesHandValuesAtATemperature) {
  // softmax([0, ln 3] / 1) = [1/4, 3/4]; at τ = 2: [0, ln 3 / 2] → [1/(1+√3), √3/(1+√3)].
  const std::vector<double> a = softmax({0.0, std::log(3.0)});
  EXPECT_NEAR(a[0], 0.25, 1e-15);
  EXPECT_NEAR(a[1], 0.75, 1e-15);
  const std::vector<double> b = softmax({0.0, std::log(3.0)}, 2.0);
  EXPECT_NEAR(b[0], 1.0 / (1.0 + std::sqrt(3.0)), 1e-15);
  EXPECT_NEAR(b[1], std::sqrt(3.0) / (1.0 + std::sqrt(3.0)), 1e-15);
  EXPECT_TRUE(softmax({}).empty());
  const std::vector<double> c = softmax({800.0, 800.0, -800.0});  // no overflow
  EXPECT_NEAR(c[0], 0.5, 1e-15);
  EXPECT_EQ(c[2], 0.0);
}

}  // namespace
}  // namespace tw
