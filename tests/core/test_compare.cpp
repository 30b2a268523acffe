#include "core/compare.h"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace tw
