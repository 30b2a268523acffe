// Stability tricks: the soft-cap curve and gradient against tanh and finite differences, QK-norm's bound, the z-loss
// curve against its closed form, and the training comparison's determinism.
#include "core/experiments/stability_tricks.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tw {
namespace {

TEST(Softcap, CurveAndGradient) {
  const double c = 5.0;
  const SoftcapCurve s = softcap_curve(c, -30, 30, 61);
  for (size_t i = 0; i < s.x.size(); ++i) {
    const double x = s.x[i];
    EXPECT_NEAR(s.capped[i], c * std::tanh(x / c), 1e-12);
    const double h = 1e-5;
    const double fd = (c * std::tanh((x + h) / c) - c * std::tanh((x - h) / c)) / (2 * h);
    EXPECT_NEAR(s.derivative[i], fd, 1e-8);
    EXPECT_LT(std::abs(s.capped[i]), c + 1e-12);
  }
  EXPECT_NEAR(s.derivative[30], 1.0, 1e-12);  // x = 0: the identity's slope
}

TEST(QkNorm, PlainScoresGrowLikeScaleSquaredNormedOnesDoNot) {
  const auto pts = qk_norm_sweep(32, 8, {1.0, 10.0}, 3);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_NEAR(pts[1].max_score_plain / pts[0].max_score_plain, 100.0, 1e-3 * 100);
  EXPECT_NEAR(pts[1].max_score_normed, pts[0].max_score_normed, 1e-4 * pts[0].max_score_normed);
  // |q̂·k̂| / √D ≤ √D for unit-RMS vectors (Cauchy–Schwarz: |q̂||k̂| = D).
  EXPECT_LE(pts[1].max_score_normed, std::sqrt(32.0) + 1e-4);
  EXPECT_GT(pts[1].max_prob_plain, pts[1].max_prob_normed);
}

TEST(ZLossCurve, TermIsCoefLogZSquaredAndGradientSumsToTwoCoefLogZ) {
  const ZLossCurve z = z_loss_curve(1e-3, -10, 10, 21);
  for (size_t i = 0; i < z.log_z.size(); ++i) {
    const double want = -10.0 + i;
    EXPECT_NEAR(z.log_z[i], want, 1e-9);
    EXPECT_NEAR(z.term[i], 1e-3 * want * want, 1e-12);
    EXPECT_NEAR(z.grad_sum[i], 2e-3 * want, 1e-12);  // Σ_v p_v = 1
  }
}

TEST(StabilityComparison, SameSettingsSameCurvesAndTheTrickIsOn) {
  ComparisonParams p;
  p.steps = 3;
  p.trick = StabilityTrick::ZLoss;
  ASSERT_EQ(validate(p), "");
  EXPECT_EQ(comparison_settings(p, true).z_loss, p.z_loss);
  EXPECT_EQ(comparison_settings(p, false).z_loss, 0.0);
  p.trick = StabilityTrick::QkNorm;
  EXPECT_TRUE(comparison_settings(p, true).model.qk_norm);
  const TrainingComparison a = compare_training(p), b = compare_training(p);
  ASSERT_EQ(a.without.loss.size(), 3u);
  ASSERT_EQ(a.with.loss.size(), 3u);
  EXPECT_EQ(a.without.loss, b.without.loss);
  EXPECT_EQ(a.with.loss, b.with.loss);
  // Step 1 is evaluated before any update: the same weights apart from QK-norm's γ, so the losses differ.
  EXPECT_NE(a.without.loss[0], a.with.loss[0]);
  p.lr = 0;
  EXPECT_NE(validate(p).find("lr"), std::string::npos);
}

}  // namespace
}  // namespace tw
