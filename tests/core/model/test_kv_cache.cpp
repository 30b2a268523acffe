#include "core/model/kv_cache.h"

#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "test_util.h"

namespace tw {
namespace {

std::vector<ModelConfig> configs() {
  std::vector<ModelConfig> out;
  out.push_back(tiny_config());  // GQA + RoPE + pre-norm
  out.push_back(testing::alibi_post_mqa_config());
  ModelConfig sliding = tiny_config();
  sliding.n_layers = 3;
  sliding.positions = PositionType::Sinusoidal;
  sliding.attention = AttentionPattern::Sliding;
  sliding.window = 4;
  sliding.full_every = 2;
  sliding.activation = ActivationKind::GeGLU;
  out.push_back(sliding);
  ModelConfig learned = tiny_config();
  learned.positions = PositionType::Learned;
  learned.tie_embeddings = true;
  learned.activation = ActivationKind::ReLU;
  out.push_back(learned);
  return out;
}

const std::vector<int> kHelloTokens = {72, 101, 108, 108, 111, 44, 32, 119, 111, 114, 108, 100, 33};  // "Hello, world!"

TEST(KVCache, TokenByTokenDecodingEqualsTheFullForward) {
  for (const ModelConfig& c : configs()) {
    SCOPED_TRACE(std::string(to_string(c.positions)) + " " + to_string(c.placement));
    const ModelWeights w = init_weights(c, 11);
    Mat full;
    std::string error;
    ASSERT_TRUE(forward(full, nullptr, w, c, kHelloTokens, &error)) << error;
    KVCache cache;
    cache.reset(c);
    for (size_t t = 0; t < kHelloTokens.size(); ++t) {
      Mat row;
      ASSERT_TRUE(forward_cached(row, nullptr, cache, w, c, {kHelloTokens[t]}, &error)) << error;
      ASSERT_EQ(row.rows(), 1);
      EXPECT_MAT_NEAR(row, Mat(full.row(static_cast<Eigen::Index>(t))), 2e-5f) << "token " << t;
    }
    EXPECT_EQ(cache.length, static_cast<int>(kHelloTokens.size()));
  }
}

TEST(KVCache, PromptThenContinuationEqualsTheFullForward) {
  for (const ModelConfig& c : configs()) {
    const ModelWeights w = init_weights(c, 12);
    Mat full, prompt, rest;
    std::string error;
    ASSERT_TRUE(forward(full, nullptr, w, c, kHelloTokens, &error));
    KVCache cache;
    cache.reset(c);
    ASSERT_TRUE(
        forward_cached(prompt, nullptr, cache, w, c, std::vector<int>(kHelloTokens.begin(), kHelloTokens.begin() + 8), &error));
    Trace trace;
    ASSERT_TRUE(
        forward_cached(rest, &trace, cache, w, c, std::vector<int>(kHelloTokens.begin() + 8, kHelloTokens.end()), &error));
    EXPECT_MAT_NEAR(prompt, Mat(full.topRows(8)), 2e-5f);
    EXPECT_MAT_NEAR(rest, Mat(full.bottomRows(5)), 2e-5f);
    // The continuation's attention maps are (H, 5 new queries, 13 keys).
    const TraceStep* probs = trace.find("layers.0.attn.probs");
    ASSERT_NE(probs, nullptr);
    EXPECT_EQ(probs->sizes(), (std::vector<int64_t>{c.n_heads, 5, 13}));
  }
}

TEST(KVCache, HoldsKeysAndValuesOfEveryLayer) {
  const ModelConfig c = tiny_config();  // 2 layers, KV·D = 2 · 16 = 32
  KVCache cache;
  cache.reset(c);
  Mat logits;
  std::string error;
  ASSERT_TRUE(forward_cached(logits, nullptr, cache, init_weights(c, 1), c, kHelloTokens, &error));
  ASSERT_EQ(cache.k.size(), 2u);
  EXPECT_EQ(cache.k[1].rows(), 13);
  EXPECT_EQ(cache.v[1].cols(), 32);
  EXPECT_DOUBLE_EQ(cache.bytes(), 2.0 * 2 * 13 * 32 * 4);  // K and V, 2 layers, 13 tokens, 32 floats
}

TEST(KVCache, OverflowingMaxSeqIsRefused) {
  ModelConfig c = tiny_config();
  c.max_seq = 14;
  const ModelWeights w = init_weights(c, 1);
  KVCache cache;
  cache.reset(c);
  Mat logits;
  std::string error;
  ASSERT_TRUE(forward_cached(logits, nullptr, cache, w, c, kHelloTokens, &error));
  EXPECT_FALSE(forward_cached(logits, nullptr, cache, w, c, {1, 2}, &error));
  EXPECT_EQ(error, "15 tokens exceed the model's 14 positions (max_seq; max_position_embeddings in config.json)");
  EXPECT_EQ(cache.length, 13);  // a refused call leaves the cache as it was
}

}  // namespace
}  // namespace tw
