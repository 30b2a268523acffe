#include "core/experiments/gqa_analysis.h"

#include <gtest/gtest.h>

#include "core/ops/gqa.h"
#include "test_util.h"

namespace tw {
namespace {

const GqaModelPreset& preset(const std::string& name) {
  for (const auto& p : gqa_model_presets())
    if (name == p.name) return p;
  ADD_FAILURE() << "no preset " << name;
  return gqa_model_presets().front();
}

TEST(GqaAnalysis, PresetsAreValidGroupings) {
  ASSERT_EQ(gqa_model_presets().size(), 6u);
  for (const auto& m : gqa_model_presets()) EXPECT_EQ(check_gqa(m.n_heads, m.n_kv_heads), "") << m.name;
  EXPECT_EQ(preset("LLaMA-2-70B").n_heads / preset("LLaMA-2-70B").n_kv_heads, 8);
  EXPECT_EQ(preset("Falcon-7B").n_kv_heads, 1);
}

TEST(GqaAnalysis, KvCacheBytesMatchHandComputation) {
  // LLaMA-2-7B, fp16, 4096 tokens: 2·32·32·128·4096·2 = 2 GiB (0.5 MiB per token).
  const auto& l7 = preset("LLaMA-2-7B");
  EXPECT_EQ(kv_cache_bytes(l7.layers, l7.n_kv_heads, l7.head_dim, 4096, 1, 2), int64_t{2147483648});
  // LLaMA-2-70B: 2·80·8·128·4096·2 = 1342177280 bytes (1.25 GiB), less than the 7B thanks to GQA.
  const auto& l70 = preset("LLaMA-2-70B");
  EXPECT_EQ(kv_cache_bytes(l70.layers, l70.n_kv_heads, l70.head_dim, 4096, 1, 2), int64_t{1342177280});
  // No overflow at large sizes: 2·80·64·128·1,000,000·64·4 = 3.3554432e14 (past 2³¹ many times over).
  EXPECT_EQ(kv_cache_bytes(80, 64, 128, 1000000, 64, 4), int64_t{335544320000000});
}

TEST(GqaAnalysis, ProjectionParameterCounts) {
  // Llama-3-8B: q = o = 4096·4096 = 16777216; k = v = 4096·8·128 = 4194304.
  const auto c = attention_projection_params(4096, 32, 8, 128);
  EXPECT_EQ(c.q, 16777216);
  EXPECT_EQ(c.k, 4194304);
  EXPECT_EQ(c.total(), 41943040);
  // Gemma-2-9B: q = 3584·16·256 = 14680064 (H·D = 4096 differs from hidden 3584).
  EXPECT_EQ(attention_projection_params(3584, 16, 8, 256).q, 14680064);
}

TEST(GqaAnalysis, CurvesAndMappingFollowTheParams) {
  const GqaParams p{.n_heads = 8, .n_kv_heads = 2, .head_dim = 64, .layers = 4, .seq_len = 1024};
  ASSERT_EQ(validate(p), "");
  const auto r = analyze_gqa(p);
  EXPECT_EQ(r.n_rep, 4);
  EXPECT_EQ(r.kv_head_of, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(r.seq_len.front(), 0);
  EXPECT_EQ(r.seq_len.back(), 1024);
  EXPECT_EQ(r.bytes_mha_at, 4 * r.bytes_gqa_at);  // 8 KV heads vs 2
  EXPECT_EQ(r.bytes_gqa_at, 2 * r.bytes_mqa_at);
  EXPECT_EQ(r.bytes_mqa_at, int64_t{2} * 4 * 1 * 64 * 1024 * 1 * 2);
  EXPECT_EQ(r.proj_mha.k, 4 * r.proj_gqa.k);
  EXPECT_EQ(r.proj_mha.q, r.proj_mqa.q);
}

TEST(GqaAnalysis, ConversionErrorIsZeroForMhaAndGrowsWithSharing) {
  GqaParams p;
  p.n_heads = 8;
  p.n_kv_heads = 2;
  p.head_similarity = 0.0;
  const auto r = analyze_gqa(p);
  EXPECT_EQ(r.conversion_kv, (std::vector<int>{1, 2, 4, 8}));
  ASSERT_EQ(r.conversion_error.size(), 4u);
  EXPECT_EQ(r.conversion_error[3], 0.0);  // KV = H: pooling groups of one changes nothing
  EXPECT_GT(r.conversion_error[0], r.conversion_error[2]);
  EXPECT_GT(r.conversion_error[2], 0.05);
  // Identical heads (ρ = 1) convert without loss at every KV.
  p.head_similarity = 1.0;
  for (double e : analyze_gqa(p).conversion_error) EXPECT_LT(e, 1e-5);
  // Similar heads convert better than independent ones.
  p.head_similarity = 0.8;
  EXPECT_LT(analyze_gqa(p).conversion_error[0], r.conversion_error[0]);
}

TEST(GqaAnalysis, GroupMapsShareKeysButNotQueries) {
  const GqaParams p{.n_heads = 6, .n_kv_heads = 2, .toy_tokens = 5, .group = 1};
  const auto r = analyze_gqa(p);
  EXPECT_EQ(r.group_heads, (std::vector<int>{3, 4, 5}));
  ASSERT_EQ(r.group_probs.rows(), 15);
  ASSERT_EQ(r.group_probs.cols(), 5);
  for (int i = 0; i < 15; ++i) {
    EXPECT_NEAR(r.group_probs.row(i).sum(), 1.0f, 1e-5f);
    for (int j = i % 5 + 1; j < 5; ++j) EXPECT_EQ(r.group_probs(i, j), 0.0f);  // causal
  }
  // Different queries give different maps.
  EXPECT_GT(max_abs_diff(Mat(r.group_probs.topRows(5)), Mat(r.group_probs.middleRows(5, 5))), 1e-3f);
}

TEST(GqaAnalysis, ValidateNamesTheProblem) {
  GqaParams p;
  p.n_kv_heads = 3;
  EXPECT_EQ(validate(p), "n_heads (8) must be a multiple of n_kv_heads (3)");
  p.n_kv_heads = 2;
  p.group = 2;
  EXPECT_NE(validate(p).find("group"), std::string::npos);
  p.group = 0;
  p.head_similarity = 1.5;
  EXPECT_NE(validate(p), "");
}

TEST(GqaAnalysis, Deterministic) {
  GqaParams p;
  const auto a = analyze_gqa(p), b = analyze_gqa(p);
  EXPECT_EQ(a.conversion_error, b.conversion_error);
  EXPECT_MAT_NEAR(a.group_probs, b.group_probs, 0.0f);
}

}  // namespace
}  // namespace tw
