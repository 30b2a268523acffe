#include "core/ops/gqa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/ops/attention.h"
#include "reference_ops.h"
#include "test_util.h"

namespace tw {
namespace {

using testing::random_mat;
using testing::repeat_kv;

// Plain per-head softmax attention written independently of core/ops/attention (no mask, 1/√D scale).
Mat naive_mha(const Mat& q, const Mat& k, const Mat& v, int H, int D) {
  Mat out(q.rows(), H * D);
  for (int h = 0; h < H; ++h) {
    Mat s = q.middleCols(h * D, D) * k.middleCols(h * D, D).transpose() / std::sqrt(static_cast<float>(D));
    for (int i = 0; i < s.rows(); ++i) {
      s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
      s.row(i) /= s.row(i).sum();
    }
    out.middleCols(h * D, D) = s * v.middleCols(h * D, D);
  }
  return out;
}

Mat attend(const Mat& q, const Mat& k, const Mat& v, int H, int KV, int D) {
  Mat out, scores, probs;
  std::vector<char> empty;
  AttentionOptions opt;
  EXPECT_EQ(check_attention_args(q, k, v, opt, H, KV, D), "");
  attention_forward(out, scores, probs, empty, q, k, v, opt, H, KV, D);
  return out;
}

TEST(Gqa, HeadMappingIsContiguousGroups) {
  EXPECT_EQ(kv_head_map(8, 2), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(kv_head_map(8, 4), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(kv_head_map(4, 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(kv_head_map(4, 1), (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(valid_kv_head_counts(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
}

TEST(Gqa, CheckRejectsNonDivisors) {
  EXPECT_EQ(check_gqa(32, 8), "");
  EXPECT_EQ(check_gqa(6, 4), "n_heads (6) must be a multiple of n_kv_heads (4)");
  EXPECT_NE(check_gqa(8, 0), "");
  EXPECT_NE(check_gqa(0, 1), "");
}

TEST(Gqa, RepeatKvCopiesEachHeadNRepTimes) {
  // T = 1, KV = 2, D = 2, n_rep = 3: [a b | c d] → [a b a b a b | c d c d c d]
  Mat kv(1, 4);
  kv << 1, 2, 3, 4;
  Mat out;
  repeat_kv(out, kv, 1, 2, 3, 2);
  Mat want(1, 12);
  want << 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4;
  EXPECT_MAT_NEAR(out, want, 0.0f);
  repeat_kv(out, kv, 1, 2, 1, 2);
  EXPECT_MAT_NEAR(out, kv, 0.0f);
}

TEST(Gqa, MeanPoolAveragesEachGroup) {
  // H = 4, KV = 2, D = 1, C = 2: rows (1,2) (3,4) | (5,6) (7,8) → (2,3) | (6,7)
  Mat w(4, 2);
  w << 1, 2, 3, 4, 5, 6, 7, 8;
  Mat out;
  mean_pool_kv_heads(out, w, 4, 2, 1, 2);
  Mat want(2, 2);
  want << 2, 3, 6, 7;
  EXPECT_MAT_NEAR(out, want, 0.0f);
  mean_pool_kv_heads(out, w, 4, 4, 1, 2);  // KV = H: nothing to pool
  EXPECT_MAT_NEAR(out, w, 0.0f);
}

TEST(Gqa, KvEqualsHeadsIsMultiHeadAttention) {
  const int T = 7, H = 4, D = 8;
  const Mat q = random_mat(T, H * D, 1), k = random_mat(T, H * D, 2), v = random_mat(T, H * D, 3);
  EXPECT_MAT_NEAR(attend(q, k, v, H, H, D), naive_mha(q, k, v, H, D), 1e-5f);
}

TEST(Gqa, RepeatKvAttentionEqualsGroupedAttention) {
  const int T = 6, H = 8, D = 4;
  for (int KV : {1, 2, 4}) {
    const Mat q = random_mat(T, H * D, 10 + KV), k = random_mat(T, KV * D, 20 + KV), v = random_mat(T, KV * D, 30 + KV);
    Mat k_rep, v_rep;
    repeat_kv(k_rep, k, T, KV, H / KV, D);
    repeat_kv(v_rep, v, T, KV, H / KV, D);
    const Mat grouped = attend(q, k, v, H, KV, D);
    EXPECT_MAT_NEAR(grouped, attend(q, k_rep, v_rep, H, H, D), 1e-6f) << "KV = " << KV;
    EXPECT_MAT_NEAR(grouped, naive_mha(q, k_rep, v_rep, H, D), 1e-5f) << "KV = " << KV;
  }
}

TEST(Gqa, MeanPoolingIsExactWhenGroupHeadsAreIdentical) {
  // If the K/V heads of every group are already equal, converting to GQA loses nothing.
  const int T = 5, C = 6, H = 4, KV = 2, D = 3;
  const Mat x = random_mat(T, C, 40), wq = random_mat(H * D, C, 41);
  const Mat wk_g = random_mat(KV * D, C, 42), wv_g = random_mat(KV * D, C, 43);
  Mat wk, wv;
  repeat_kv(wk, Mat(wk_g.transpose()), C, KV, H / KV, D);  // (C, H*D): columns per head
  repeat_kv(wv, Mat(wv_g.transpose()), C, KV, H / KV, D);
  wk.transposeInPlace();
  wv.transposeInPlace();
  Mat wk_pooled, wv_pooled;
  mean_pool_kv_heads(wk_pooled, wk, H, KV, D, C);
  mean_pool_kv_heads(wv_pooled, wv, H, KV, D, C);
  EXPECT_MAT_NEAR(wk_pooled, wk_g, 1e-6f);
  const Mat q = x * wq.transpose();
  const Mat mha = attend(q, Mat(x * wk.transpose()), Mat(x * wv.transpose()), H, H, D);
  const Mat gqa = attend(q, Mat(x * wk_pooled.transpose()), Mat(x * wv_pooled.transpose()), H, KV, D);
  EXPECT_MAT_NEAR(gqa, mha, 1e-5f);
}

}  // namespace
}  // namespace tw
