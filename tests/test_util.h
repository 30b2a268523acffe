#pragma once
// Test helpers: shape-first tensor comparison that prints the worst difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/compare.h"

namespace tw::testing {

// `tol` is absolute for results of magnitude up to 1 and relative beyond: the same computation summed in another
// order (another CPU's BLAS kernel, another blocking, another thread count) agrees to a few ulps of the result's
// magnitude, so a fixed absolute bound that holds for values near 1 fails on values near 100 on some machine.
// tol = 0 stays an exact comparison (for results that must be bit-identical).
inline ::testing::AssertionResult MatNear(const Mat& actual, const Mat& expected, float tol) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    return ::testing::AssertionFailure() << "shape (" << actual.rows() << ", " << actual.cols() << ") != expected ("
                                         << expected.rows() << ", " << expected.cols() << ")";
  }
  const float d = max_abs_diff(actual, expected);
  const float magnitude = expected.size() ? expected.cwiseAbs().maxCoeff() : 0.0f;
  const float bound = tol * std::max(1.0f, magnitude);
  if (d <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max |actual - expected| = " << d << " > tol " << tol << " × max(1, "
                                       << magnitude << ") = " << bound;
}

}  // namespace tw::testing

#define EXPECT_MAT_NEAR(a, b, tol) EXPECT_TRUE(::tw::testing::MatNear((a), (b), (tol)))
#define ASSERT_MAT_NEAR(a, b, tol) ASSERT_TRUE(::tw::testing::MatNear((a), (b), (tol)))
