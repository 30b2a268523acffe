#include "core/model/forward.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>
#include <map>

#include "core/text/byte_tokenizer.h"
#include "test_util.h"

namespace tw {
namespace {

// Config A: the tiny preset (GQA 4 query heads over 2 KV heads, RoPE, RMSNorm, pre-norm, SwiGLU, untied).
ModelConfig config_a() { return tiny_config(); }

// Config B: ALiBi, post-norm LayerNorm, plain GELU MLP, MQA (4 query heads, 1 KV head).
ModelConfig config_b() { return testing::alibi_post_mqa_config(); }

// Config C: the attention-stability choices: QK-norm (learned γ), soft-cap c = 5, scale 1/D.
ModelConfig config_c() {
  ModelConfig c = tiny_config();
  c.qk_norm = true;
  c.attn_softcap = 5.0f;
  c.attn_scale = ScaleMode::InvDk;
  return c;
}

const std::vector<int> kTokens = ByteTokenizer::encode("Hi there!");  // 9 tokens

Mat run(const ModelConfig& c, uint64_t seed, Trace* trace = nullptr) {
  Mat logits;
  std::string error;
  EXPECT_TRUE(forward(logits, trace, init_weights(c, seed), c, kTokens, &error)) << error;
  return logits;
}

// A trace told to keep two steps records those two, with the values the full trace holds, and the same logits.
TEST(Trace, KeepOnlyRecordsTheNamedStepsOfARealPassWithTheirValues) {
  Trace full, some;
  some.keep_only({"layers.1.mlp.residual", "layers.0.attn.probs"});
  const Mat a = run(config_a(), 1, &full), b = run(config_a(), 1, &some);
  EXPECT_EQ(max_abs_diff(a, b), 0.0f);
  ASSERT_GT(full.steps().size(), 10u);
  ASSERT_EQ(some.steps().size(), 2u);
  EXPECT_EQ(some.steps()[0].name, "layers.0.attn.probs");  // in the pass's order, not the list's
  for (const TraceStep& step : some.steps()) {
    const TraceStep* ref = full.find(step.name);
    ASSERT_NE(ref, nullptr) << step.name;
    EXPECT_EQ(step.value, ref->value) << step.name;
    EXPECT_EQ(step.sizes(), ref->sizes()) << step.name;
  }
}

// Reference values: bench/pytorch_forward.py's hand-written PyTorch forward (torch 1.13, /usr/bin/python3) on
// the checkpoints `transformer-workbench dump --config X --text "Hi there!" --seed N` wrote for these configs
// (seed 1 for A, 2 for B); the dumped weights are the ones init_weights produces here.
TEST(Forward, ConfigAMatchesPyTorch) {
  Trace trace;
  const Mat logits = run(config_a(), 1, &trace);
  ASSERT_EQ(logits.rows(), 9);
  ASSERT_EQ(logits.cols(), 259);
  const float row0[] = {0.5394809f, -0.4752668f, -0.8823388f, -0.9168234f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(logits(0, j), row0[j], 1e-5) << j;
  const int cols[] = {0, 72, 104, 258};
  const float last[] = {-0.4744778f, -0.4640491f, -0.3305898f, 0.9851199f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(logits(8, cols[j]), last[j], 1e-5) << cols[j];
  // layers.1.attn.probs, head 3, query 8, keys 0..3 (stored as row h·T + i of the (H·T, T) matrix).
  const Mat& probs = trace.find("layers.1.attn.probs")->value;
  const float p[] = {0.3020586f, 0.02654135f, 0.1964449f, 0.05420187f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(probs(3 * 9 + 8, j), p[j], 1e-6) << j;
}

TEST(Forward, ConfigBMatchesPyTorch) {
  Trace trace;
  const Mat logits = run(config_b(), 2, &trace);
  const float row0[] = {-0.5443308f, 1.759068f, -0.5254347f, 0.3458043f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(logits(0, j), row0[j], 1e-5) << j;
  const int cols[] = {0, 72, 104, 258};
  const float last[] = {-0.7314067f, -1.611404f, 0.7344476f, 1.822954f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(logits(8, cols[j]), last[j], 1e-5) << cols[j];
  const Mat& probs = trace.find("layers.1.attn.probs")->value;
  const float p[] = {0.01743824f, 0.03918048f, 0.03655947f, 0.03192831f};
  for (int j = 0; j < 4; ++j) EXPECT_NEAR(probs(3 * 9 + 8, j), p[j], 1e-6) << j;
}

// The logical shape every step must have, from the config alone: symbol → size.
std::vector<std::pair<std::string, int64_t>> expected_shape(const std::string& name, const ModelConfig& c, int T) {
  const int64_t C = c.dim, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim(), F = c.hidden, V = c.vocab;
  auto ends = [&](const char* suffix) {
    const std::string s = suffix;
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("attn.q") || ends("attn.q_rope") || ends("attn.out")) return {{"T", T}, {"H", H}, {"D", D}};
  if (ends("attn.k") || ends("attn.v") || ends("attn.k_rope")) return {{"T", T}, {"KV", KV}, {"D", D}};
  if (ends("attn.scores") || ends("attn.probs")) return {{"H", H}, {"T", T}, {"T_k", T}};
  if (ends("mlp.gate") || ends("mlp.up") || ends("mlp.hidden")) return {{"T", T}, {"F", F}};
  if (ends("mlp.router_probs") || ends("mlp.expert_gates")) return {{"T", T}, {"E", c.experts}};
  if (ends("mlp.expert_load") || ends("mlp.expert_dropped")) return {{"E", c.experts}};
  if (name == "logits") return {{"T", T}, {"V", V}};
  return {{"T", T}, {"C", C}};
}

// The trace holds "embed", then the `per_layer` steps under "layers.<l>." for every layer in order, then `tail`,
// each with the shape the config gives it.
void expect_steps(const Trace& trace, const ModelConfig& c, std::initializer_list<const char*> per_layer,
                  std::initializer_list<const char*> tail) {
  std::vector<std::string> names = {"embed"};
  for (int l = 0; l < c.n_layers; ++l)
    for (const char* step : per_layer) names.push_back("layers." + std::to_string(l) + "." + step);
  names.insert(names.end(), tail.begin(), tail.end());
  ASSERT_EQ(trace.steps().size(), names.size());
  const int T = static_cast<int>(kTokens.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const TraceStep& s = trace.steps()[i];
    EXPECT_EQ(s.name, names[i]) << "step " << i;
    const auto want = expected_shape(s.name, c, T);
    ASSERT_EQ(s.shape.size(), want.size()) << s.name;
    int64_t product = 1;
    for (size_t d = 0; d < want.size(); ++d) {
      EXPECT_EQ(s.shape[d].symbol, want[d].first) << s.name;
      EXPECT_EQ(s.shape[d].size, want[d].second) << s.name;
      EXPECT_FALSE(s.shape[d].meaning.empty()) << s.name;
      product *= s.shape[d].size;
    }
    EXPECT_EQ(product, s.value.size()) << s.name;
    EXPECT_FALSE(s.title.empty()) << s.name;
    EXPECT_FALSE(s.formula.empty()) << s.name;
    EXPECT_FALSE(s.inputs.empty()) << s.name;
    EXPECT_GT(s.bytes, 0) << s.name;
    if (s.name != "embed") {
      EXPECT_GT(s.flops, 0) << s.name;
    }
    const std::string layer_prefix = s.layer >= 0 ? "layers." + std::to_string(s.layer) + "." : "";
    EXPECT_EQ(s.name.rfind(layer_prefix, 0), 0u) << s.name;
  }
}

TEST(Forward, TraceOfGqaRopePreNorm) {
  const ModelConfig c = config_a();
  Trace trace;
  run(c, 1, &trace);
  expect_steps(
      trace, c,
      {"attn_norm", "attn.q", "attn.k", "attn.v", "attn.q_rope", "attn.k_rope", "attn.scores", "attn.probs", "attn.out",
       "attn.proj", "attn.residual", "mlp_norm", "mlp.gate", "mlp.up", "mlp.hidden", "mlp.down", "mlp.residual"},
      {"final_norm", "logits"});
  // GQA: K is (T, 2 KV heads, 16), half the width of Q (T, 4 heads, 16).
  EXPECT_EQ(trace.find("layers.0.attn.k")->value.cols(), 32);
  EXPECT_EQ(trace.find("layers.0.attn.q")->value.cols(), 64);
  // q = a · W_qᵀ over T = 9, C = 64, H·D = 64: 2 · 9 · 64 · 64 FLOPs.
  EXPECT_DOUBLE_EQ(trace.find("layers.0.attn.q")->flops, 73728.0);
  EXPECT_EQ(trace.find("layers.1.attn.q")->inputs,
            (std::vector<std::string>{"layers.1.attn_norm", "model.layers.1.self_attn.q_proj.weight"}));
}

TEST(Forward, TraceOfAlibiPostNorm) {
  const ModelConfig c = config_b();
  Trace trace;
  run(c, 2, &trace);
  // Post-norm: each norm follows its residual add, and there is no final norm.
  expect_steps(trace, c,
               {"attn.q", "attn.k", "attn.v", "attn.scores", "attn.probs", "attn.out", "attn.proj", "attn.residual",
                "attn_norm", "mlp.up", "mlp.hidden", "mlp.down", "mlp.residual", "mlp_norm"},
               {"logits"});
  EXPECT_EQ(trace.find("layers.1.attn.q")->inputs,
            (std::vector<std::string>{"layers.0.mlp_norm", "model.layers.1.self_attn.q_proj.weight"}));
  // ALiBi scores: head 0's slope is 2^(−8/4) = 0.25; the future is −∞.
  const Mat& s = trace.find("layers.0.attn.scores")->value;
  EXPECT_EQ(s(0, 1), kNegInf);
  EXPECT_NE(trace.find("layers.0.attn.scores")->formula.find("m_h"), std::string::npos);
}

// Parallel block: the MLP reads Norm(x) of the block input, not of h = x + Attn(Norm(x)); the block output is
// x + y + d. Checked on the trace against an independent RMSNorm and sum, and against the serial block of the
// same weights (same attention half, different MLP input).
TEST(Forward, ParallelBlockMlpReadsTheBlockInput) {
  ModelConfig c = config_a();
  c.parallel_block = true;
  const ModelWeights w = init_weights(c, 6);
  Trace par, ser;
  Mat lp, ls;
  std::string error;
  ASSERT_TRUE(forward(lp, &par, w, c, kTokens, &error)) << error;
  ModelConfig serial = c;
  serial.parallel_block = false;
  ASSERT_TRUE(forward(ls, &ser, w, serial, kTokens, &error)) << error;
  const Mat& x = par.find("layers.0.mlp.residual")->value;
  // m = x / sqrt(mean(x²) + ε) · γ of the block input x (layer 1's input is layer 0's output).
  Mat m(x.rows(), x.cols());
  for (int t = 0; t < x.rows(); ++t) {
    const double ms = x.row(t).cast<double>().squaredNorm() / x.cols();
    m.row(t) = (x.row(t).cast<double>() / std::sqrt(ms + c.eps))
                   .cast<float>()
                   .cwiseProduct(w.layers[1].mlp_norm.weight.transpose());
  }
  EXPECT_MAT_NEAR(par.find("layers.1.mlp_norm")->value, m, 1e-5f);
  EXPECT_EQ(par.find("layers.1.mlp_norm")->inputs[0], "layers.0.mlp.residual");
  // out = x + y + d.
  const Mat sum = x + par.find("layers.1.attn.proj")->value + par.find("layers.1.mlp.down")->value;
  EXPECT_MAT_NEAR(par.find("layers.1.mlp.residual")->value, sum, 1e-5f);
  // Layer 0's attention half is the same in both layouts; its MLP input is not, so the logits differ.
  EXPECT_EQ(max_abs_diff(par.find("layers.0.attn.residual")->value, ser.find("layers.0.attn.residual")->value), 0.0f);
  EXPECT_GT(max_rel_diff(lp, ls), 1e-3f);
}

// MoE in the stepper: the router's probabilities, the k gates of each token (renormalised over the chosen
// experts), each expert's load and drops are steps; without a capacity nothing drops and the loads sum to T·k.
TEST(Forward, MoeRoutingIsRecordedAsSteps) {
  ModelConfig c = config_a();
  c.experts = 4;
  c.top_k = 2;
  Trace trace;
  run(c, 8, &trace);
  expect_steps(trace, c,
               {"attn_norm", "attn.q", "attn.k", "attn.v", "attn.q_rope", "attn.k_rope", "attn.scores", "attn.probs",
                "attn.out", "attn.proj", "attn.residual", "mlp_norm", "mlp.router_probs", "mlp.expert_gates",
                "mlp.expert_load", "mlp.expert_dropped", "mlp.down", "mlp.residual"},
               {"final_norm", "logits"});
  const Mat& p = trace.find("layers.1.mlp.router_probs")->value;  // (T, E)
  const Mat& g = trace.find("layers.1.mlp.expert_gates")->value;
  ASSERT_EQ(p.rows(), 9);
  ASSERT_EQ(p.cols(), 4);
  for (int t = 0; t < 9; ++t) {
    EXPECT_NEAR(p.row(t).sum(), 1.0f, 1e-5f);
    EXPECT_EQ((g.row(t).array() > 0).count(), 2) << t;
    EXPECT_NEAR(g.row(t).sum(), 1.0f, 1e-5f);
    // The chosen two are the two most probable: every gate-less expert's probability is at most a chosen one's.
    float chosen_min = 1, other_max = 0;
    for (int e = 0; e < 4; ++e) {
      if (g(t, e) > 0)
        chosen_min = std::min(chosen_min, p(t, e));
      else
        other_max = std::max(other_max, p(t, e));
    }
    EXPECT_LE(other_max, chosen_min) << t;
  }
  EXPECT_EQ(trace.find("layers.1.mlp.expert_load")->value.sum(), 18.0f);
  EXPECT_EQ(trace.find("layers.1.mlp.expert_dropped")->value.sum(), 0.0f);
  EXPECT_EQ(trace.find("layers.1.mlp.expert_load")->shape[0].symbol, "E");
}

TEST(Forward, ProbabilitiesAreCausalDistributions) {
  Trace trace;
  run(config_a(), 1, &trace);
  const Mat& p = trace.find("layers.0.attn.probs")->value;  // (H·T, T)
  for (int r = 0; r < p.rows(); ++r) {
    const int i = r % 9;
    EXPECT_NEAR(p.row(r).sum(), 1.0f, 1e-5) << r;
    for (int j = i + 1; j < 9; ++j) EXPECT_EQ(p(r, j), 0.0f) << r << "," << j;
  }
}

TEST(Forward, SlidingLayersFollowThePattern) {
  ModelConfig c = config_a();
  c.n_layers = 3;
  c.attention = AttentionPattern::Sliding;
  c.window = 3;
  c.full_every = 2;  // layer 1 full, layers 0 and 2 sliding
  Trace trace;
  run(c, 4, &trace);
  for (int l = 0; l < 3; ++l) {
    const Mat& p = trace.find("layers." + std::to_string(l) + ".attn.probs")->value;
    // Query 8 sees keys 6, 7, 8 in a window of W = 3 (0 ≤ i − j < 3); key 5 only in the full layer.
    EXPECT_EQ(p(8, 5) > 0.0f, l == 1) << "layer " << l;
    EXPECT_GT(p(8, 6), 0.0f);
  }
}

TEST(Forward, TraceOffGivesTheSameLogits) {
  // Untraced runs use the tiled attention kernel instead of the reference one: equal up to float rounding.
  for (const ModelConfig& c : {config_a(), config_b(), config_c()}) {
    Trace on, off(false);
    const Mat a = run(c, 1, &on), b = run(c, 1, &off), n = run(c, 1, nullptr);
    EXPECT_TRUE(off.steps().empty());
    EXPECT_MAT_NEAR(b, a, 1e-5f);
    EXPECT_EQ(max_abs_diff(b, n), 0.0f);
    EXPECT_EQ(max_abs_diff(on.steps().back().value, a), 0.0f);
  }
}

TEST(Forward, QkNormSoftcapAndScaleReachTheScores) {
  const ModelConfig c = config_c();
  ModelWeights w = init_weights(c, 3);
  w.layers[0].q_norm(1) = 2.0f;  // a γ that is not 1 must reach the scores
  Trace trace;
  Mat logits;
  std::string error;
  ASSERT_TRUE(forward(logits, &trace, w, c, kTokens, &error)) << error;
  const Mat& q = trace.find("layers.0.attn.q_rope")->value;  // (T, H*D) before QK-norm
  const Mat& k = trace.find("layers.0.attn.k_rope")->value;  // (T, KV*D)
  const Mat& s = trace.find("layers.0.attn.scores")->value;  // (H*T, T)
  const int D = c.head_dim();
  // Independent recomputation of head 0, query 4, key 2: RMS-normalise, γ, dot, 1/D, 5·tanh(S/5).
  auto rms = [&](const Mat& x, int row, const Vec& g) {
    Eigen::VectorXd v = x.row(row).head(D).transpose().cast<double>();
    v /= std::sqrt(v.squaredNorm() / D + 1e-6);
    return Eigen::VectorXd(v.cwiseProduct(g.cast<double>()));
  };
  const double raw = rms(q, 4, w.layers[0].q_norm).dot(rms(k, 2, w.layers[0].k_norm)) / D;
  EXPECT_NEAR(s(4, 2), 5.0 * std::tanh(raw / 5.0), 1e-5);
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    if (std::isfinite(s.data()[i])) {
      EXPECT_LE(std::abs(s.data()[i]), 5.0f);
    }
  }
  EXPECT_EQ(parameter_count(w), parameter_count(c));
}

TEST(Forward, FlopsFormulaMatchesTheTrace) {
  ModelConfig moe = config_a();
  moe.experts = 4;
  for (const ModelConfig& c : {config_a(), config_b(), moe}) {
    Trace trace;
    run(c, 1, &trace);
    EXPECT_DOUBLE_EQ(trace.total_flops(), forward_flops(c, 9));
  }
}

TEST(Forward, BadTokensAreRefusedWithAMessage) {
  const ModelConfig c = config_a();
  const ModelWeights w = init_weights(c, 1);
  Mat logits;
  std::string error;
  EXPECT_FALSE(forward(logits, nullptr, w, c, {1, 259}, &error));
  EXPECT_EQ(error, "token 259 at position 1 is outside the vocabulary 0..258");
  EXPECT_FALSE(forward(logits, nullptr, w, c, {}, &error));
  EXPECT_EQ(error, "no tokens to run (the input is empty)");
  EXPECT_FALSE(forward(logits, nullptr, w, c, std::vector<int>(129, 7), &error));
  EXPECT_EQ(error, "129 tokens exceed the model's 128 positions (max_seq; max_position_embeddings in config.json)");
}

// Activations beyond float32's range stop the pass with the step's name; they never reach softmax as NaN rows
// that would come out as quiet zeros. Both the traced (reference) and the fast (flash) path.
TEST(Forward, OverflowIsAnErrorNamingTheStepNotZeros) {
  const ModelConfig c = config_a();
  ModelWeights w = init_weights(c, 1);
  // Finite weights, but q = a · W_qᵀ overflows: a is RMS-normalised, so some |a_c| > 1 and a_c · FLT_MAX is ±inf.
  w.layers[1].wq.row(0).setConstant(std::numeric_limits<float>::max());
  for (bool traced : {true, false}) {
    Trace trace;
    Mat logits;
    std::string error;
    EXPECT_FALSE(forward(logits, traced ? &trace : nullptr, w, c, kTokens, &error));
    EXPECT_EQ(
        error.rfind("the forward pass overflowed float32: layers.1.attn.q_rope has NaN or inf values at token 0", 0),
        0u)
        << error;
  }
  ModelWeights big = init_weights(c, 1);
  big.lm_head.setConstant(std::numeric_limits<float>::max());
  Mat logits;
  std::string error;
  EXPECT_FALSE(forward(logits, nullptr, big, c, kTokens, &error));
  EXPECT_NE(error.find("logits has NaN or inf values"), std::string::npos) << error;
}

}  // namespace
}  // namespace tw
