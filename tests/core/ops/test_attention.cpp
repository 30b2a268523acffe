// Reference attention against numpy (script /tmp/opsattn/ref.py, output pasted) and its invariants:
// masked probabilities are 0, fully masked rows are zeros plus a flag, GQA equals MHA on repeated K/V,
// a KV-cache step equals the last rows of the full pass.
#include "core/ops/attention.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "attention_setup.h"
#include "core/ops/alibi.h"
#include "test_util.h"

namespace tw {
namespace {

// T = 3, H = 2 query heads sharing KV = 1 head, D = 2.
struct Small {
  Mat q{3, 4}, k{3, 2}, v{3, 2};
  Small() {
    q << 1, 0, 0, 1, 0.5f, -1, 1, 1, 2, 1, -1, 0.5f;
    k << 1, 1, 0, 2, -1, 0.5f;
    v << 1, 0, 0, 1, 2, -1;
  }
};

TEST(Attention, CausalGqaMatchesNumpy) {
  Small s;
  const Mask causal = causal_mask();
  AttentionOptions opt;
  opt.mask = &causal;
  Mat out, scores, probs;
  std::vector<char> empty;
  EXPECT_EQ(attention_forward(out, scores, probs, empty, s.q, s.k, s.v, opt, 2, 1, 2), 0);
  Mat eo(3, 4), ep(6, 3);
  eo << 1, 0, 1, 0, 0.742816685f, 0.257183315f, 0.5f, 0.5f, 0.705738606f, 0.294261394f, 1.07614003f, -0.0761400252f;
  ep << 1, 0, 0, 0.742816685f, 0.257183315f, 0, 0.651647467f, 0.321306964f, 0.0270455696f,  // head 0
      1, 0, 0, 0.5f, 0.5f, 0, 0.13633182f, 0.393764077f, 0.469904102f;                      // head 1
  EXPECT_MAT_NEAR(out, eo, 1e-6f);
  EXPECT_MAT_NEAR(probs, ep, 1e-6f);
  // Pre-softmax scores are kept: head 0, query 1 · key 0 = (0.5 − 1)/√2; future keys are −∞.
  EXPECT_NEAR(scores(1, 0), -0.5f / std::sqrt(2.0f), 1e-6f);
  EXPECT_EQ(scores(1, 2), kNegInf);
}

TEST(Attention, SoftcapThenAlibiMatchesNumpy) {
  Small s;
  const Mask causal = causal_mask();
  AttentionOptions opt;
  opt.mask = &causal;
  opt.softcap = 0.5f;
  opt.bias.kind = AttentionBias::Kind::Alibi;
  opt.bias.slopes = alibi_slopes(2);  // 1/16, 1/256
  Mat out, scores, probs;
  std::vector<char> empty;
  attention_forward(out, scores, probs, empty, s.q, s.k, s.v, opt, 2, 1, 2);
  Mat eo(3, 4), ep(6, 3);
  eo << 1, 0, 1, 0, 0.532351985f, 0.467648015f, 0.499023439f, 0.500976561f, 0.743099683f, 0.256900317f, 1.0127418f,
      -0.0127418032f;
  ep << 1, 0, 0, 0.532351985f, 0.467648015f, 0, 0.402590965f, 0.427154676f, 0.170254359f, 1, 0, 0, 0.499023439f,
      0.500976561f, 0, 0.188238489f, 0.399509854f, 0.412251657f;
  EXPECT_MAT_NEAR(out, eo, 1e-6f);
  EXPECT_MAT_NEAR(probs, ep, 1e-6f);
  // Softcap bounds the scaled score to (−c, c) before the bias is added.
  EXPECT_NEAR(scores(1, 0), 0.5f * std::tanh(-0.5f / std::sqrt(2.0f) / 0.5f) - 0.0625f, 1e-6f);
}

TEST(Attention, FullyMaskedRowsAreZerosAndFlaggedNeverNaN) {
  std::mt19937 rng(1);
  Mat q = randn(4, 6, rng), k = randn(4, 3, rng), v = randn(4, 3, rng);
  // Left padding of 2 with causal: query rows 0 and 1 see no key.
  const Mask m = mask_and({causal_mask(), padding_mask(2, true, 4)});
  AttentionOptions opt;
  opt.mask = &m;
  Mat out, scores, probs;
  std::vector<char> empty;
  EXPECT_EQ(attention_forward(out, scores, probs, empty, q, k, v, opt, 2, 1, 3), 4);  // 2 rows × 2 heads
  EXPECT_EQ(empty, (std::vector<char>{1, 1, 0, 0, 1, 1, 0, 0}));
  ASSERT_TRUE(all_finite(probs));
  ASSERT_TRUE(all_finite(out));
  EXPECT_EQ(out.topRows(2).cwiseAbs().maxCoeff(), 0.0f);
  for (int h = 0; h < 2; ++h)
    for (int r = 0; r < 4; ++r)
      for (int j = 0; j < 4; ++j) {
        const float p = probs(h * 4 + r, j);
        if (!m.allows(r, j)) {
          EXPECT_EQ(p, 0.0f) << h << " " << r << " " << j;
        }
      }
  for (int r : {2, 3}) EXPECT_NEAR(probs.row(r).sum(), 1.0f, 1e-6f);
}

TEST(Attention, ScaleModes) {
  EXPECT_FLOAT_EQ(attention_scale(ScaleMode::InvSqrtDk, 64), 0.125f);
  EXPECT_FLOAT_EQ(attention_scale(ScaleMode::InvDk, 64), 1.0f / 64);
  EXPECT_FLOAT_EQ(attention_scale(ScaleMode::None, 64), 1.0f);
  EXPECT_FLOAT_EQ(attention_scale(ScaleMode::Custom, 64, 0.3f), 0.3f);
  // "none" equals custom 1, and scores scale linearly with the factor.
  std::mt19937 rng(2);
  Mat q = randn(3, 4, rng), k = randn(5, 4, rng), v = randn(5, 4, rng);
  AttentionOptions a, b;
  a.scale_mode = ScaleMode::None;
  b.scale_mode = ScaleMode::Custom;
  b.custom_scale = 0.5f;
  Mat oa, sa, pa, ob, sb, pb;
  std::vector<char> e;
  attention_forward(oa, sa, pa, e, q, k, v, a, 1, 1, 4);
  attention_forward(ob, sb, pb, e, q, k, v, b, 1, 1, 4);
  EXPECT_MAT_NEAR(Mat(sa * 0.5f), sb, 1e-6f);
}

TEST(Attention, GqaEqualsMhaOnRepeatedKeysAndValues) {
  std::mt19937 rng(3);
  const int T = 5, H = 4, KV = 2, D = 3;
  Mat q = randn(T, H * D, rng), k = randn(T, KV * D, rng), v = randn(T, KV * D, rng);
  // repeat_interleave: head h uses KV head h / 2, so MHA K has columns [g0, g0, g1, g1].
  Mat k_rep(T, H * D), v_rep(T, H * D);
  for (int h = 0; h < H; ++h) {
    k_rep.middleCols(h * D, D) = k.middleCols((h / 2) * D, D);
    v_rep.middleCols(h * D, D) = v.middleCols((h / 2) * D, D);
  }
  const Mask causal = causal_mask();
  AttentionOptions opt;
  opt.mask = &causal;
  Mat o1, s1, p1, o2, s2, p2;
  std::vector<char> e;
  attention_forward(o1, s1, p1, e, q, k, v, opt, H, KV, D);
  attention_forward(o2, s2, p2, e, q, k_rep, v_rep, opt, H, H, D);
  EXPECT_MAT_NEAR(o1, o2, 0.0f);
  EXPECT_MAT_NEAR(p1, p2, 0.0f);
}

TEST(Attention, KvCacheStepEqualsLastRowsOfFullPass) {
  std::mt19937 rng(4);
  const int T = 7, H = 2, D = 4, T_new = 2;
  SlidingAlibiInputs in(rng, T, T, H, D, /*window=*/4);
  Mat of, sf, pf, os, ss, ps;
  std::vector<char> e;
  attention_forward(of, sf, pf, e, in.q, in.k, in.v, in.opt, H, H, D);
  in.opt.q_offset = T - T_new;
  attention_forward(os, ss, ps, e, Mat(in.q.bottomRows(T_new)), in.k, in.v, in.opt, H, H, D);
  EXPECT_MAT_NEAR(os, Mat(of.bottomRows(T_new)), 1e-6f);
  for (int h = 0; h < H; ++h)
    EXPECT_MAT_NEAR(Mat(ps.middleRows(h * T_new, T_new)), Mat(pf.middleRows(h * T + T - T_new, T_new)), 1e-6f);
}

// A causal or sliding-window term is read as one key range per row (the products and the softmax skip the rest);
// the same mask as a one-child AND tree goes through the per-cell predicate. Both must give the same attention:
// several 64-row blocks, a cache offset, GQA, soft-cap and ALiBi; a NaN query row stays NaN (not flagged) and an
// empty window flags every row with zeros, on both paths.
TEST(Attention, KeyRangesEqualThePerCellMask) {
  std::mt19937 rng(8);
  const int T_q = 150, offset = 20, T_k = T_q + offset, H = 4, KV = 2, D = 8;
  Mat q = randn(T_q, H * D, rng, 2.0f), k = randn(T_k, KV * D, rng, 2.0f), v = randn(T_k, KV * D, rng);
  q(77, 3) = std::numeric_limits<float>::quiet_NaN();  // head 0, query 77
  for (const Mask& term : {causal_mask(), sliding_window_mask(37), sliding_window_mask(0)}) {
    const Mask tree = mask_and({term});
    AttentionOptions ranged, per_cell;
    ranged.q_offset = per_cell.q_offset = offset;
    ranged.softcap = per_cell.softcap = 4.0f;
    ranged.bias.kind = per_cell.bias.kind = AttentionBias::Kind::Alibi;
    ranged.bias.slopes = per_cell.bias.slopes = alibi_slopes(H);
    ranged.mask = &term;
    per_cell.mask = &tree;
    ASSERT_EQ(attention_range_term(ranged), &term.term);
    ASSERT_EQ(attention_range_term(per_cell), nullptr);
    Mat o1, s1, p1, o2, s2, p2;
    std::vector<char> e1, e2;
    const int empty1 = attention_forward(o1, s1, p1, e1, q, k, v, ranged, H, KV, D);
    const int empty2 = attention_forward(o2, s2, p2, e2, q, k, v, per_cell, H, KV, D);
    EXPECT_EQ(empty1, empty2);
    EXPECT_EQ(e1, e2);
    EXPECT_EQ(empty1, term.term.size == 0 && term.term.kind == MaskKind::SlidingWindow ? H * T_q : 0);
    // Same blocked cells (−∞ score, probability exactly 0 outside the NaN row) and the same NaN cells; the rest to
    // float rounding.
    EXPECT_TRUE(((s1.array() == kNegInf) == (s2.array() == kNegInf)).all());
    EXPECT_TRUE((s1.array().isNaN() == s2.array().isNaN()).all());
    EXPECT_TRUE((p1.array().isNaN() == p2.array().isNaN()).all());
    EXPECT_TRUE((o1.array().isNaN() == o2.array().isNaN()).all());
    EXPECT_FALSE(((s1.array() == kNegInf) && (p1.array() != 0.0f) && !p1.array().isNaN()).any());
    if (empty1 == 0) {
      EXPECT_TRUE(p1.row(77).array().isNaN().all());  // NaN in, NaN out: never a quiet row of zeros
      EXPECT_FALSE(p1.row(H * T_q - 1).array().isNaN().any());
    }
    auto finite = [](const Mat& m) { return Mat(m.array().isFinite().select(m.array(), 0.0f)); };
    EXPECT_MAT_NEAR(finite(s1), finite(s2), 1e-6f);
    EXPECT_MAT_NEAR(finite(p1), finite(p2), 1e-6f);
    EXPECT_MAT_NEAR(finite(o1), finite(o2), 1e-6f);
  }
}

TEST(Attention, QkNormEqualsNormalisingInputsFirst) {
  std::mt19937 rng(5);
  Mat q = randn(4, 8, rng) * 10.0f, k = randn(4, 8, rng) * 10.0f, v = randn(4, 8, rng);
  Vec gq = Vec::Random(4), gk = Vec::Random(4);
  AttentionOptions opt;
  opt.qk_norm = true;
  opt.q_norm_weight = &gq;
  opt.k_norm_weight = &gk;
  Mat qn, kn;
  qk_norm_heads(qn, q, &gq, opt.qk_norm_eps, 2, 4);
  qk_norm_heads(kn, k, &gk, opt.qk_norm_eps, 2, 4);
  // Hand check of one head slice: RMS of (q/rms) is 1 before γ.
  const Eigen::VectorXf slice = q.row(0).head(4).transpose();
  const float rms = std::sqrt(slice.squaredNorm() / 4 + opt.qk_norm_eps);
  EXPECT_NEAR(qn(0, 1), q(0, 1) / rms * gq[1], 1e-5f);
  Mat o1, s1, p1, o2, s2, p2;
  std::vector<char> e;
  attention_forward(o1, s1, p1, e, q, k, v, opt, 2, 2, 4);
  AttentionOptions plain;
  attention_forward(o2, s2, p2, e, qn, kn, v, plain, 2, 2, 4);
  EXPECT_MAT_NEAR(o1, o2, 1e-6f);
}

TEST(Attention, DenseBiasPerHeadAndSharedAndMaskMatrix) {
  std::mt19937 rng(6);
  Mat q = randn(3, 4, rng), k = randn(3, 4, rng), v = randn(3, 4, rng);
  Mat shared = randn(3, 3, rng);
  Mat per_head(6, 3);
  per_head << shared, shared;
  MatB allow(3, 3);
  allow << 1, 0, 1, 0, 1, 1, 1, 1, 0;
  AttentionOptions a, b;
  a.bias.kind = b.bias.kind = AttentionBias::Kind::Dense;
  a.bias.dense = &shared;
  b.bias.dense = &per_head;
  a.mask_matrix = b.mask_matrix = &allow;
  Mat oa, sa, pa, ob, sb, pb;
  std::vector<char> e;
  attention_forward(oa, sa, pa, e, q, k, v, a, 2, 2, 2);
  attention_forward(ob, sb, pb, e, q, k, v, b, 2, 2, 2);
  EXPECT_MAT_NEAR(pa, pb, 0.0f);
  EXPECT_EQ(pa(0, 1), 0.0f);
  EXPECT_EQ(pa(5, 2), 0.0f);
  // Score = q·k/√2 + bias for an allowed cell (head 1, query 2, key 0).
  const float dot = q.row(2).tail(2).dot(k.row(0).tail(2));
  EXPECT_NEAR(sa(5, 0), dot / std::sqrt(2.0f) + shared(2, 0), 1e-5f);
}

TEST(Attention, ArgumentCheckMessages) {
  Mat q(3, 6), k(3, 4), v(3, 4);
  AttentionOptions opt;
  EXPECT_EQ(check_attention_args(q, k, v, opt, 3, 2, 2), "n_heads (3) must be a multiple of n_kv_heads (2)");
  EXPECT_EQ(check_attention_args(q, k, v, opt, 2, 2, 3),
            "keys and values need n_kv_heads*head_dim = 6 columns, got 4 and 4");
  opt.bias.kind = AttentionBias::Kind::Alibi;
  EXPECT_NE(check_attention_args(q, k, v, opt, 3, 1, 2), "");
  opt.bias.slopes = alibi_slopes(3);
  Mat k1(3, 2), v1(3, 2);
  EXPECT_EQ(check_attention_args(q, k1, v1, opt, 3, 1, 2), "");
}

}  // namespace
}  // namespace tw
