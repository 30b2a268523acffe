#include "core/experiments/rope_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "test_util.h"

namespace tw {
namespace {

RopeAnalysisParams small_params() {
  RopeAnalysisParams p;
  p.rope.head_dim = 8;
  p.rope.base = 10000.0;
  p.positions = 16;
  p.max_distance = 1000;
  return p;
}

TEST(RopeAnalysis, WavelengthsAreTwoPiOverTheta) {
  const auto r = analyze_rope(small_params());
  ASSERT_EQ(r.wavelength.size(), 4u);
  const double two_pi = 2.0 * std::numbers::pi;
  EXPECT_NEAR(r.wavelength[0], two_pi, 1e-12);
  EXPECT_NEAR(r.wavelength[3], two_pi * 1000.0, 1e-9);  // θ_3 = 10000^(−6/8) = 1e−3
  EXPECT_EQ(r.wavelength_scaled, r.wavelength);         // no scaling
}

TEST(RopeAnalysis, LinearScalingStretchesEveryWavelength) {
  auto p = small_params();
  p.rope.scaling = RopeScaling::Linear;
  p.rope.factor = 4.0;
  const auto r = analyze_rope(p);
  for (size_t k = 0; k < r.wavelength.size(); ++k) EXPECT_NEAR(r.wavelength_scaled[k], 4.0 * r.wavelength[k], 1e-9);
}

TEST(RopeAnalysis, SelfSimilarityMatchesNumpy) {
  // numpy: th = 10000.0 ** (-np.arange(0, 8, 2) / 8); np.cos(d*th).mean()
  const auto r = analyze_rope(small_params());
  EXPECT_NEAR(r.self_similarity[0], 1.0, 1e-15);
  EXPECT_NEAR(r.self_similarity[1], 0.883813992890718, 1e-12);
  EXPECT_NEAR(r.self_similarity[10], 0.4240462356215946, 1e-12);
  EXPECT_NEAR(r.self_similarity[100], 0.3896384535893492, 1e-12);
  EXPECT_NEAR(r.self_similarity[1000], 0.2814821813425167, 1e-12);
}

TEST(RopeAnalysis, ScoreCurveIsRelativeDistanceOnly) {
  auto p = small_params();
  p.rope.head_dim = 16;
  p.max_distance = 50;
  const auto r = analyze_rope(p);
  // Distance 0: nothing rotates relative to the key, so the score is the plain dot product.
  EXPECT_NEAR(r.score[0], r.q.row(0).cast<double>().dot(r.k.row(0).cast<double>()), 1e-5);
  // Distance d equals rotating q to 100 + d and k to 100 with the op directly.
  for (int d : {1, 7, 50}) {
    Mat qr, kr;
    rope_apply(qr, r.q, p.rope, 1, 100 + d);
    rope_apply(kr, r.k, p.rope, 1, 100);
    EXPECT_NEAR(r.score[static_cast<size_t>(d)], qr.row(0).dot(kr.row(0)), 1e-4) << "d = " << d;
  }
}

TEST(RopeAnalysis, PlaneOfPairRotatesByPositionTimesTheta) {
  auto p = small_params();
  p.pair = 1;
  p.query_pos = 5;
  p.key_pos = 2;
  for (RopeConvention conv : {RopeConvention::HalfSplit, RopeConvention::Interleaved}) {
    p.rope.convention = conv;
    const auto r = analyze_rope(p);
    EXPECT_NEAR(r.q_angle, 5 * 0.1, 1e-12);
    EXPECT_NEAR(r.k_angle, 2 * 0.1, 1e-12);
    // Rotated q pair equals the pair read from the op's output.
    Mat qr;
    rope_apply(qr, r.q, p.rope, 1, 5);
    const int a = conv == RopeConvention::Interleaved ? 2 : 1, b = conv == RopeConvention::Interleaved ? 3 : 5;
    EXPECT_NEAR(r.q_rotated[0], qr(0, a), 1e-5);
    EXPECT_NEAR(r.q_rotated[1], qr(0, b), 1e-5);
    EXPECT_NEAR(std::hypot(r.k_rotated[0], r.k_rotated[1]), std::hypot(r.k_pair[0], r.k_pair[1]), 1e-12);
  }
}

TEST(RopeAnalysis, AngleHeatmapIsCosOfPositionTimesTheta) {
  const auto r = analyze_rope(small_params());
  ASSERT_EQ(r.cos_angle.rows(), 16);
  ASSERT_EQ(r.cos_angle.cols(), 4);
  EXPECT_FLOAT_EQ(r.cos_angle(0, 3), 1.0f);
  EXPECT_NEAR(r.cos_angle(7, 0), std::cos(7.0), 1e-7);
  EXPECT_NEAR(r.cos_angle(15, 1), std::cos(1.5), 1e-7);
}

TEST(RopeAnalysis, LiveChecksPassForEveryConventionAndScaling) {
  auto p = small_params();
  p.rope.head_dim = 64;
  p.query_pos = 3000;
  p.key_pos = 17;
  p.rope.original_context = 2048;
  p.rope.factor = 4.0;
  for (RopeConvention conv : {RopeConvention::HalfSplit, RopeConvention::Interleaved}) {
    for (RopeScaling s : {RopeScaling::None, RopeScaling::Linear, RopeScaling::NtkAware, RopeScaling::DynamicNtk,
                          RopeScaling::Llama3}) {
      p.rope.convention = conv;
      p.rope.scaling = s;
      ASSERT_EQ(validate(p), "");
      const auto r = analyze_rope(p);
      EXPECT_TRUE(r.shift_invariant) << to_string(s) << " " << r.shift_error;
      EXPECT_TRUE(r.norm_preserved) << to_string(s) << " " << r.norm_error;
      EXPECT_TRUE(r.conventions_agree) << to_string(s) << " " << r.convention_error;
    }
  }
}

TEST(RopeAnalysis, SeededAndValidated) {
  auto p = small_params();
  EXPECT_MAT_NEAR(analyze_rope(p).q, analyze_rope(p).q, 0.0f);
  auto p2 = p;
  p2.seed = 2;
  EXPECT_GT(max_abs_diff(analyze_rope(p).q, analyze_rope(p2).q), 0.1f);
  p.pair = 4;  // D/2 = 4 pairs: 0 … 3
  EXPECT_NE(validate(p).find("pair"), std::string::npos);
  p.pair = 0;
  p.rope.head_dim = 5;
  EXPECT_NE(validate(p), "");
}

}  // namespace
}  // namespace tw
