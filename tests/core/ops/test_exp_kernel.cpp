#include "core/ops/exp_kernel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace tw {
namespace {

// Relative error of a float against e^y computed in double (the independent reference).
double rel_err(float got, double y) {
  const double want = std::exp(y);
  return std::abs(static_cast<double>(got) - want) / want;
}

// Over [−87, 0] (every input a row softmax or SiLU feeds it) the polynomial is within 2 float ulps (2 · 2⁻²³ of
// the value) of e^y, at 10001 points including both ends and exact multiples of ln 2 (where the reduction switches).
TEST(ExpKernel, WithinTwoUlpOfExpOverTheNonPositiveRange) {
  double worst = 0;
  for (int i = 0; i <= 10000; ++i) {
    const float y = -87.0f * static_cast<float>(i) / 10000.0f;
    worst = std::max(worst, rel_err(exp_nonpositive(y), y));
  }
  for (int k = 0; k <= 125; ++k) {
    const float y = static_cast<float>(-k * std::log(2.0));
    worst = std::max(worst, rel_err(exp_nonpositive(y), y));
  }
  EXPECT_LT(worst, 2.0 * std::ldexp(1.0, -23));
  EXPECT_EQ(exp_nonpositive(0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive(-0.0f), 1.0f);
}

// Below −87 the result is clamped to e^−87 (tiny, never negative, never a denormal); NaN and ±∞ stay non-finite.
TEST(ExpKernel, ClampsFarBelowAndPropagatesNonFinite) {
  const float e87 = exp_nonpositive(-87.0f);
  EXPECT_GT(e87, 0.0f);
  EXPECT_LT(e87, 1e-37f);
  EXPECT_EQ(exp_nonpositive(-1000.0f), e87);
  EXPECT_TRUE(std::isnan(exp_nonpositive(std::nanf(""))));
  EXPECT_FALSE(std::isfinite(exp_nonpositive(-std::numeric_limits<float>::infinity())));
}

// The row kernels: every element as the scalar function, out of place and in place (the same bits), and the
// returned sum is Σ e^(x − shift) to float precision for lengths that are not multiples of the 16 lanes.
TEST(ExpKernel, RowsMatchTheScalarFunctionAndSumThem) {
  for (int n : {0, 1, 15, 16, 17, 64, 250}) {
    std::vector<float> x(static_cast<size_t>(n)), p(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) x[size_t(i)] = std::sin(0.37f * static_cast<float>(i)) * 9.0f;  // in [−9, 9]
    const float shift = 9.5f;
    double want_sum = 0;
    for (int i = 0; i < n; ++i) want_sum += std::exp(static_cast<double>(x[size_t(i)] - shift));
    const float sum = exp_row(p.data(), x.data(), shift, n);
    std::vector<float> y = x;
    const float sum_inplace = exp_row_inplace(y.data(), shift, n);
    EXPECT_EQ(sum, sum_inplace) << "n " << n;
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(p[size_t(i)], exp_nonpositive(x[size_t(i)] - shift)) << "n " << n << " i " << i;
      EXPECT_EQ(y[size_t(i)], p[size_t(i)]) << "n " << n << " i " << i;
    }
    EXPECT_NEAR(sum, want_sum, 1e-6 * std::max(want_sum, 1.0)) << "n " << n;
  }
}

}  // namespace
}  // namespace tw
