#include "core/ops/lora.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace tw {
namespace {

Mat uniform_mat(int rows, int cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(2.0 * uniform01(rng) - 1.0);
  return m;
}

TEST(LoraScale, AlphaOverRankAndRsLora) {
  EXPECT_FLOAT_EQ(lora_scale(16.0f, 4, false), 4.0f);
  EXPECT_FLOAT_EQ(lora_scale(16.0f, 4, true), 8.0f);
  EXPECT_FLOAT_EQ(lora_scale(16.0f, 64, false), 0.25f);
  EXPECT_FLOAT_EQ(lora_scale(16.0f, 64, true), 2.0f);
}

TEST(LoraCheck, RejectsBadRanks) {
  EXPECT_EQ(check_lora(64, 32, 8), "");
  EXPECT_NE(check_lora(64, 32, 0), "");
  EXPECT_EQ(check_lora(64, 32, 33), "LoRA rank (33) cannot exceed $\\min(d_{in}, d_{out})$ = 32");
}

TEST(LoraInit, PeftBoundsAndZeroB) {
  const int d_in = 256, d_out = 64, r = 16;
  std::mt19937_64 rng(7);
  LoraAdapter ad;
  lora_init(ad, d_in, d_out, r, 16.0f, false, rng);
  ASSERT_EQ(ad.A.rows(), r);
  ASSERT_EQ(ad.A.cols(), d_in);
  ASSERT_EQ(ad.B.rows(), d_out);
  ASSERT_EQ(ad.B.cols(), r);
  const float bound = 1.0f / 16.0f;  // 1/√256
  EXPECT_LE(ad.A.cwiseAbs().maxCoeff(), bound);
  EXPECT_GT(ad.A.cwiseAbs().maxCoeff(), 0.99f * bound);  // 4096 draws reach the edge of the interval
  // U(−b, b) has mean 0 and variance b²/3; 4096 samples put the estimates well inside these margins.
  const double mean = ad.A.cast<double>().mean();
  const double var = (ad.A.cast<double>().array() - mean).square().mean();
  EXPECT_NEAR(mean, 0.0, 0.05 * bound);
  EXPECT_NEAR(var, bound * bound / 3.0, 0.1 * bound * bound / 3.0);
  EXPECT_EQ(ad.B.cwiseAbs().maxCoeff(), 0.0f);
  // Same seed, same adapter.
  std::mt19937_64 rng2(7);
  LoraAdapter again;
  lora_init(again, d_in, d_out, r, 16.0f, false, rng2);
  EXPECT_MAT_NEAR(again.A, ad.A, 0.0f);
}

TEST(LoraForward, ZeroBEqualsBaseLayer) {
  const int T = 5, d_in = 12, d_out = 7, r = 3;
  const Mat x = uniform_mat(T, d_in, 1), W0 = uniform_mat(d_out, d_in, 2);
  std::mt19937_64 rng(3);
  LoraAdapter ad;
  lora_init(ad, d_in, d_out, r, 8.0f, false, rng);
  Mat out, xa;
  lora_forward(out, xa, x, W0, ad, T, d_in, d_out, r);
  EXPECT_MAT_NEAR(out, Mat(x * W0.transpose()), 1e-6f);
  EXPECT_MAT_NEAR(xa, Mat(x * ad.A.transpose()), 1e-6f);
}

TEST(LoraForward, MergedEqualsUnmergedAndUnmergeRestores) {
  const int T = 4, d_in = 10, d_out = 6, r = 2;
  const Mat x = uniform_mat(T, d_in, 4), W0 = uniform_mat(d_out, d_in, 5);
  for (bool rs : {false, true}) {
    LoraAdapter ad;
    ad.alpha = 6.0f;
    ad.rslora = rs;
    ad.A = uniform_mat(r, d_in, 6);
    ad.B = uniform_mat(d_out, r, 7);
    Mat out, xa;
    lora_forward(out, xa, x, W0, ad, T, d_in, d_out, r);
    // Independent expectation: W0 + s·B·A with s written out by hand (α = 6, r = 2).
    const float s = rs ? 6.0f / std::sqrt(2.0f) : 3.0f;
    EXPECT_MAT_NEAR(out, Mat(x * (W0 + s * ad.B * ad.A).transpose()), 1e-5f);
    Mat W = W0;
    lora_merge(W, ad);
    EXPECT_MAT_NEAR(Mat(x * W.transpose()), out, 1e-5f);
    Mat delta;
    lora_delta(delta, ad);
    EXPECT_MAT_NEAR(Mat(W - W0), delta, 1e-5f);
    lora_unmerge(W, ad);
    EXPECT_MAT_NEAR(W, W0, 1e-5f);
  }
}

// Reference values from /tmp/ops-pos/lora_ref.py (numpy.linalg.svd, float64) for this 4×3 matrix.
Mat small_matrix() {
  Mat m(4, 3);
  m << 3, 1, 2, -1, 4, 0.5f, 2, -2, 1, 0, 1, -3;
  return m;
}

TEST(TruncatedSvd, SingularValuesMatchNumpy) {
  const Svd s = svd_decompose(small_matrix());
  ASSERT_EQ(s.sigma.size(), 3);
  EXPECT_NEAR(s.sigma[0], 5.12438253, 1e-6);
  EXPECT_NEAR(s.sigma[1], 4.23336164, 1e-6);
  EXPECT_NEAR(s.sigma[2], 2.46360568, 1e-6);
}

TEST(TruncatedSvd, SingularValuesAloneMatchNumpyAndTheFullDecomposition) {
  const VecD sigma = singular_values(small_matrix());
  ASSERT_EQ(sigma.size(), 3);
  EXPECT_NEAR(sigma[0], 5.12438253, 1e-6);
  EXPECT_NEAR(sigma[1], 4.23336164, 1e-6);
  EXPECT_NEAR(sigma[2], 2.46360568, 1e-6);
  // A wide random matrix (BDCSVD's divide and conquer past 16 columns): σ alone equal the full decomposition's.
  const Mat M = uniform_mat(24, 40, 5);
  const VecD alone = singular_values(M), full = svd_decompose(M).sigma;
  ASSERT_EQ(alone.size(), 24);
  for (int i = 0; i < 24; ++i) EXPECT_NEAR(alone[i], full[i], 1e-9 * full[0]) << "i = " << i;
  for (int i = 1; i < 24; ++i) EXPECT_LE(alone[i], alone[i - 1]);
}

TEST(TruncatedSvd, RankOneMatchesNumpy) {
  Mat approx;
  svd_truncate(approx, svd_decompose(small_matrix()), 1);
  Mat want(4, 3);
  want << 0.93141232f, -1.25448018f, 0.68614117f, -1.79315651f, 2.41512727f, -1.32096009f, 1.61777179f, -2.17890895f,
      1.19175987f, -1.05962838f, 1.42716901f, -0.78059377f;
  EXPECT_MAT_NEAR(approx, want, 1e-5f);
}

TEST(TruncatedSvd, ErrorEqualsTailSingularValues) {
  const Mat m = small_matrix();
  const Svd s = svd_decompose(m);
  const double numpy_err[] = {7.088723439378913, 4.898030593509774, 2.463605682344044, 0.0};
  for (int r = 0; r <= 3; ++r) {
    Mat approx;
    svd_truncate(approx, s, r);
    EXPECT_NEAR(svd_tail_error(s.sigma, r), numpy_err[r], 1e-6) << "r = " << r;
    EXPECT_NEAR((m - approx).norm(), numpy_err[r], 1e-5) << "r = " << r;
  }
}

TEST(TruncatedSvd, NoRandomRankRMatrixBeatsIt) {
  // Eckart–Young on a larger random matrix: the truncated SVD error is a floor for every rank-r product.
  const int m = 20, n = 15, r = 4;
  const Mat M = uniform_mat(m, n, 11);
  const Svd s = svd_decompose(M);
  Mat approx;
  svd_truncate(approx, s, r);
  const double best = (M - approx).norm();
  EXPECT_NEAR(best, svd_tail_error(s.sigma, r), 1e-4);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const Mat B = uniform_mat(m, r, 100 + seed), A = uniform_mat(r, n, 200 + seed);
    // Best scalar multiple of B·A, so the comparison is not lost on scale alone.
    const Mat P = B * A;
    const float c = (M.cwiseProduct(P)).sum() / P.squaredNorm();
    EXPECT_GT((M - c * P).norm(), best);
  }
}

}  // namespace
}  // namespace tw
