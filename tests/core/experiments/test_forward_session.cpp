// Tests for the stepper's forward session: every traced step's shape against the config (two architectures),
// appending through the KV cache equals a full recompute, refused appends keep the state, checkpoints load.
#include "core/experiments/forward_session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/experiments/forward_inspect.h"
#include "core/model/forward.h"
#include "core/text/byte_tokenizer.h"
#include "test_util.h"

namespace tw {
namespace {

using Shape = std::vector<std::pair<std::string, int64_t>>;

// The logical shape each step must have, written from the config alone (forward.h's table).
Shape expected_shape(const std::string& sub, const ModelConfig& c, int T, int Tk) {
  const int C = c.dim, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim(), F = c.hidden, V = c.vocab;
  if (sub == "attn.q" || sub == "attn.q_rope" || sub == "attn.out") return {{"T", T}, {"H", H}, {"D", D}};
  if (sub == "attn.k" || sub == "attn.v" || sub == "attn.k_rope") return {{"T", T}, {"KV", KV}, {"D", D}};
  if (sub == "attn.scores" || sub == "attn.probs") return {{"H", H}, {"T", T}, {"T_k", Tk}};
  if (sub == "mlp.gate" || sub == "mlp.up" || sub == "mlp.hidden") return {{"T", T}, {"F", F}};
  if (sub == "logits") return {{"T", T}, {"V", V}};
  return {{"T", T}, {"C", C}};  // embed, pos_embed, norms, attn.proj, residuals, mlp.down, final_norm
}

// The sub-steps one block records, in order, for this config.
std::vector<std::string> expected_block(const ModelConfig& c) {
  const bool pre = c.placement == NormPlacement::Pre;
  const bool rope = c.positions == PositionType::RoPE;
  std::vector<std::string> s;
  if (pre) s.push_back("attn_norm");
  for (const char* n : {"attn.q", "attn.k", "attn.v"}) s.push_back(n);
  if (rope) s.insert(s.end(), {"attn.q_rope", "attn.k_rope"});
  s.insert(s.end(), {"attn.scores", "attn.probs", "attn.out", "attn.proj", "attn.residual"});
  s.push_back(pre ? "mlp_norm" : "attn_norm");
  if (c.gated()) s.push_back("mlp.gate");
  s.insert(s.end(), {"mlp.up", "mlp.hidden", "mlp.down", "mlp.residual"});
  if (!pre) s.push_back("mlp_norm");
  return s;
}

std::vector<std::string> expected_names(const ModelConfig& c) {
  std::vector<std::string> names = {"embed"};
  if (c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal) names.push_back("pos_embed");
  for (int l = 0; l < c.n_layers; ++l)
    for (const std::string& sub : expected_block(c)) names.push_back("layers." + std::to_string(l) + "." + sub);
  if (c.placement == NormPlacement::Pre) names.push_back("final_norm");
  names.push_back("logits");
  return names;
}

// Walks every step: name and order, logical shape, stored 2-D shape, layer index, finite values, costs.
void check_every_step(const ForwardRun& run, int T, int Tk) {
  const ModelConfig& c = run.config;
  const auto names = expected_names(c);
  const auto& steps = run.trace.steps();
  ASSERT_EQ(steps.size(), names.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const TraceStep& s = steps[i];
    SCOPED_TRACE(s.name);
    EXPECT_EQ(s.name, names[i]);
    const std::string sub = sub_step_name(s.name);
    const Shape want = expected_shape(sub, c, T, Tk);
    ASSERT_EQ(s.shape.size(), want.size());
    int64_t product = 1;
    for (size_t d = 0; d < want.size(); ++d) {
      EXPECT_EQ(s.shape[d].symbol, want[d].first);
      EXPECT_EQ(s.shape[d].size, want[d].second);
      EXPECT_FALSE(s.shape[d].meaning.empty());
      product *= want[d].second;
    }
    EXPECT_EQ(s.value.size(), product);
    // Stored 2-D: attention maps as H stacked (T, T_k) blocks, everything else one row per token.
    if (is_attention_map(s)) {
      EXPECT_EQ(s.value.rows(), int64_t(c.n_heads) * T);
      EXPECT_EQ(s.value.cols(), Tk);
    } else {
      EXPECT_EQ(s.value.rows(), T);
    }
    const int layer_from_name = s.name.rfind("layers.", 0) == 0 ? std::stoi(s.name.substr(7)) : -1;
    EXPECT_EQ(s.layer, layer_from_name);
    if (sub != "attn.scores") {
      EXPECT_TRUE(s.value.allFinite());  // scores hold −∞ where masked
    }
    EXPECT_GT(s.bytes, 0);
    if (sub != "embed") {
      EXPECT_GT(s.flops, 0);
    }
  }
}

ModelConfig gqa_rope_config() {
  ModelConfig c = tiny_config();  // RoPE, pre-norm RMSNorm, SwiGLU
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.n_layers = 3;
  return c;
}

ModelConfig alibi_post_config() {
  ModelConfig c = tiny_config();
  c.positions = PositionType::ALiBi;
  c.placement = NormPlacement::Post;
  c.norm = NormType::LayerNorm;
  c.activation = ActivationKind::GELU;
  c.n_kv_heads = 4;  // MHA
  c.attention = AttentionPattern::Sliding;
  c.window = 3;
  c.full_every = 2;  // interleaved: layer 1 is full
  return c;
}

TEST(ForwardSession, EveryStepShapeGqaRope) {
  const ModelConfig c = gqa_rope_config();
  ASSERT_TRUE(validate(c).empty());
  const LoadedModel m = load_model(c, {});
  ASSERT_TRUE(m.error.empty()) << m.error;
  const auto tokens = ByteTokenizer::encode("The cat sat");
  const ForwardRun run = run_prompt(c, m.weights, tokens);
  ASSERT_TRUE(run.ok()) << run.error;
  check_every_step(run, 11, 11);
}

TEST(ForwardSession, EveryStepShapeAlibiPostNorm) {
  const ModelConfig c = alibi_post_config();
  ASSERT_TRUE(validate(c).empty()) << validate(c).front();
  const LoadedModel m = load_model(c, {.seed = 7});
  ASSERT_TRUE(m.error.empty()) << m.error;
  const ForwardRun run = run_prompt(c, m.weights, ByteTokenizer::encode("héllo"));  // é is two bytes
  ASSERT_TRUE(run.ok()) << run.error;
  check_every_step(run, 6, 6);
  // Sliding layer 0 with W = 3: query 5 sees keys 3, 4, 5 only.
  const Mat& p0 = run.trace.find("layers.0.attn.probs")->value;
  EXPECT_EQ(p0(5, 2), 0.0f);
  EXPECT_GT(p0(5, 3), 0.0f);
  // Full layer 1 sees key 0.
  EXPECT_GT(run.trace.find("layers.1.attn.probs")->value(5, 0), 0.0f);
}

TEST(ForwardSession, AppendThroughCacheMatchesFullPass) {
  const ModelConfig c = gqa_rope_config();
  const LoadedModel m = load_model(c, {.seed = 3});
  ForwardRun run = run_prompt(c, m.weights, ByteTokenizer::encode("abc"));
  ASSERT_TRUE(run.ok());
  run = run_append(run, 'd');
  ASSERT_TRUE(run.ok()) << run.error;
  EXPECT_TRUE(run.incremental);
  EXPECT_EQ(run.tokens.size(), 4u);
  EXPECT_EQ(run.cache.length, 4);
  check_every_step(run, 1, 4);  // one new query row over four keys
  EXPECT_GE(run.cache_check, 0.0);
  EXPECT_LT(run.cache_check, 1e-4);
  Mat full;
  std::string error;
  ASSERT_TRUE(forward(full, nullptr, *m.weights, c, run.tokens, &error));
  const RowVec next = run.next_logits();
  ASSERT_EQ(next.size(), c.vocab);
  EXPECT_MAT_NEAR(Mat(next), Mat(full.bottomRows(1)), 1e-4f);
}

TEST(ForwardSession, RefusedAppendKeepsState) {
  ModelConfig c = tiny_config();
  c.max_seq = 3;
  const LoadedModel m = load_model(c, {});
  const ForwardRun run = run_prompt(c, m.weights, ByteTokenizer::encode("abc"));
  ASSERT_TRUE(run.ok());
  const ForwardRun after = run_append(run, 'd');
  EXPECT_TRUE(after.ok());
  EXPECT_FALSE(after.append_error.empty());
  EXPECT_EQ(after.tokens, run.tokens);
  EXPECT_EQ(after.trace.steps().size(), run.trace.steps().size());
  const ForwardRun bad = run_append(run, c.vocab + 5);
  EXPECT_NE(bad.append_error.find("vocabulary"), std::string::npos) << bad.append_error;
}

TEST(ForwardSession, InvalidPromptIsAMessage) {
  const ModelConfig c = tiny_config();
  const LoadedModel m = load_model(c, {});
  const ForwardRun empty = run_prompt(c, m.weights, {});
  EXPECT_FALSE(empty.ok());
  EXPECT_FALSE(empty.error.empty());
  EXPECT_TRUE(empty.next_logits().size() == 0);
  ModelConfig invalid = c;
  invalid.n_kv_heads = 3;
  EXPECT_FALSE(load_model(invalid, {}).error.empty());
}

TEST(ForwardSession, CheckpointRoundTripAndConfigBesideIt) {
  const auto dir = std::filesystem::temp_directory_path() / "tw_test_forward_session";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const ModelConfig c = alibi_post_config();
  const ModelWeights w = init_weights(c, 42);
  std::string error;
  const std::string path = (dir / "model.safetensors").string();
  ASSERT_TRUE(save_weights(path, w, c, &error)) << error;

  // No config.json: the panel's config must match the checkpoint.
  const LoadedModel same = load_model(c, {.seed = 1, .checkpoint = path});
  ASSERT_TRUE(same.error.empty()) << same.error;
  EXPECT_EQ(parameter_count(*same.weights), parameter_count(c));
  const auto tokens = ByteTokenizer::encode("hi");
  EXPECT_MAT_NEAR(run_prompt(c, same.weights, tokens).logits,
                  run_prompt(c, std::make_shared<const ModelWeights>(w), tokens).logits, 0.0f);
  const LoadedModel mismatch = load_model(tiny_config(), {.seed = 1, .checkpoint = path});
  EXPECT_FALSE(mismatch.error.empty());

  // With config.json beside it, that config wins over the panel's.
  ASSERT_TRUE(save_config((dir / "config.json").string(), c, &error)) << error;
  const LoadedModel with_config = load_model(tiny_config(), {.seed = 1, .checkpoint = path});
  ASSERT_TRUE(with_config.error.empty()) << with_config.error;
  EXPECT_EQ(with_config.config.placement, NormPlacement::Post);
  EXPECT_EQ(with_config.config.positions, PositionType::ALiBi);

  EXPECT_FALSE(load_model(c, {.seed = 1, .checkpoint = (dir / "missing.safetensors").string()}).error.empty());
  std::filesystem::remove_all(dir);
}

// A session that continues the previous one's KV cache gives the tokens and logits a fresh session computes
// from the prompt; it reuses the weights (same pointer) and checks only its last appended token.
TEST(ForwardSession, ContinuingEqualsAFreshRunAndChecksOnlyTheLastAppend) {
  const ModelConfig c = gqa_rope_config();
  SamplingConfig sampling;
  sampling.temperature = 0.8f;
  sampling.top_k = 20;
  const std::vector<int> prompt = ByteTokenizer::encode("abc");
  const ForwardRequest two = make_forward_request(c, {.seed = 3}, prompt, 2, sampling, 7);
  const ForwardRequest four = make_forward_request(c, {.seed = 3}, prompt, 4, sampling, 7);
  EXPECT_FALSE(two == four);
  EXPECT_TRUE(four == make_forward_request(c, {.seed = 3}, prompt, 4, sampling, 7));

  const ForwardSession first = run_forward_session(two);
  ASSERT_TRUE(first.run.ok()) << first.run.error << first.model.error;
  ASSERT_EQ(first.appended.size(), 2u);
  const ForwardSession continued = run_forward_session(four, &first);
  const ForwardSession fresh = run_forward_session(four);
  EXPECT_EQ(continued.model.weights, first.model.weights);  // text-independent weights are reused
  ASSERT_EQ(continued.appended.size(), 4u);
  EXPECT_EQ(continued.appended, fresh.appended);
  EXPECT_EQ(std::vector<int>(continued.appended.begin(), continued.appended.begin() + 2), first.appended);
  EXPECT_EQ(continued.run.tokens.size(), prompt.size() + 4);
  EXPECT_MAT_NEAR(Mat(continued.run.next_logits()), Mat(fresh.run.next_logits()), 1e-4f);
  // The newest pass (the last append) was checked against a full recompute.
  EXPECT_GE(fresh.run.cache_check, 0.0);
  EXPECT_LT(fresh.run.cache_check, 1e-4);
}

// With nothing appended the sampling settings cannot change the result, so they are not part of the request.
TEST(ForwardSession, SamplingIsPartOfTheRequestOnlyWhenTokensAreAppended) {
  const ModelConfig c = gqa_rope_config();
  SamplingConfig a, b;
  b.temperature = 0.5f;
  const std::vector<int> prompt = ByteTokenizer::encode("ab");
  EXPECT_TRUE(make_forward_request(c, {.seed = 1}, prompt, 0, a, 1) ==
              make_forward_request(c, {.seed = 1}, prompt, 0, b, 2));
  EXPECT_FALSE(make_forward_request(c, {.seed = 1}, prompt, 1, a, 1) ==
               make_forward_request(c, {.seed = 1}, prompt, 1, b, 1));
}

// A cancelled session stops and says so.
TEST(ForwardSession, ProgressCanCancel) {
  const ForwardRequest r = make_forward_request(gqa_rope_config(), {.seed = 1}, ByteTokenizer::encode("ab"), 3, {}, 1);
  const ForwardSession s = run_forward_session(r, nullptr, [](float f) { return f < 0.35f; });
  EXPECT_TRUE(s.cancelled);
  EXPECT_LT(s.appended.size(), 3u);
}

}  // namespace
}  // namespace tw
