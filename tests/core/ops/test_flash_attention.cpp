// The tiled online-softmax kernel equals the reference (max abs diff ≤ 1e-5) for every mask kind, every bias
// kind, softcap, QK-norm, GQA, KV-cache offsets and tile sizes that do not divide T; its scratch memory does
// not grow with T.
#include "core/ops/flash_attention.h"

#include <gtest/gtest.h>

#include <random>

#include "attention_setup.h"
#include "core/ops/alibi.h"
#include "test_util.h"

namespace tw {
namespace {

struct Case {
  std::string name;
  Mask mask;
};

std::vector<Case> all_masks(int T) {
  return {
      {"none", bidirectional_mask()},
      {"causal", causal_mask()},
      {"prefix-lm", prefix_lm_mask(5)},
      {"window", mask_and({causal_mask(), sliding_window_mask(6)})},
      {"pad-left", mask_and({causal_mask(), padding_mask(4, true, T)})},  // includes fully masked rows
      {"pad-right", padding_mask(3, false, T)},
      {"documents", document_mask({7, 1, 12})},
      {"dilated", mask_and({causal_mask(), dilated_mask(3)})},
      {"global", mask_or({sliding_window_mask(2), global_mask(2)})},
      {"streaming", combine_mask_terms({causal_mask().term, sliding_window_mask(4).term, global_mask(2).term})},
  };
}

void expect_same(const Mat& q, const Mat& k, const Mat& v, const AttentionOptions& opt, int H, int KV, int D, int tq,
                 int tk, const std::string& what) {
  Mat ref, scores, probs, tiled;
  std::vector<char> e_ref, e_tiled;
  const int n_ref = attention_forward(ref, scores, probs, e_ref, q, k, v, opt, H, KV, D);
  const int n_tiled = flash_attention_forward(tiled, e_tiled, q, k, v, opt, H, KV, D, tq, tk);
  EXPECT_TRUE(::tw::testing::MatNear(tiled, ref, 1e-5f)) << what << " tiles " << tq << "x" << tk;
  EXPECT_EQ(n_tiled, n_ref) << what;
  EXPECT_EQ(e_tiled, e_ref) << what;
  EXPECT_TRUE(all_finite(tiled)) << what;
}

TEST(FlashAttention, EqualsReferenceForEveryMaskKindAndTileSize) {
  std::mt19937 rng(7);
  const int T = 37, H = 4, KV = 2, D = 8;
  Mat q = randn(T, H * D, rng, 2.0f), k = randn(T, KV * D, rng, 2.0f), v = randn(T, KV * D, rng);
  const int tiles[][2] = {{1, 1}, {3, 5}, {7, 2}, {16, 16}, {64, 64}, {37, 37}};
  for (const Case& c : all_masks(T)) {
    AttentionOptions opt;
    opt.mask = &c.mask;
    for (const auto& t : tiles) expect_same(q, k, v, opt, H, KV, D, t[0], t[1], c.name);
  }
}

TEST(FlashAttention, EqualsReferenceForEveryBiasKindWithSoftcapAndQkNorm) {
  std::mt19937 rng(8);
  const int T = 29, H = 3, KV = 1, D = 5;
  Mat q = randn(T, H * D, rng, 3.0f), k = randn(T, KV * D, rng, 3.0f), v = randn(T, KV * D, rng);
  Mat dense_shared = randn(T, T, rng), dense_heads = randn(H * T, T, rng);
  MatB random_mask(T, T);
  std::bernoulli_distribution coin(0.6);
  for (Eigen::Index i = 0; i < random_mask.size(); ++i) random_mask.data()[i] = coin(rng);
  random_mask.row(3).setZero();  // one fully masked row
  const Mask causal = causal_mask();

  std::vector<std::pair<std::string, AttentionBias>> biases;
  biases.push_back({"none", {}});
  AttentionBias alibi;
  alibi.kind = AttentionBias::Kind::Alibi;
  alibi.slopes = alibi_slopes(H);
  biases.push_back({"alibi", alibi});
  alibi.kind = AttentionBias::Kind::AlibiSymmetric;
  biases.push_back({"alibi-symmetric", alibi});
  AttentionBias dense;
  dense.kind = AttentionBias::Kind::Dense;
  dense.dense = &dense_shared;
  biases.push_back({"dense-shared", dense});
  dense.dense = &dense_heads;
  biases.push_back({"dense-per-head", dense});

  for (const auto& [name, bias] : biases)
    for (int variant = 0; variant < 4; ++variant) {
      AttentionOptions opt;
      opt.bias = bias;
      opt.mask = &causal;
      if (variant == 1) opt.softcap = 1.5f;
      if (variant == 2) {
        opt.qk_norm = true;
        opt.scale_mode = ScaleMode::Custom;
        opt.custom_scale = 4.0f;
      }
      if (variant == 3) {  // arbitrary boolean matrix instead of a predicate, and no scaling
        opt.mask = nullptr;
        opt.mask_matrix = &random_mask;
        opt.scale_mode = ScaleMode::None;
      }
      expect_same(q, k, v, opt, H, KV, D, 4, 6, name + " variant " + std::to_string(variant));
      expect_same(q, k, v, opt, H, KV, D, 5, 3, name + " variant " + std::to_string(variant));
    }
}

TEST(FlashAttention, KvCacheOffsetEqualsReference) {
  std::mt19937 rng(9);
  const int T_k = 23, T_new = 3, H = 2, D = 4;
  SlidingAlibiInputs in(rng, T_new, T_k, H, D, /*window=*/5);
  in.opt.q_offset = T_k - T_new;
  expect_same(in.q, in.k, in.v, in.opt, H, H, D, 2, 4, "kv-cache");
}

TEST(FlashAttention, NoMaskAtAllAndMoreKeysThanQueries) {
  std::mt19937 rng(11);
  const int T_q = 5, T_k = 19, H = 2, D = 3;
  Mat q = randn(T_q, H * D, rng, 2.0f), k = randn(T_k, D, rng, 2.0f), v = randn(T_k, D, rng);
  AttentionOptions opt;  // mask == nullptr, mask_matrix == nullptr: every key visible (MQA: one KV head)
  for (int t : {1, 4, 19, 32}) expect_same(q, k, v, opt, H, 1, D, 2, t, "unmasked");
}

TEST(FlashAttention, ScratchMemoryIndependentOfTAndCausalSkipsTiles) {
  std::mt19937 rng(10);
  const Mask causal = causal_mask();
  AttentionOptions opt;
  opt.mask = &causal;
  FlashStats small, large;
  std::vector<char> e;
  Mat out;
  for (int T : {64, 256}) {
    Mat q = randn(T, 8, rng), k = randn(T, 8, rng), v = randn(T, 8, rng);
    flash_attention_forward(out, e, q, k, v, opt, 1, 1, 8, 16, 16, T == 64 ? &small : &large);
  }
  EXPECT_EQ(small.scratch_bytes, large.scratch_bytes);
  EXPECT_EQ(small.scratch_bytes, (16 * 16 + 16 * 8 + 2 * 16) * sizeof(float));
  // 256/16 = 16 tiles per side: 16·17/2 = 136 on or below the diagonal computed, 120 above skipped.
  EXPECT_EQ(large.tiles_computed, 136);
  EXPECT_EQ(large.tiles_skipped, 120);
}

}  // namespace
}  // namespace tw
