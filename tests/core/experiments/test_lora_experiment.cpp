#include "core/experiments/lora_experiment.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace tw {
namespace {

// ΔW of 24 × 32 with σ = 1, 0.5, 0.25 and no noise; a rank-2 adapter, 200 steps, the sweep up to rank 8.
const LoraExperimentParams kSmall{
    .d_in = 32, .d_out = 24, .rank = 2, .true_rank = 3, .decay = 0.5, .noise = 0.0, .steps = 200, .max_sweep_rank = 8};

void expect_same_experiment(const LoraExperiment& a, const LoraExperiment& b) {
  ASSERT_EQ(a.ranks, b.ranks);
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(a.svd_error[i], b.svd_error[i]);
    if (std::isnan(b.lora_error[i]))
      EXPECT_TRUE(std::isnan(a.lora_error[i])) << "rank " << a.ranks[i];
    else
      EXPECT_EQ(a.lora_error[i], b.lora_error[i]) << "rank " << a.ranks[i];
  }
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.final_error, b.final_error);
  EXPECT_EQ(a.merge_error, b.merge_error);
  EXPECT_EQ(a.update_norm_alpha_r, b.update_norm_alpha_r);
  EXPECT_EQ(a.diverged, b.diverged);
  EXPECT_FALSE(a.sweep_pending);
}

// The panel's first answer leaves the sweep's other ranks untrained; completing it gives the one-call experiment,
// and fits kept in a memo give it again when the chosen rank or the sweep switch changes.
TEST(LoraExperiment, FirstAnswerThenSweepAndMemoGiveTheOneCallNumbers) {
  const LoraExperiment whole = run_lora_experiment(kSmall);
  LoraExperiment first = run_lora_experiment_first(kSmall);
  EXPECT_TRUE(first.sweep_pending);
  int trained = 0;
  for (size_t i = 0; i < first.ranks.size(); ++i) trained += std::isfinite(first.lora_error[i]) ? 1 : 0;
  EXPECT_EQ(trained, 1);  // the chosen rank only
  EXPECT_EQ(first.loss, whole.loss);
  complete_lora_sweep(first, kSmall);
  expect_same_experiment(first, whole);

  LoraFitMemo memo;
  expect_same_experiment(run_lora_experiment(kSmall, {}, &memo), whole);
  LoraExperimentParams other_rank = kSmall;
  other_rank.rank = 4;  // on the ladder: its fit was trained by the sweep
  const LoraExperiment from_memo = run_lora_experiment_first(other_rank, {}, &memo);
  EXPECT_FALSE(from_memo.sweep_pending);
  expect_same_experiment(from_memo, run_lora_experiment(other_rank));
  EXPECT_TRUE(memo.holds_all(other_rank, lora_sweep_ranks(other_rank)));
  // Another learning rate is another setting: nothing kept applies.
  LoraExperimentParams other_lr = kSmall;
  other_lr.lr = 0.02;
  EXPECT_EQ(memo.find(other_lr, kSmall.rank), nullptr);
  EXPECT_FALSE(memo.holds_all(other_lr, lora_sweep_ranks(other_lr)));
  EXPECT_TRUE(run_lora_experiment_first(other_lr, {}, &memo).sweep_pending);
}

TEST(LoraExperiment, ParamPercentMatchesTheClassicExample) {
  EXPECT_DOUBLE_EQ(lora_param_percent(4096, 4096, 8), 0.390625);  // 2·4096·8 / 4096²
  EXPECT_DOUBLE_EQ(lora_param_percent(64, 32, 4), 100.0 * 4 * 96 / (64.0 * 32));
}

TEST(LoraExperiment, TargetHasTheRequestedSpectrum) {
  const Mat t = lora_target_update(32, 24, 3, 0.5, 0.0, 9);
  ASSERT_EQ(t.rows(), 24);
  ASSERT_EQ(t.cols(), 32);
  const Svd s = svd_decompose(t);
  EXPECT_NEAR(s.sigma[0], 1.0, 1e-5);
  EXPECT_NEAR(s.sigma[1], 0.5, 1e-5);
  EXPECT_NEAR(s.sigma[2], 0.25, 1e-5);
  EXPECT_NEAR(s.sigma[3], 0.0, 1e-5);
  // Noise fills the tail.
  EXPECT_GT(svd_decompose(lora_target_update(32, 24, 3, 0.5, 0.1, 9)).sigma[3], 0.01);
}

// The RMS the heatmaps' colour range is set from: the root mean square of ΔW's entries, summed here directly.
TEST(LoraExperiment, TargetRmsIsTheRootMeanSquareOfTheEntries) {
  const auto e = run_lora_experiment(kSmall);
  double sum = 0;
  for (Eigen::Index i = 0; i < e.target.size(); ++i) sum += double(e.target.data()[i]) * e.target.data()[i];
  EXPECT_NEAR(e.target_rms, std::sqrt(sum / double(e.target.size())), 1e-9);
  // σ = 1, 0.5, 0.25 over 24 · 32 entries: ‖ΔW‖_F = √1.3125, so RMS = √(1.3125 / 768).
  EXPECT_NEAR(e.target_rms, std::sqrt(1.3125 / 768), 1e-6);
}

TEST(LoraExperiment, SvdErrorIsTheTailOfTheSpectrum) {
  // σ = 1, 0.5, 0.25: ‖ΔW‖² = 1.3125; rank 1 leaves √(0.3125/1.3125) = 0.48795, rank 2 √(0.0625/1.3125) = 0.21822.
  const auto e = run_lora_experiment(kSmall);
  ASSERT_EQ(e.ranks, (std::vector<int>{1, 2, 3, 4, 6, 8}));
  EXPECT_NEAR(e.svd_error[0], 0.48795, 1e-4);
  EXPECT_NEAR(e.svd_error[1], 0.21822, 1e-4);
  EXPECT_NEAR(e.svd_error[2], 0.0, 1e-5);
  EXPECT_NEAR(e.svd_error_at_rank, 0.21822, 1e-4);
  EXPECT_EQ(e.params[1], 2 * (32 + 24));
  EXPECT_EQ(e.full_params, 32 * 24);
}

TEST(LoraExperiment, TrainedLoraApproachesButNeverBeatsTheOptimum) {
  const auto e = run_lora_experiment(kSmall);
  for (size_t i = 0; i < e.ranks.size(); ++i) {
    EXPECT_GE(e.lora_error[i], e.svd_error[i] - 1e-4) << "rank " << e.ranks[i];
    EXPECT_LT(e.lora_error[i], e.svd_error[i] + 0.02) << "rank " << e.ranks[i];
  }
  EXPECT_NEAR(e.final_error, e.residual.cast<double>().norm() / e.target_norm, 1e-6);
  EXPECT_MAT_NEAR(Mat(e.delta + e.residual), e.target, 1e-6f);
}

TEST(LoraExperiment, LossStartsAtOneAndFalls) {
  auto p = kSmall;
  const auto e = run_lora_experiment(p);
  ASSERT_EQ(e.loss.size(), static_cast<size_t>(p.steps + 1));
  EXPECT_DOUBLE_EQ(e.loss[0], 1.0);  // B = 0: the whole of ΔW is residual
  EXPECT_LT(e.loss.back(), 0.1);
  EXPECT_NEAR(std::sqrt(e.loss.back()), e.final_error, 1e-6);
  // Plain gradient descent also learns, more slowly.
  p.optimizer = LoraOptimizer::Sgd;
  p.lr = 0.05;
  const auto sgd = run_lora_experiment(p);
  EXPECT_FALSE(sgd.diverged);
  EXPECT_LT(sgd.loss.back(), 0.9);
}

TEST(LoraExperiment, DivergenceIsReportedNotNaN) {
  auto p = kSmall;
  p.optimizer = LoraOptimizer::Sgd;
  p.lr = 5.0;  // far beyond 2 / curvature
  const auto e = run_lora_experiment(p);
  EXPECT_TRUE(e.diverged);
  EXPECT_LT(e.loss.size(), static_cast<size_t>(p.steps + 1));
  EXPECT_TRUE(std::isnan(e.final_error));
}

TEST(LoraExperiment, ChecksHold) {
  const auto e = run_lora_experiment(kSmall);
  EXPECT_TRUE(e.step0_equals_base);
  EXPECT_EQ(e.step0_error, 0.0);
  EXPECT_TRUE(e.merged_equals_unmerged) << e.merge_error;
}

TEST(LoraExperiment, RsLoraKeepsTheUpdateSizeFlat) {
  const auto e = run_lora_experiment(kSmall);
  ASSERT_EQ(e.scale_ranks.size(), 64u);
  for (int r : {1, 4, 16, 64}) {
    const size_t i = static_cast<size_t>(r - 1);
    EXPECT_NEAR(e.update_norm_alpha_sqrt_r[i] / e.update_norm_alpha_r[i], std::sqrt(r), 1e-6 * std::sqrt(r));
  }
  // ‖BA‖ grows like √r: α/r shrinks the update ~8× from r = 1 to 64, α/√r stays within a factor 2.
  EXPECT_LT(e.update_norm_alpha_r[63], 0.3 * e.update_norm_alpha_r[0]);
  EXPECT_GT(e.update_norm_alpha_sqrt_r[63], 0.5 * e.update_norm_alpha_sqrt_r[0]);
  EXPECT_LT(e.update_norm_alpha_sqrt_r[63], 2.0 * e.update_norm_alpha_sqrt_r[0]);
}

TEST(LoraExperiment, DeterministicAndCancellable) {
  const auto a = run_lora_experiment(kSmall), b = run_lora_experiment(kSmall);
  EXPECT_EQ(a.loss, b.loss);
  EXPECT_EQ(a.lora_error, b.lora_error);
  int calls = 0;
  const auto c = run_lora_experiment(kSmall, [&](float) { return ++calls < 10; });
  EXPECT_TRUE(c.cancelled);
  EXPECT_EQ(calls, 10);
}

TEST(LoraExperiment, ValidateNamesTheProblem) {
  auto p = kSmall;
  EXPECT_EQ(validate(p), "");
  p.rank = 25;
  EXPECT_EQ(validate(p), "LoRA rank (25) cannot exceed $\\min(d_{in}, d_{out})$ = 24");
  p = kSmall;
  p.d_in = 2048;
  EXPECT_NE(validate(p).find("1024"), std::string::npos);
  p = kSmall;
  p.decay = 0.0;
  EXPECT_NE(validate(p), "");
  p = kSmall;
  p.true_rank = 30;
  EXPECT_NE(validate(p).find("true rank"), std::string::npos);
}

}  // namespace
}  // namespace tw
