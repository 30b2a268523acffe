#include "core/ops/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "test_util.h"

namespace tw {
namespace {

using testing::random_mat;

void expect_freqs(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], rel * want[k]) << "pair " << k;
}

// Reference values below come from /tmp/ops-pos/rope_ref.py (numpy 1.24, float64), reproduced here:
//   inv_freq = lambda d, base: base ** (-np.arange(0, d, 2) / d)
//   linear: inv_freq(d, b) / f;  NTK: inv_freq(d, b * a**(d/(d-2)))
//   dynamic: s = max(seq, L); b' = b * (f*s/L - (f-1))**(d/(d-2))
//   llama3: HF _compute_llama3_parameters rewritten with np.where (factor 8, low 1, high 4, L 8192).

TEST(RopeFrequencies, MatchBasePowerLaw) {
  expect_freqs(rope_frequencies(8, 10000.0), {1.0, 0.1, 0.01, 0.001}, 1e-12);
  expect_freqs(rope_frequencies(16, 500000.0),
               {1.0, 1.9392274475e-01, 3.7606030931e-02, 7.2926647372e-03, 1.4142135624e-03, 2.7424817568e-04,
                5.3182958969e-05, 1.0313385377e-05},
               1e-9);
}

TEST(RopeFrequencies, LinearDividesByFactor) {
  const RopeConfig cfg{.head_dim = 16, .scaling = RopeScaling::Linear, .factor = 4.0};
  expect_freqs(
      rope_scaled_frequencies(cfg, 100),
      {2.5e-01, 7.9056941504e-02, 2.5e-02, 7.9056941504e-03, 2.5e-03, 7.9056941504e-04, 2.5e-04, 7.9056941504e-05},
      1e-9);
}

TEST(RopeFrequencies, NtkAwareRaisesBase) {
  const RopeConfig cfg{.head_dim = 16, .scaling = RopeScaling::NtkAware, .factor = 4.0};
  const auto theta = rope_scaled_frequencies(cfg, 100);
  expect_freqs(theta,
               {1.0, 2.5941281701e-01, 6.7295009632e-02, 1.7457188020e-02, 4.5286183213e-03, 1.1747816359e-03,
                3.0475341355e-04, 7.9056941504e-05},
               1e-9);
  // The lowest frequency ends up exactly as linear interpolation's: base'^(−(D−2)/D) = base^(−(D−2)/D)/α.
  EXPECT_NEAR(theta.back(), rope_frequencies(16, 10000.0).back() / 4.0, 1e-15);
}

TEST(RopeFrequencies, DynamicNtkOnlyChangesPastTrainedLength) {
  const RopeConfig cfg{.head_dim = 16, .scaling = RopeScaling::DynamicNtk, .factor = 2.0, .original_context = 2048};
  const auto plain = rope_frequencies(16, 10000.0);
  expect_freqs(rope_scaled_frequencies(cfg, 1000), plain, 1e-12);
  expect_freqs(rope_scaled_frequencies(cfg, 2048), plain, 1e-12);
  EXPECT_NEAR(rope_effective_base(cfg, 4096), 35097.924382760604, 1e-6);
  expect_freqs(rope_scaled_frequencies(cfg, 4096),
               {1.0, 2.7029612569e-01, 7.3059995564e-02, 1.9747833744e-02, 5.3377629519e-03, 1.4427766458e-03,
                3.8997693759e-04, 1.0540925534e-04},
               1e-9);
}

TEST(RopeFrequencies, Llama3MatchesHuggingFaceRule) {
  const RopeConfig cfg{.head_dim = 128,
                       .base = 500000.0,
                       .scaling = RopeScaling::Llama3,
                       .factor = 8.0,
                       .original_context = 8192,
                       .low_freq_factor = 1.0,
                       .high_freq_factor = 4.0};
  const auto theta = rope_scaled_frequencies(cfg, 100);
  ASSERT_EQ(theta.size(), 64u);
  EXPECT_NEAR(theta[0], 1.0, 1e-15);                      // high frequency: kept
  EXPECT_NEAR(theta[20], 0.016560440080994443, 1e-15);    // wavelength 379 < 2048: kept
  EXPECT_NEAR(theta[27], 0.003942276030116656, 1e-15);    // wavelength 1594: kept
  EXPECT_NEAR(theta[30], 0.0013718935677611381, 1e-15);   // 2948: interpolated
  EXPECT_NEAR(theta[33], 0.00031269375038406506, 1e-15);  // 5454: interpolated
  EXPECT_NEAR(theta[40], 3.428102195952591e-05, 1e-17);   // 22911 > 8192: divided by 8
  EXPECT_NEAR(theta[63], 3.068925988914511e-07, 1e-19);
}

TEST(RopeConfigValidation, RejectsBadInputWithMessage) {
  RopeConfig cfg;
  EXPECT_EQ(validate(cfg), "");
  cfg.head_dim = 7;
  EXPECT_NE(validate(cfg).find("even"), std::string::npos);
  cfg.head_dim = 64;
  cfg.scaling = RopeScaling::Llama3;
  cfg.low_freq_factor = 4.0;
  cfg.high_freq_factor = 4.0;
  EXPECT_NE(validate(cfg).find("high_freq_factor"), std::string::npos);
  cfg.scaling = RopeScaling::Linear;
  cfg.factor = 0.0;
  EXPECT_NE(validate(cfg), "");
}

TEST(RopeApply, HalfSplitMatchesNumpyRotateHalf) {
  // x = [1,2,3,4], D = 4, base 100, position 3; numpy: x*cos(emb) + rotate_half(x)*sin(emb).
  Mat x(1, 4);
  x << 1, 2, 3, 4;
  RopeConfig cfg;
  cfg.head_dim = 4;
  cfg.base = 100.0;
  Mat out;
  rope_apply(out, x, cfg, 1, 3);
  Mat want(1, 4);
  want << -1.4133525208f, 0.7285921516f, -2.8288574817f, 4.4123863698f;
  EXPECT_MAT_NEAR(out, want, 1e-6f);
}

TEST(RopeApply, InterleavedMatchesComplexMultiply) {
  // numpy: z = x[0::2] + 1j*x[1::2]; z * exp(1j*m*theta), interleaved back.
  Mat x(1, 4);
  x << 1, 2, 3, 4;
  const RopeConfig cfg{.head_dim = 4, .base = 100.0, .convention = RopeConvention::Interleaved};
  Mat out;
  rope_apply(out, x, cfg, 1, 3);
  Mat want(1, 4);
  want << -1.2722325127f, -1.8388649851f, 1.6839286407f, 4.7079065765f;
  EXPECT_MAT_NEAR(out, want, 1e-6f);
}

TEST(RopeApply, KeepsNormOfEveryHead) {
  const int T = 9, H = 3, D = 16;
  const Mat x = random_mat(T, H * D, 1);
  for (RopeConvention conv : {RopeConvention::HalfSplit, RopeConvention::Interleaved}) {
    RopeConfig cfg;
    cfg.head_dim = D;
    cfg.convention = conv;
    Mat out;
    rope_apply(out, x, cfg, H, 100);
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h)
        EXPECT_NEAR(out.row(t).segment(h * D, D).norm(), x.row(t).segment(h * D, D).norm(), 1e-5f);
  }
}

TEST(RopeApply, PositionZeroIsIdentityAndInPlaceWorks) {
  const Mat x = random_mat(1, 32, 2);
  RopeConfig cfg;
  cfg.head_dim = 16;
  Mat out;
  rope_apply(out, x, cfg, 2, 0);
  EXPECT_MAT_NEAR(out, x, 0.0f);
  Mat y = random_mat(5, 32, 3), copy;
  rope_apply(copy, y, cfg, 2, 7);
  rope_apply(y, y, cfg, 2, 7);
  EXPECT_MAT_NEAR(y, copy, 0.0f);
}

TEST(RopeApply, ScoreDependsOnlyOnRelativeDistance) {
  const int D = 32;
  const Mat q = random_mat(1, D, 4), k = random_mat(1, D, 5);
  for (RopeConvention conv : {RopeConvention::HalfSplit, RopeConvention::Interleaved}) {
    RopeConfig cfg;
    cfg.head_dim = D;
    cfg.convention = conv;
    auto score = [&](int m, int n) {
      Mat qm, kn;
      rope_apply(qm, q, cfg, 1, m);
      rope_apply(kn, k, cfg, 1, n);
      return qm.row(0).dot(kn.row(0));
    };
    for (int shift : {1, 17, 250}) {
      EXPECT_NEAR(score(10, 3), score(10 + shift, 3 + shift), 2e-4f);
      EXPECT_NEAR(score(2, 40), score(2 + shift, 40 + shift), 2e-4f);
    }
    // And it does change with the distance itself (the test could fail).
    EXPECT_GT(std::abs(score(10, 3) - score(10, 4)), 1e-3f);
  }
}

TEST(RopeApply, ConventionsAgreeAfterPermutation) {
  const int T = 6, H = 2, D = 8;
  const Mat x_meta = random_mat(T, H * D, 6);
  const auto perm = rope_interleaved_to_half_split(D);
  EXPECT_EQ(perm, (std::vector<int>{0, 2, 4, 6, 1, 3, 5, 7}));
  RopeConfig meta, hf;
  meta.head_dim = hf.head_dim = D;
  meta.convention = RopeConvention::Interleaved;
  Mat rot_meta, rot_meta_perm, x_hf, rot_hf;
  rope_apply(rot_meta, x_meta, meta, H, 5);
  permute_head_columns(rot_meta_perm, rot_meta, perm, H, D);
  permute_head_columns(x_hf, x_meta, perm, H, D);
  rope_apply(rot_hf, x_hf, hf, H, 5);
  EXPECT_MAT_NEAR(rot_hf, rot_meta_perm, 1e-6f);
}

TEST(RopeApply, PermutedWeightsGiveIdenticalScores) {
  // q = x W_qᵀ: permuting the rows of W_q and W_k (HF's conversion) keeps every q·k score.
  const int T = 5, C = 12, H = 2, D = 6;
  const Mat x = random_mat(T, C, 7), wq = random_mat(H * D, C, 8), wk = random_mat(H * D, C, 9);
  const auto perm = rope_interleaved_to_half_split(D);
  Mat wq_hf, wk_hf;
  permute_head_rows(wq_hf, wq, perm, H, D);
  permute_head_rows(wk_hf, wk, perm, H, D);
  RopeConfig meta, hf;
  meta.head_dim = hf.head_dim = D;
  meta.convention = RopeConvention::Interleaved;
  Mat qm, km, qh, kh;
  rope_apply(qm, Mat(x * wq.transpose()), meta, H, 0);
  rope_apply(km, Mat(x * wk.transpose()), meta, H, 0);
  rope_apply(qh, Mat(x * wq_hf.transpose()), hf, H, 0);
  rope_apply(kh, Mat(x * wk_hf.transpose()), hf, H, 0);
  for (int h = 0; h < H; ++h) {
    const Mat s_meta = qm.middleCols(h * D, D) * km.middleCols(h * D, D).transpose();
    const Mat s_hf = qh.middleCols(h * D, D) * kh.middleCols(h * D, D).transpose();
    EXPECT_MAT_NEAR(s_hf, s_meta, 1e-4f);
  }
}

TEST(RopeApply, PositionOffsetMatchesFullSequence) {
  // KV-cache decoding: rotating rows 4..7 with offset 4 equals rows 4..7 of rotating the whole sequence.
  const int T = 8, H = 2, D = 8;
  const Mat x = random_mat(T, H * D, 10);
  RopeConfig cfg;
  cfg.head_dim = D;
  Mat full, tail;
  rope_apply(full, x, cfg, H, 0);
  rope_apply(tail, Mat(x.bottomRows(4)), cfg, H, 4);
  EXPECT_MAT_NEAR(tail, Mat(full.bottomRows(4)), 1e-6f);
}

}  // namespace
}  // namespace tw
