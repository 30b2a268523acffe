// RMSNorm and LayerNorm against numpy (script: /tmp/opsattn/ref.py, pasted below), plus invariants.
#include "core/ops/norm.h"

#include <gtest/gtest.h>

#include "test_util.h"

#include <algorithm>
#include <cmath>

namespace tw {
namespace {

Mat sample_x() {
  Mat x(2, 4);
  x << 1, 2, 3, 4, -1, 0.5f, 2, -3;
  return x;
}

TEST(Norm, RmsNormMatchesNumpy) {
  // numpy: x / sqrt(mean(x**2, -1) + 1e-5) * w
  Vec w(4);
  w << 0.5f, 1, 1.5f, 2;
  Mat expected(2, 4);
  expected << 0.182574064f, 0.730296256f, 1.64316658f, 2.92118503f, -0.2649061f, 0.2649061f, 1.5894366f, -3.1788732f;
  Mat y;
  Vec rstd;
  rmsnorm_forward(y, sample_x(), w, 1e-5f, &rstd);
  EXPECT_MAT_NEAR(y, expected, 1e-6f);
  EXPECT_NEAR(rstd[0], 1.0 / std::sqrt(7.5 + 1e-5), 1e-7);  // mean(x²) of row 0 = 30/4
}

TEST(Norm, LayerNormMatchesNumpy) {
  // numpy: (x - mean) / sqrt(var + 1e-5) * w + b   (biased variance)
  Vec w(4), b(4);
  w << 0.5f, 1, 1.5f, 2;
  b << 0.1f, -0.2f, 0.3f, 0;
  Mat expected(2, 4);
  expected << -0.57081771f, -0.647211807f, 0.97081771f, 2.68327084f, -0.0689340978f, 0.273015474f, 2.22584871f,
      -2.83809284f;
  Mat y;
  Vec mean;
  layernorm_forward(y, sample_x(), w, b, 1e-5f, &mean);
  EXPECT_MAT_NEAR(y, expected, 1e-6f);
  EXPECT_FLOAT_EQ(mean[1], -0.375f);
}

TEST(Norm, RmsNormOutputHasUnitRmsWithUnitWeight) {
  Mat x = Mat::Random(5, 64) * 7.0f;
  Mat y;
  rmsnorm_forward(y, x, Vec::Ones(64), 0.0f);
  for (int t = 0; t < 5; ++t) EXPECT_NEAR(std::sqrt(y.row(t).squaredNorm() / 64.0f), 1.0f, 1e-5f);
}

TEST(Norm, LayerNormOutputHasZeroMeanUnitVariance) {
  Mat x = Mat::Random(5, 64).array() * 3.0f + 100.0f;  // a large mean tests the two-pass variance
  Mat y;
  layernorm_forward(y, x, Vec::Ones(64), Vec::Zero(64), 0.0f);
  for (int t = 0; t < 5; ++t) {
    EXPECT_NEAR(y.row(t).mean(), 0.0f, 1e-5f);
    EXPECT_NEAR(y.row(t).squaredNorm() / 64.0f, 1.0f, 1e-4f);
  }
}

TEST(Norm, InPlaceEqualsOutOfPlace) {
  Mat x = Mat::Random(3, 8);
  Vec w = Vec::Random(8);
  Mat y;
  rmsnorm_forward(y, x, w, 1e-6f);
  rmsnorm_forward(x, x, w, 1e-6f);
  EXPECT_MAT_NEAR(x, y, 0.0f);
}

// The row sums run in 8 double lanes: widths that are not multiples of 8 (tails), and values whose squares
// overflow float (1e20² = 1e40) but not double, give x / rms(x) · γ as a double reference computes it.
TEST(Norm, RmsNormLanesMatchDoubleReferenceForAnyWidthAndHugeValues) {
  for (int C : {1, 7, 8, 13, 256}) {
    Mat x(2, C);
    Vec w(C);
    for (int c = 0; c < C; ++c) {
      x(0, c) = static_cast<float>((c % 5) - 2) * 0.75f + 0.1f;
      x(1, c) = (c % 2 ? -3e19f : 1e20f) * static_cast<float>(1 + c % 3);
      w[c] = 0.5f + 0.01f * static_cast<float>(c);
    }
    Mat y;
    rmsnorm_forward(y, x, w, 1e-6f);
    for (int t = 0; t < 2; ++t) {
      double ss = 0;
      for (int c = 0; c < C; ++c) ss += static_cast<double>(x(t, c)) * x(t, c);
      const double r = 1.0 / std::sqrt(ss / C + 1e-6);
      for (int c = 0; c < C; ++c) {
        const double want = x(t, c) * r * w[c];
        EXPECT_NEAR(y(t, c), want, 1e-6 * std::max(1.0, std::abs(want))) << "C " << C << " t " << t << " c " << c;
      }
    }
  }
}

TEST(Norm, RmsNormRowMatchesMatrixForm) {
  Mat x = Mat::Random(1, 16);
  Mat y;
  rmsnorm_forward(y, x, Vec::Ones(16), 1e-6f);
  Mat z(1, 16);
  rmsnorm_row(z.data(), x.data(), nullptr, 16, 1e-6f);
  EXPECT_MAT_NEAR(z, y, 1e-7f);
}

}  // namespace
}  // namespace tw
