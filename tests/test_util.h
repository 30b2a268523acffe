#pragma once
// Test helpers: shape-first tensor comparison that prints the worst difference.
#include <gtest/gtest.h>

#include <sstream>

#include "core/compare.h"

namespace tw::testing {

inline ::testing::AssertionResult MatNear(const Mat& actual, const Mat& expected, float tol) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    return ::testing::AssertionFailure() << "shape (" << actual.rows() << ", " << actual.cols() << ") != expected ("
                                         << expected.rows() << ", " << expected.cols() << ")";
  }
  const float d = max_abs_diff(actual, expected);
  if (d <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max |actual - expected| = " << d << " > tol " << tol;
}

}  // namespace tw::testing

#define EXPECT_MAT_NEAR(a, b, tol) EXPECT_TRUE(::tw::testing::MatNear((a), (b), (tol)))
#define ASSERT_MAT_NEAR(a, b, tol) ASSERT_TRUE(::tw::testing::MatNear((a), (b), (tol)))
