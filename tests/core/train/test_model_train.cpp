// The training forward/backward against the inference forward (logits) and against central finite differences of
// the loss in double precision (every parameter tensor, a sample of entries each), for configs covering every
// architecture choice the backward must handle.
#include "core/train/model_train.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>

#include "core/compare.h"
#include "core/model/forward.h"
#include "core/model/model_pass.h"

namespace tw {
namespace {

// A small model every variant starts from: 2 layers, 4 query heads over 2 KV heads (ModelConfig's defaults),
// head_dim 4; `arch` names the architecture choices (defaults: RoPE, RMSNorm, pre-norm, SwiGLU) and may change the
// KV heads.
ModelConfig small(ModelConfig arch = {}) {
  static_assert(ModelConfig{}.n_layers == 2 && ModelConfig{}.n_heads == 4 && ModelConfig{}.n_kv_heads == 2);
  arch.dim = 16;
  arch.vocab = 13;
  arch.hidden = 24;
  arch.max_seq = 12;
  return arch;
}

// B sequences of T tokens with next-token targets inside each sequence (last position −1).
Batch make_batch(const ModelConfig& c, int B, int T, uint64_t seed) {
  Batch b;
  b.B = B;
  b.T = T;
  uint64_t s = seed;
  for (int i = 0; i < B * T; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    b.tokens.push_back(static_cast<int>((s >> 33) % static_cast<uint64_t>(c.vocab)));
  }
  for (int i = 0; i < B * T; ++i) b.targets.push_back(i % T == T - 1 ? -1 : b.tokens[static_cast<size_t>(i + 1)]);
  return b;
}

// Random-looking but deterministic offsets on every parameter (norm γ = 1 and β = 0 exactly would leave terms of
// the norm backward untested).
void jitter(ModelWeightsD& w, const ModelConfig& c, double amount) {
  uint64_t s = 12345;
  visit_parameters(w, c, [&](const std::string&, double* d, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      d[i] += amount * (static_cast<double>(s >> 11) / 9007199254740992.0 - 0.5);
    }
  });
}

// Tensors whose exact gradient is zero: without RoPE, a key bias adds q·b_k to every score of a query's row, which
// the softmax ignores (GPT-2's c_attn k bias). They are checked to be zero, not relative to their own size.
bool zero_gradient(const ModelConfig& c, const std::string& name) {
  return c.positions != PositionType::RoPE && name.find("k_proj.bias") != std::string::npos;
}

struct GradCheck {
  double worst_rel = 0;  // max over tensors of max |analytic − numeric| / max |analytic|
  std::string worst_name;
};

// Central differences (L(w+h) − L(w−h)) / 2h in double on `per_tensor` entries of every tensor.
GradCheck check_gradients(const ModelConfig& c, const Batch& batch, int per_tensor = 24) {
  ModelWeightsD w = to_double(init_weights(c, 7));
  jitter(w, c, 0.2);
  ModelWeightsD g;
  double loss = 0;
  std::string error;
  EXPECT_TRUE(train_forward_backward_double(&g, w, c, batch, &loss, &error)) << error;
  EXPECT_TRUE(std::isfinite(loss));
  // Collect the analytic gradients by name.
  std::vector<std::pair<std::string, std::vector<double>>> analytic;
  visit_parameters(g, c, [&](const std::string& name, double* d, int64_t n) {
    analytic.push_back({name, std::vector<double>(d, d + n)});
  });
  GradCheck out;
  size_t t = 0;
  const double h = 1e-5;
  visit_parameters(w, c, [&](const std::string& name, double* d, int64_t n) {
    const std::vector<double>& ga = analytic[t++].second;
    double gmax = 0;
    for (double v : ga) gmax = std::max(gmax, std::abs(v));
    if (zero_gradient(c, name)) {
      EXPECT_LT(gmax, 1e-12) << name;
      for (int64_t i = 0; i < n; ++i) {  // and the loss indeed does not move with it
        const double keep = d[i];
        double lp = 0, lm = 0;
        d[i] = keep + 0.1;
        train_forward_backward_double(nullptr, w, c, batch, &lp, nullptr);
        d[i] = keep - 0.1;
        train_forward_backward_double(nullptr, w, c, batch, &lm, nullptr);
        d[i] = keep;
        EXPECT_NEAR(lp, lm, 1e-12 * std::abs(lp)) << name << "[" << i << "]";
      }
      return;
    }
    EXPECT_GT(gmax, 1e-8) << name << " has an all-zero gradient";
    double err = 0;
    const int64_t step = std::max<int64_t>(1, n / per_tensor);
    for (int64_t i = (n > 1 ? 1 : 0); i < n; i += step) {
      const double keep = d[i];
      double lp = 0, lm = 0;
      d[i] = keep + h;
      train_forward_backward_double(nullptr, w, c, batch, &lp, nullptr);
      d[i] = keep - h;
      train_forward_backward_double(nullptr, w, c, batch, &lm, nullptr);
      d[i] = keep;
      err = std::max(err, std::abs((lp - lm) / (2 * h) - ga[static_cast<size_t>(i)]));
    }
    const double rel = err / std::max(gmax, 1e-30);
    if (rel > out.worst_rel) {
      out.worst_rel = rel;
      out.worst_name = name;
    }
  });
  return out;
}

void expect_gradients(const ModelConfig& c, int B = 2, int T = 7) {
  ASSERT_TRUE(validate(c).empty()) << validate(c).front();
  const GradCheck r = check_gradients(c, make_batch(c, B, T, 99));
  EXPECT_LT(r.worst_rel, 1e-6) << "worst tensor " << r.worst_name;
  std::printf("worst relative error %.3g (%s)\n", r.worst_rel, r.worst_name.c_str());
}

// [SECTION] finite differences, one config per family of choices

// Gemma 3's block: (1 + γ) RMSNorm everywhere (QK-norm too, before RoPE), sandwich norms around attention and MLP,
// embeddings scaled by √C, query_pre_attn_scalar, tanh GeGLU, final logit soft-capping (3: small enough to bend),
// a sliding first layer turning with its own RoPE base, a head_dim of 6, tied head, MQA.
ModelConfig gemma3_shaped() {
  return small({.n_kv_heads = 1,
                .activation = ActivationKind::GeGLU,
                .attention = AttentionPattern::Sliding,
                .window = 3,
                .full_every = 2,
                .tie_embeddings = true,
                .eps = 1e-6f,
                .qk_norm = true,
                .family = Family::Gemma3,
                .head_dim_override = 6,
                .gelu_tanh = true,
                .qk_norm_before_rope = true,
                .norm_plus_one = true,
                .sandwich_norm = true,
                .embed_scale = 4.0f,
                .query_scale = 0.3f,
                .final_softcap = 3.0f,
                .rope_local_base = 100.0f});
}

// Phi-3's attention: RoPE on the first half of each head's dims only (partial_rotary_factor 0.5), a sliding window.
ModelConfig phi3_shaped() {
  return small({.attention = AttentionPattern::Sliding, .window = 4, .family = Family::Phi3, .rotary_fraction = 0.5f});
}

// GPT-2's block: LayerNorm with β, learned positions, tanh GELU (gelu_new), biases on q/k/v (c_attn), on o_proj
// (attn.c_proj) and on both MLP projections (c_fc, mlp.c_proj), tied head, as many KV heads as query heads.
ModelConfig gpt2_shaped() {
  return small({.n_kv_heads = 4,
                .norm = NormType::LayerNorm,
                .positions = PositionType::Learned,
                .activation = ActivationKind::GELU,
                .tie_embeddings = true,
                .attn_bias = true,
                .family = Family::GPT2,
                .linear_bias = true,
                .gelu_tanh = true});
}

// Qwen3's attention: each head's q and k RMS-normalised (own γ, the model's ε) before RoPE, a head_dim of 6 where
// C / H = 4, GQA, and a sliding first layer.
ModelConfig qwen3_shaped() {
  return small({.attention = AttentionPattern::Sliding,
                .window = 3,
                .full_every = 2,
                .qk_norm = true,
                .family = Family::Qwen3,
                .head_dim_override = 6,
                .qk_norm_before_rope = true});
}

struct GradCase {
  const char* name;  // the test's name: the choices it covers
  ModelConfig config;
};

const GradCase kGradCases[] = {
    {"RopeGqaRmsPreSwiGLU", small()},
    {"AlibiPostNormMqa", small({.n_kv_heads = 1, .placement = NormPlacement::Post, .positions = PositionType::ALiBi})},
    {"LayerNormGeluLearnedPositions",
     small({.norm = NormType::LayerNorm, .positions = PositionType::Learned, .activation = ActivationKind::GELU})},
    {"LayerNormPostNormSinusoidalGeGLU", small({.norm = NormType::LayerNorm,
                                                .placement = NormPlacement::Post,
                                                .positions = PositionType::Sinusoidal,
                                                .activation = ActivationKind::GeGLU})},
    {"TiedEmbeddingsNoPositionsReLU",  // 4 KV heads: MHA
     small({.n_kv_heads = 4,
            .positions = PositionType::None,
            .activation = ActivationKind::ReLU,
            .tie_embeddings = true})},
    {"QkNormSoftcapInvDk",  // soft-cap 1.5: small enough that tanh bends the scores
     small({.attn_scale = ScaleMode::InvDk, .qk_norm = true, .attn_softcap = 1.5f})},
    {"ParallelBlockGqa", small({.parallel_block = true})},  // x + Attn(Norm1(x)) + MLP(Norm2(x))
    {"ParallelBlockLayerNormGeluTied", small({.norm = NormType::LayerNorm,
                                              .parallel_block = true,
                                              .activation = ActivationKind::GELU,
                                              .tie_embeddings = true})},
    // Qwen2's q/k/v biases (before RoPE) with Llama 3 RoPE scaling (trained context 4 < T = 7).
    {"AttnBiasRopeLlama3",
     small({.attn_bias = true, .rope_scaling = RopeScaling::Llama3, .rope_factor = 8.0f, .rope_original_context = 4})},
    {"AttnBiasQkNormDynamicNtk", small({.qk_norm = true,
                                        .attn_bias = true,
                                        .rope_scaling = RopeScaling::DynamicNtk,
                                        .rope_factor = 2.0f,
                                        .rope_original_context = 4})},
    {"NoScaleSlidingInterleaved",  // full_every 2: layer 0 sliding, layer 1 full
     small({.attention = AttentionPattern::Sliding, .window = 3, .full_every = 2, .attn_scale = ScaleMode::None})},
    {"Gpt2BiasesTanhGeluLearnedPositionsTied", gpt2_shaped()},
    {"Qwen3QkNormBeforeRopeOwnHeadDim", qwen3_shaped()},
    {"Gemma3SandwichPlusOneScaledCapped", gemma3_shaped()},
    {"Phi3PartialRotary", phi3_shaped()},
};

class ModelTrainGrad : public ::testing::TestWithParam<GradCase> {};

TEST_P(ModelTrainGrad, FiniteDifferences) { expect_gradients(GetParam().config); }

INSTANTIATE_TEST_SUITE_P(Config, ModelTrainGrad, ::testing::ValuesIn(kGradCases),
                         [](const ::testing::TestParamInfo<GradCase>& info) { return std::string(info.param.name); });

// [SECTION] agreement with the inference path and between precisions

// Configs that mix the choices (the finite-difference cases above take them one family at a time), and the four
// Hugging Face families' blocks.
const ModelConfig kVariants[] = {
    small(),
    small({.norm = NormType::LayerNorm,
           .placement = NormPlacement::Post,
           .positions = PositionType::ALiBi,
           .activation = ActivationKind::GELU}),
    small({.tie_embeddings = true, .attn_scale = ScaleMode::InvDk, .qk_norm = true, .attn_softcap = 2.0f}),
    small({.positions = PositionType::Learned,
           .activation = ActivationKind::GeGLU,
           .attention = AttentionPattern::Sliding,
           .window = 2}),
    small({.positions = PositionType::Sinusoidal, .activation = ActivationKind::ReLU, .attn_scale = ScaleMode::None}),
    small({.parallel_block = true, .positions = PositionType::ALiBi, .activation = ActivationKind::GeGLU}),
    small({.attn_bias = true, .rope_scaling = RopeScaling::Linear, .rope_factor = 2.0f}),
    small(
        {.attn_bias = true, .rope_scaling = RopeScaling::DynamicNtk, .rope_factor = 4.0f, .rope_original_context = 5}),
    gpt2_shaped(),
    qwen3_shaped(),
    gemma3_shaped(),
    phi3_shaped(),
};

ModelConfig variant(int i) { return kVariants[i]; }

TEST(ModelTrain, LogitsMatchInferenceForward) {
  for (int i = 0; i < static_cast<int>(std::size(kVariants)); ++i) {
    const ModelConfig c = variant(i);
    const ModelWeights w = init_weights(c, 3);
    const Batch b = make_batch(c, 3, 9, 5);
    TrainState state;
    std::string error;
    ASSERT_TRUE(train_forward(state, w, c, b, nullptr, &error)) << error;
    for (int s = 0; s < b.B; ++s) {
      const std::vector<int> tokens(b.tokens.begin() + s * b.T, b.tokens.begin() + (s + 1) * b.T);
      Mat ref;
      ASSERT_TRUE(forward(ref, nullptr, w, c, tokens, &error)) << error;
      const Mat got = train_logits(state).middleRows(s * b.T, b.T);
      EXPECT_LT(max_rel_diff(got, ref), 1e-5f) << "variant " << i << " sequence " << s;
    }
  }
}

TEST(ModelTrain, LossIsMeanNegativeLogLikelihoodOfTargets) {
  const ModelConfig c = small();
  const ModelWeights w = init_weights(c, 3);
  Batch b = make_batch(c, 2, 6, 8);
  b.targets[3] = -1;  // an ignored position must not count
  TrainState state;
  double loss = 0;
  ASSERT_TRUE(train_forward(state, w, c, b, &loss, nullptr));
  const Mat& logits = train_logits(state);
  double sum = 0;
  int n = 0;
  for (int i = 0; i < b.B * b.T; ++i) {
    if (b.targets[static_cast<size_t>(i)] < 0) continue;
    const Eigen::RowVectorXd row = logits.row(i).cast<double>();
    const double lse = std::log((row.array() - row.maxCoeff()).exp().sum()) + row.maxCoeff();
    sum += lse - row(b.targets[static_cast<size_t>(i)]);
    ++n;
  }
  EXPECT_NEAR(loss, sum / n, 1e-5 * std::abs(sum / n));
}

TEST(ModelTrain, FloatGradientsAgreeWithDouble) {
  float worst = 0;
  for (int i = 0; i < static_cast<int>(std::size(kVariants)); ++i) {
    const ModelConfig c = variant(i);
    const ModelWeights w = init_weights(c, 11);
    const Batch b = make_batch(c, 4, 10, 6);
    ModelWeights gf;
    TrainState state;
    double lf = 0, ld = 0;
    std::string error;
    ASSERT_TRUE(train_forward_backward(&gf, state, w, c, b, &lf, &error)) << error;
    ModelWeightsD gd;
    ASSERT_TRUE(train_forward_backward_double(&gd, to_double(w), c, b, &ld, &error)) << error;
    EXPECT_NEAR(lf, ld, 1e-5 * ld);
    std::vector<Mat> dd;
    visit_parameters(gd, c, [&](const std::string&, double* d, int64_t n) {
      dd.push_back(Eigen::Map<MatD>(d, 1, n).cast<float>());
    });
    size_t t = 0;
    visit_parameters(gf, c, [&](const std::string& name, float* d, int64_t n, ParamKind) {
      const Mat f = Eigen::Map<Mat>(d, 1, n);
      if (zero_gradient(c, name)) {  // rounding noise around an exact zero: small next to the other gradients
        EXPECT_LT(f.cwiseAbs().maxCoeff(), 1e-6f) << "variant " << i << " " << name;
        ++t;
        return;
      }
      const float rel = max_rel_diff(f, dd[t++]);
      worst = std::max(worst, rel);
      EXPECT_LT(rel, 2e-5f) << "variant " << i << " " << name;
    });
  }
  std::printf("float vs double gradients: worst relative difference %.3g\n", worst);
}

TEST(ModelTrain, StepIsDeterministicAndStateIsReused) {
  const ModelConfig c = variant(2);
  const ModelWeights w = init_weights(c, 1);
  const Batch b = make_batch(c, 4, 8, 2);
  TrainState state;
  ModelWeights g1, g2;
  double l1 = 0, l2 = 0;
  ASSERT_TRUE(train_forward_backward(&g1, state, w, c, b, &l1, nullptr));
  ASSERT_TRUE(train_forward_backward(&g2, state, w, c, b, &l2, nullptr));
  EXPECT_EQ(l1, l2);
  size_t t = 0;
  std::vector<std::vector<float>> first;
  visit_parameters(g1, c, [&](const std::string&, float* d, int64_t n, ParamKind) { first.emplace_back(d, d + n); });
  visit_parameters(g2, c, [&](const std::string& name, float* d, int64_t n, ParamKind) {
    EXPECT_EQ(0, std::memcmp(d, first[t++].data(), static_cast<size_t>(n) * sizeof(float))) << name;
  });
}

TEST(ModelTrain, AttentionProbsAreRowStochasticAndCausal) {
  const ModelConfig c = small();
  const ModelWeights w = init_weights(c, 1);
  const Batch b = make_batch(c, 2, 5, 2);
  TrainState state;
  ASSERT_TRUE(train_forward(state, w, c, b, nullptr, nullptr));
  EXPECT_EQ(train_attention_probs(TrainState(), 0, 0).size(), 0);  // nothing run yet: empty, not a crash
  EXPECT_EQ(train_logits(TrainState()).size(), 0);
  EXPECT_EQ(train_attention_probs(state, c.n_layers, 0).size(), 0);
  EXPECT_EQ(train_attention_probs(state, 0, b.B).size(), 0);
  const Mat p = train_attention_probs(state, 1, 1);
  ASSERT_EQ(p.rows(), c.n_heads * b.T);
  ASSERT_EQ(p.cols(), b.T);
  for (int r = 0; r < p.rows(); ++r) {
    EXPECT_NEAR(p.row(r).sum(), 1.0f, 1e-5f);
    for (int j = r % b.T + 1; j < b.T; ++j) EXPECT_EQ(p(r, j), 0.0f);
  }
}

TEST(ModelTrain, BadBatchesGiveOneLineMessages) {
  const ModelConfig c = small();
  const ModelWeights w = init_weights(c, 1);
  TrainState state;
  std::string error;
  Batch b = make_batch(c, 1, 4, 1);
  b.tokens[2] = c.vocab;
  EXPECT_FALSE(train_forward(state, w, c, b, nullptr, &error));
  EXPECT_NE(error.find("vocabulary"), std::string::npos) << error;
  b = make_batch(c, 1, 4, 1);
  for (int& t : b.targets) t = -1;
  EXPECT_FALSE(train_forward(state, w, c, b, nullptr, &error));
  EXPECT_NE(error.find("no target"), std::string::npos) << error;
  b = make_batch(c, 1, c.max_seq + 1, 1);
  EXPECT_FALSE(train_forward(state, w, c, b, nullptr, &error));
  EXPECT_NE(error.find("max_seq"), std::string::npos) << error;
  b = make_batch(c, 2, 4, 1);
  b.targets.pop_back();
  EXPECT_FALSE(train_forward(state, w, c, b, nullptr, &error));
  ModelConfig other = c;
  other.vocab = 20;
  EXPECT_FALSE(train_forward(state, w, other, make_batch(c, 1, 4, 1), nullptr, &error));
  EXPECT_NE(error.find("weights"), std::string::npos) << error;
  other = c;
  other.hidden = 30;  // same vocabulary and width, other MLP shape: refused, not read out of bounds
  error.clear();
  EXPECT_FALSE(train_forward(state, w, other, make_batch(c, 1, 4, 1), nullptr, &error));
  EXPECT_NE(error.find("weights"), std::string::npos) << error;
  other = c;
  other.attn_bias = true;  // a Qwen2-style config with weights that have no q/k/v biases: refused, not read past
  EXPECT_FALSE(train_forward(state, w, other, make_batch(c, 1, 4, 1), nullptr, &error));
  EXPECT_NE(error.find("weights"), std::string::npos) << error;
  // The refused calls left the state usable.
  double loss = 0;
  EXPECT_TRUE(train_forward(state, w, c, make_batch(c, 1, 4, 1), &loss, &error)) << error;
  EXPECT_TRUE(std::isfinite(loss));
}

TEST(ModelTrain, DivergedWeightsGiveAMessageNotNaNGradients) {
  const ModelConfig c = small();
  ModelWeights w = init_weights(c, 1);
  w.layers[1].mlp.down(0, 0) = std::numeric_limits<float>::quiet_NaN();
  TrainState state;
  ModelWeights g = zero_weights(c);
  g.embed(0, 0) = 42.0f;  // marks "left as it was"
  double loss = 0;
  std::string error;
  EXPECT_FALSE(train_forward_backward(&g, state, w, c, make_batch(c, 2, 5, 1), &loss, &error));
  EXPECT_TRUE(std::isnan(loss));
  EXPECT_NE(error.find("NaN"), std::string::npos) << error;
  EXPECT_EQ(g.embed(0, 0), 42.0f);
}

TEST(ModelTrain, GradientBuffersAreReshapedForAnotherConfig) {
  ModelConfig c = small();
  ModelWeights g = zero_weights(c);
  c.hidden = 20;
  c.tie_embeddings = true;
  const ModelWeights w = init_weights(c, 2);
  TrainState state;
  ASSERT_TRUE(train_forward_backward(&g, state, w, c, make_batch(c, 2, 5, 3), nullptr, nullptr));
  EXPECT_EQ(g.layers[0].mlp.up.rows(), 20);
  EXPECT_EQ(g.lm_head.size(), 0);
  EXPECT_GT(g.embed.norm(), 0.0f);
}

// [SECTION] mixture of experts

ModelConfig moe_config() {
  ModelConfig c = small();
  c.experts = 4;
  c.top_k = 2;
  c.aux_loss_coef = 0.1;  // large, so the balance term's gradient is visible next to the cross-entropy's
  return c;
}

TEST(ModelTrainGrad, MoeSwiGLUTopTwo) { expect_gradients(moe_config()); }

// The stepper's forward() runs the same MoE op: its logits equal the training pass's, sequence by sequence (one
// sequence per batch when the capacity binds, since capacity counts the tokens of one call).
TEST(ModelTrain, MoeLogitsMatchInferenceForward) {
  ModelConfig post = moe_config();
  post.activation = ActivationKind::GELU;
  post.placement = NormPlacement::Post;
  post.experts = 3;
  post.capacity_factor = 0.8;
  ModelConfig parallel = moe_config();
  parallel.parallel_block = true;
  for (const ModelConfig& c : {moe_config(), post, parallel}) {
    const ModelWeights w = init_weights(c, 4);
    const int B = c.capacity_factor > 0 ? 1 : 3;
    const Batch b = make_batch(c, B, 9, 5);
    TrainState state;
    std::string error;
    ASSERT_TRUE(train_forward(state, w, c, b, nullptr, &error)) << error;
    for (int s = 0; s < B; ++s) {
      const std::vector<int> tokens(b.tokens.begin() + s * b.T, b.tokens.begin() + (s + 1) * b.T);
      Mat ref;
      ASSERT_TRUE(forward(ref, nullptr, w, c, tokens, &error)) << error;
      EXPECT_LT(max_rel_diff(train_logits(state).middleRows(s * b.T, b.T), ref), 1e-5f) << s;
    }
    if (c.capacity_factor > 0) {
      EXPECT_GT(train_moe_stats(state).layers[0].dropped, 0);
    }
  }
}

// [SECTION] the stepper's trace is the training pass's activations
// forward() with a Trace and train_forward() run the one pass of core/model/model_pass.h; only the attention
// kernel differs (the reference one keeps the scores for the trace, the batched one the probabilities for the
// backward). So every step before the first attention is the same bits, and every later step agrees to float
// rounding, for a model with every option at once.

bool same_bits(const Mat& a, const Mat& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
}

// The tensor of the training pass's activations that holds trace step `name` (null when training keeps none).
const Mat* train_tensor(const Acts<float>& a, const ModelConfig& c, const std::string& name) {
  const bool pre = c.placement == NormPlacement::Pre;
  const bool rope = c.positions == PositionType::RoPE;
  if (name == "embed")
    return c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal ? nullptr : &a.xs[0];
  if (name == "pos_embed") return &a.xs[0];
  if (name == "final_norm") return &a.xf;
  if (name == "logits") return &a.logits;
  const size_t dot = name.find('.', 7);  // "layers.L.step"
  const int l = std::stoi(name.substr(7, dot - 7));
  const std::string step = name.substr(dot + 1);
  const LayerActs<float>& L = a.layers[static_cast<size_t>(l)];
  const Mat& out = a.xs[static_cast<size_t>(l + 1)];
  if (step == "attn_norm") return &L.ln1;  // pre: Norm(x); post: Norm(x + attn)
  if (step == "attn.q") return rope ? nullptr : &L.q;
  if (step == "attn.k") return rope ? nullptr : &L.k;
  if (step == "attn.q_rope") return &L.q;
  if (step == "attn.k_rope") return &L.k;
  if (step == "attn.v") return &L.v;
  if (step == "attn.probs") return &L.probs;  // B = 1: (H·T, T) in both
  if (step == "attn.out") return &L.att;
  if (step == "attn.proj") return &L.proj;
  if (step == "attn.residual") return &L.h;
  if (step == "mlp_norm") return pre ? &L.ln2 : &out;
  if (step == "mlp.router_probs") return &L.moe.probs;
  if (step == "mlp.gate") return &L.gate;
  if (step == "mlp.up") return &L.up;
  if (step == "mlp.hidden") return &L.hid;
  if (step == "mlp.down") return &L.down;
  if (step == "mlp.residual") return pre ? &out : &L.res2;
  return nullptr;  // scores, expert gates/load/drops: views of the above
}

TEST(ModelTrain, StepperTraceIsTheTrainingPassActivations) {
  // Every option at once: GQA, RoPE with Llama 3 scaling, q/k/v biases, QK-norm, soft-capping, interleaved
  // sliding window, MoE with capacity drops; then post-norm ALiBi MQA, and a parallel block with sinusoidal
  // positions, and learned positions.
  const ModelConfig all = small({.attention = AttentionPattern::Sliding,
                                 .window = 3,
                                 .full_every = 2,
                                 .qk_norm = true,
                                 .attn_softcap = 1.5f,
                                 .attn_bias = true,
                                 .rope_scaling = RopeScaling::Llama3,
                                 .rope_factor = 8.0f,
                                 .rope_original_context = 4,
                                 .experts = 3,
                                 .top_k = 2,
                                 .capacity_factor = 0.8});
  const ModelConfig configs[] = {
      all,
      small({.n_kv_heads = 1,
             .norm = NormType::LayerNorm,
             .placement = NormPlacement::Post,
             .positions = PositionType::ALiBi,
             .activation = ActivationKind::GELU}),
      small({.parallel_block = true, .positions = PositionType::Sinusoidal, .activation = ActivationKind::GeGLU}),
      small({.positions = PositionType::Learned, .activation = ActivationKind::ReLU, .tie_embeddings = true}),
  };
  for (const ModelConfig& c : configs) {
    ASSERT_TRUE(validate(c).empty()) << validate(c).front();
    const ModelWeights w = init_weights(c, 6);
    const Batch b = make_batch(c, 1, 9, 3);
    TrainState state;
    std::string error;
    ASSERT_TRUE(train_forward(state, w, c, b, nullptr, &error)) << error;
    Trace trace;
    Mat logits;
    ASSERT_TRUE(forward(logits, &trace, w, c, b.tokens, &error)) << error;
    bool before_attention = true;
    int compared = 0;
    for (const TraceStep& step : trace.steps()) {
      if (step.name == "layers.0.attn.scores") before_attention = false;
      const Mat* t = train_tensor(train_acts(state), c, step.name);
      if (!t) continue;
      ++compared;
      ASSERT_EQ(t->rows(), step.value.rows()) << step.name;
      ASSERT_EQ(t->cols(), step.value.cols()) << step.name;
      if (before_attention)
        EXPECT_TRUE(same_bits(*t, step.value)) << step.name;
      else
        EXPECT_LT(max_rel_diff(*t, step.value), 2e-5f) << step.name;
    }
    EXPECT_GE(compared, 2 + 2 * 12) << "steps compared";
    if (c.moe()) EXPECT_GT(train_moe_stats(state).layers[0].dropped + train_moe_stats(state).layers[1].dropped, 0);
  }
}

TEST(ModelTrainGrad, MoeGeluPostNormWithCapacityDrops) {
  ModelConfig c = moe_config();
  c.activation = ActivationKind::GELU;
  c.placement = NormPlacement::Post;
  c.experts = 3;
  c.capacity_factor = 0.8;
  // The check is only meaningful when the capacity drops something.
  ModelWeights w = init_weights(c, 7);
  TrainState st;
  double loss = 0;
  std::string error;
  ASSERT_TRUE(train_forward(st, w, c, make_batch(c, 2, 7, 99), &loss, &error)) << error;
  int dropped = 0;
  for (const MoeLayerStats& l : train_moe_stats(st).layers) dropped += l.dropped;
  EXPECT_GT(dropped, 0);
  expect_gradients(c);
}

TEST(ModelTrain, MoeStatsAndLossTerms) {
  const ModelConfig c = moe_config();
  const ModelWeights w = init_weights(c, 3);
  const Batch b = make_batch(c, 3, 8, 5);
  TrainState st;
  double loss = 0;
  std::string error;
  ASSERT_TRUE(train_forward(st, w, c, b, &loss, &error)) << error;
  const MoeStats s = train_moe_stats(st);
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(s.tokens, 24);
  EXPECT_EQ(s.top_k, 2);
  double mean_balance = 0;
  for (const MoeLayerStats& l : s.layers) {
    EXPECT_EQ(std::accumulate(l.load.begin(), l.load.end(), 0), s.tokens * s.top_k - l.dropped);
    EXPECT_EQ(std::accumulate(l.wanted.begin(), l.wanted.end(), 0), s.tokens * s.top_k);
    EXPECT_GE(l.balance, 1.0);  // E Σ f P̄ ≥ ... with Σ f = k it is at least about 1 (k/E·E·Σ P̄ when balanced)
    mean_balance += l.balance / 2;
  }
  EXPECT_DOUBLE_EQ(s.balance, mean_balance);
  // The loss is the cross-entropy plus coef · balance: with coef 0 it drops by exactly that term.
  ModelConfig c0 = c;
  c0.aux_loss_coef = 0;
  double ce = 0;
  TrainState st0;
  ASSERT_TRUE(train_forward(st0, w, c0, b, &ce, &error)) << error;
  EXPECT_NEAR(loss - ce, c.aux_loss_coef * s.balance, 1e-6 * loss);
  // A dense model reports no MoE stats.
  TrainState dense;
  ASSERT_TRUE(train_forward(dense, init_weights(small(), 3), small(), b, &loss, &error)) << error;
  EXPECT_TRUE(train_moe_stats(dense).layers.empty());
}

TEST(ModelTrain, MoeCheckpointRoundTripAndExpertCountRefusal) {
  const ModelConfig c = moe_config();
  const ModelWeights w = init_weights(c, 4);
  EXPECT_EQ(parameter_count(w), parameter_count(c));
  const SafeTensors file = to_safetensors(w, c);
  EXPECT_NE(file.find("model.layers.1.block_sparse_moe.gate.weight"), nullptr);
  EXPECT_NE(file.find("model.layers.0.block_sparse_moe.experts.3.w2.weight"), nullptr);
  EXPECT_EQ(file.find("model.layers.0.mlp.up_proj.weight"), nullptr);
  ModelWeights back;
  std::string error;
  ASSERT_TRUE(from_safetensors(file, c, &back, &error)) << error;
  EXPECT_TRUE(back.layers[1].experts[2].up == w.layers[1].experts[2].up);
  EXPECT_TRUE(back.layers[0].router == w.layers[0].router);
  ModelConfig other = c;
  other.experts = 8;
  EXPECT_FALSE(from_safetensors(file, other, &back, &error));
  EXPECT_EQ(error, "checkpoint has 4 experts per layer but this config has 8 experts (experts = 8)");
  EXPECT_FALSE(from_safetensors(file, small(), &back, &error));
  EXPECT_EQ(error, "checkpoint has 4 experts per layer but this config has a dense MLP (experts = 0)");
  // Active parameters: the router and k of the E experts of each block.
  const int64_t expert = 3 * int64_t(c.dim) * c.hidden;
  EXPECT_EQ(parameter_count(c) - active_parameter_count(c), 2 * expert * c.n_layers);
  // The stepper's inference pass runs the reloaded model (MoeLogitsMatchInferenceForward checks its numbers).
  Mat logits;
  EXPECT_TRUE(forward(logits, nullptr, back, c, {1, 2, 3}, &error)) << error;
  EXPECT_EQ(logits.rows(), 3);
}

}  // namespace
}  // namespace tw
