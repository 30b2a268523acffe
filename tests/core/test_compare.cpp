#include "core/compare.h"

#include <gtest/gtest.h>

#include "test_util.h"

#include <cmath>
#include <limits>

namespace tw {

TEST(Compare, MaxAbsDiffIsLargestEntryDifference) {
  Mat a(2, 2), b(2, 2);
  a << 1, 2, 3, 4;
  b << 1, 2.5f, 2, 4;
  EXPECT_FLOAT_EQ(max_abs_diff(a, b), 1.0f);
}

TEST(Compare, ShapeMismatchIsInfinite) { EXPECT_TRUE(std::isinf(max_abs_diff(Mat::Zero(2, 3), Mat::Zero(3, 2)))); }

TEST(Compare, RelativeDiffIsScaledByTheReferenceMagnitude) {
  Mat ref(1, 3), got(1, 3);
  ref << 100, -200, 50;
  got << 100, -200.002f, 50;
  EXPECT_NEAR(max_rel_diff(got, ref), 0.002 / 200, 1e-7);
  EXPECT_TRUE(std::isinf(max_rel_diff(Mat::Zero(2, 3), Mat::Zero(3, 2))));
}

TEST(Compare, NaNIsNeverClose) {
  Mat a = Mat::Zero(1, 2), b = Mat::Zero(1, 2);
  b(0, 1) = std::nanf("");
  EXPECT_FALSE(max_abs_diff(a, b) <= 1.0f);
  EXPECT_FALSE(max_rel_diff(b, a) <= 1.0f);
  EXPECT_FALSE(all_finite(b));
  EXPECT_TRUE(all_finite(a));
}

// all_finite tests exponent bits chunk by chunk: every position of a matrix longer than a chunk (and not a multiple
// of one) is checked, the extremes of the finite range pass, and NaN, +∞ and −∞ fail wherever they sit.
TEST(Compare, AllFiniteFindsEveryNonFiniteValueAndPassesTheFiniteExtremes) {
  Mat a = Mat::Constant(3, 1001, 1.0f);  // 3003 values: two full chunks of 1024 and a partial one
  a(0, 0) = std::numeric_limits<float>::max();
  a(1, 7) = -std::numeric_limits<float>::max();
  a(2, 3) = std::numeric_limits<float>::denorm_min();
  a(2, 4) = -0.0f;
  EXPECT_TRUE(all_finite(a));
  const float bad[] = {std::nanf(""), -std::nanf(""), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (float v : bad)
    for (Eigen::Index i :
         {Eigen::Index(0), Eigen::Index(1023), Eigen::Index(1024), Eigen::Index(2047), Eigen::Index(3002)}) {
      Mat b = a;
      b.data()[i] = v;
      EXPECT_FALSE(all_finite(b)) << "value " << v << " at flat index " << i;
      EXPECT_EQ(all_finite(b), b.allFinite());
    }
  EXPECT_TRUE(all_finite(Mat(0, 4)));
}

}  // namespace tw

namespace tw {
namespace {

// MatNear's tolerance scales with the result once it exceeds 1: rounding of a product of size ~100 summed in another
// order passes, a real error does not, and tol = 0 still demands equality.
TEST(MatNear, ToleranceIsRelativeToMagnitudeAboveOne) {
  Mat expected(1, 3), rounded(1, 3), wrong(1, 3);
  expected << 120.0f, -80.0f, 0.5f;
  rounded << 120.0001f, -80.0f, 0.5f;  // 1e-4 absolute = 8e-7 relative to 120
  wrong << 120.01f, -80.0f, 0.5f;
  EXPECT_TRUE(::tw::testing::MatNear(rounded, expected, 1e-5f));
  EXPECT_FALSE(::tw::testing::MatNear(wrong, expected, 1e-5f));
  EXPECT_FALSE(::tw::testing::MatNear(rounded, expected, 0.0f));
  Mat small(1, 2), small_off(1, 2);
  small << 0.5f, 0.25f;
  small_off << 0.5f, 0.25002f;  // below magnitude 1 the bound stays absolute
  EXPECT_FALSE(::tw::testing::MatNear(small_off, small, 1e-5f));
}

}  // namespace
}  // namespace tw
