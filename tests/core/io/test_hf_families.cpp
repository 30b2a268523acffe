// GPT-2, Qwen3, Gemma 3 and Phi-3 configs and checkpoints (core/model/hf_layout.h, the family keys of
// core/model/config.cpp). Their logits against PyTorch are checked by tests/app/families_test.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/io/safetensors.h"
#include "core/model/forward.h"
#include "core/model/hf_layout.h"
#include "core/model/hf_model.h"
#include "core/train/model_train.h"
#include "tests/scratch_dir.h"

namespace tw {
namespace {

ModelConfig parse(const std::string& json_text) {
  ModelConfig c;
  std::string error;
  EXPECT_TRUE(config_from_json(json_text, &c, &error)) << error;
  return c;
}

std::string refusal(const std::string& json_text) {
  ModelConfig c;
  std::string error;
  EXPECT_FALSE(config_from_json(json_text, &c, &error));
  return error;
}

TEST(HfFamilies, UnknownArchitectureIsRefusedListingTheSupportedOnes) {
  for (const char* text : {R"({"architectures": ["BertForMaskedLM"], "hidden_size": 32})",
                           R"({"model_type": "falcon", "hidden_size": 32})"}) {
    const std::string e = refusal(text);
    EXPECT_NE(e.find("is not supported (supported: "), std::string::npos) << e;
    for (const char* a :
         {"LlamaForCausalLM", "GPT2LMHeadModel", "Qwen3ForCausalLM", "Gemma3ForCausalLM", "Phi3ForCausalLM"})
      EXPECT_NE(e.find(a), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
  }
  // A folder's config.json goes through the same gate.
  ModelConfig c;
  std::string arch, error;
  EXPECT_FALSE(hf_config_from_json(R"({"architectures": ["Gemma2ForCausalLM"]})", {}, &c, &arch, &error));
  EXPECT_NE(error.find("'Gemma2ForCausalLM' is not supported (supported: "), std::string::npos) << error;
}

TEST(HfFamilies, Gpt2KeysBecomeTheGpt2Block) {
  const ModelConfig c = parse(R"({"architectures": ["GPT2LMHeadModel"], "n_embd": 48, "n_layer": 3, "n_head": 4,
                                  "n_positions": 64, "vocab_size": 100, "layer_norm_epsilon": 1e-5})");
  EXPECT_EQ(c.family, Family::GPT2);
  EXPECT_EQ(c.dim, 48);
  EXPECT_EQ(c.n_layers, 3);
  EXPECT_EQ(c.n_heads, 4);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.hidden, 4 * 48);  // n_inner absent: 4 · n_embd
  EXPECT_EQ(c.max_seq, 64);
  EXPECT_EQ(c.norm, NormType::LayerNorm);
  EXPECT_EQ(c.positions, PositionType::Learned);
  EXPECT_EQ(c.activation, ActivationKind::GELU);
  EXPECT_TRUE(c.gelu_tanh);  // activation_function defaults to gelu_new
  EXPECT_TRUE(c.attn_bias && c.linear_bias && c.tie_embeddings);
  EXPECT_NE(refusal(R"({"architectures": ["GPT2LMHeadModel"], "scale_attn_by_inverse_layer_idx": true})")
                .find("scale_attn_by_inverse_layer_idx"),
            std::string::npos);
}

TEST(HfFamilies, GemmaLayerPatternScaleAndEmbeddingScale) {
  const std::string base = R"("architectures": ["Gemma3ForCausalLM"], "hidden_size": 640, "num_hidden_layers": 6,
      "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 2048,
      "vocab_size": 100, "max_position_embeddings": 128, "query_pre_attn_scalar": 256, "sliding_window": 16)";
  // sliding_window_pattern P: layer l is full when (l + 1) % P == 0 (Gemma3TextConfig).
  const ModelConfig p = parse("{" + base + R"(, "sliding_window_pattern": 3, "torch_dtype": "bfloat16"})");
  EXPECT_EQ(p.head_dim(), 256);
  for (int l = 0; l < 6; ++l) EXPECT_EQ(p.layer_is_sliding(l), (l + 1) % 3 != 0) << l;
  EXPECT_FLOAT_EQ(p.query_scale, 1.0f / 16.0f);
  // √640 = 25.298…; bfloat16 keeps 8 significant bits: 25.25.
  EXPECT_EQ(p.embed_scale, 25.25f);
  EXPECT_FLOAT_EQ(p.rope_local_base, 10000.0f);
  EXPECT_TRUE(p.norm_plus_one && p.sandwich_norm && p.qk_norm && p.qk_norm_before_rope && p.gelu_tanh);
  // layer_types wins, whatever its pattern.
  const ModelConfig t = parse("{" + base + R"(, "layer_types": ["full_attention", "sliding_attention",
      "sliding_attention", "full_attention", "full_attention", "sliding_attention"]})");
  const bool want[] = {false, true, true, false, false, true};
  for (int l = 0; l < 6; ++l) EXPECT_EQ(t.layer_is_sliding(l), want[l]) << l;
  EXPECT_FLOAT_EQ(t.embed_scale, std::sqrt(640.0f));  // float32 checkpoint: √C itself
}

TEST(HfFamilies, Phi3LongropeIsRefusedInOneLine) {
  const std::string e = refusal(R"({"architectures": ["Phi3ForCausalLM"], "hidden_size": 32,
      "num_attention_heads": 4, "rope_scaling": {"type": "longrope", "short_factor": [1], "long_factor": [1]}})");
  EXPECT_NE(e.find("longrope"), std::string::npos) << e;
  EXPECT_NE(e.find("Phi3ForCausalLM"), std::string::npos) << e;
  const ModelConfig c = parse(R"({"architectures": ["Phi3ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4,
      "partial_rotary_factor": 0.5})");
  EXPECT_EQ(c.head_dim(), 16);
  EXPECT_EQ(c.rotary_dim(), 8);
}

ModelConfig tiny_family(Family f) {
  ModelConfig c{.dim = 32, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2, .vocab = 50, .hidden = 48, .max_seq = 24};
  c.family = f;
  if (f == Family::GPT2) {
    c.n_kv_heads = 4;
    c.norm = NormType::LayerNorm;
    c.positions = PositionType::Learned;
    c.activation = ActivationKind::GELU;
    c.gelu_tanh = c.attn_bias = c.linear_bias = c.tie_embeddings = true;
  }
  if (f == Family::Phi3) c.rotary_fraction = 0.5f;
  if (f == Family::Gemma3) {
    c.head_dim_override = 12;
    c.activation = ActivationKind::GeGLU;
    c.gelu_tanh = c.norm_plus_one = c.sandwich_norm = c.qk_norm = c.qk_norm_before_rope = true;
    c.attention = AttentionPattern::Sliding;
    c.window = 3;
    c.full_every = 2;
    c.rope_local_base = 10000.0f;
    c.rope_base = 1e6f;
    c.query_scale = 0.2f;
    c.embed_scale = std::sqrt(32.0f);
    c.final_softcap = 5.0f;
    c.tie_embeddings = true;
  }
  return c;
}

// Saving writes the family's own layout (GPT-2: transformer.* Conv1D tensors, q|k|v fused in c_attn; Phi-3:
// qkv_proj and gate_up_proj) and loading reads it back to the same weights and logits.
TEST(HfFamilies, CheckpointsRoundTripInTheFamilyLayout) {
  for (Family f : {Family::GPT2, Family::Phi3, Family::Gemma3}) {
    SCOPED_TRACE(to_string(f));
    const ModelConfig c = tiny_family(f);
    ASSERT_TRUE(validate(c).empty()) << validate(c).front();
    const ModelWeights w = init_weights(c, 7);
    testing::ScratchDir dir("tw-families");
    std::vector<std::string> files;
    std::string error;
    ASSERT_TRUE(save_hf_checkpoint(dir.path(), w, c, {}, &files, &error)) << error;
    SafeTensorsFile file;
    ASSERT_TRUE(file.open(dir / "model.safetensors", &error)) << error;
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const TensorEntry& e : file.header().entries) shapes[e.name] = e.shape;
    if (f == Family::GPT2) {
      EXPECT_EQ(shapes["transformer.h.1.attn.c_attn.weight"], (std::vector<int64_t>{32, 96}));  // (in, out)
      EXPECT_EQ(shapes["transformer.h.1.mlp.c_fc.weight"], (std::vector<int64_t>{32, 48}));
      EXPECT_EQ(shapes["transformer.h.1.mlp.c_proj.weight"], (std::vector<int64_t>{48, 32}));
      EXPECT_EQ(shapes.count("model.layers.0.self_attn.q_proj.weight"), 0u);
      // k is the middle C columns of c_attn, transposed: c_attn[i][C + r] = W_k[r][i].
      std::vector<float> cattn(32 * 96);
      for (const TensorEntry& e : file.header().entries)
        if (e.name == "transformer.h.0.attn.c_attn.weight") ASSERT_TRUE(file.read(e, cattn.data(), &error));
      EXPECT_EQ(cattn[5 * 96 + 32 + 7], w.layers[0].wk(7, 5));
    }
    if (f == Family::Phi3) {
      EXPECT_EQ(shapes["model.layers.0.self_attn.qkv_proj.weight"], (std::vector<int64_t>{32 + 2 * 16, 32}));
      EXPECT_EQ(shapes["model.layers.0.mlp.gate_up_proj.weight"], (std::vector<int64_t>{96, 32}));
    }
    if (f == Family::Gemma3) {
      EXPECT_EQ(shapes["model.layers.0.pre_feedforward_layernorm.weight"], (std::vector<int64_t>{32}));
      EXPECT_EQ(shapes["model.layers.0.post_feedforward_layernorm.weight"], (std::vector<int64_t>{32}));
    }
    HfModel m;
    ASSERT_TRUE(load_hf_model(dir.path(), {}, &m, &error)) << error;
    EXPECT_EQ(m.config.family, f);
    EXPECT_EQ(m.architecture, hf_architecture(f));
    const std::vector<int> tokens = {1, 7, 3, 9, 4, 11, 2};
    Mat a, b;
    ASSERT_TRUE(forward(a, nullptr, w, c, tokens, &error)) << error;
    ASSERT_TRUE(forward(b, nullptr, m.weights, m.config, tokens, &error)) << error;
    EXPECT_EQ(a, b);
  }
}

// Gemma's (1 + w) RMSNorm at w = 0 is the plain RMSNorm at γ = 1: the same model without the offset gives the same
// logits, and a w that is not zero does not.
TEST(HfFamilies, GemmaNormScalesByOnePlusWeight) {
  ModelConfig gemma = tiny_family(Family::Gemma3);
  ModelWeights w = init_weights(gemma, 3);  // norms start at w = 0
  ModelConfig plain = gemma;
  plain.norm_plus_one = false;
  ModelWeights ones = w;
  for (LayerWeights& l : ones.layers)
    for (Vec* v : {&l.attn_norm.weight, &l.mlp_norm.weight, &l.post_attn_norm.weight, &l.post_mlp_norm.weight,
                   &l.q_norm, &l.k_norm})
      v->setOnes();
  ones.final_norm.weight.setOnes();
  const std::vector<int> tokens = {1, 2, 3, 4, 5, 6};
  Mat a, b;
  std::string error;
  ASSERT_TRUE(forward(a, nullptr, w, gemma, tokens, &error)) << error;
  ASSERT_TRUE(forward(b, nullptr, ones, plain, tokens, &error)) << error;
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-5f * a.cwiseAbs().maxCoeff());
  ASSERT_TRUE(forward(b, nullptr, ones, gemma, tokens, &error)) << error;  // (1 + 1) = 2: other logits
  EXPECT_GT((a - b).cwiseAbs().maxCoeff(), 1e-3f);
}

// Partial rotary (Phi-3): the dims of each head past R = rotary_dim() leave RoPE unchanged, the first R turn.
TEST(HfFamilies, PartialRotaryTurnsOnlyTheFirstDims) {
  const ModelConfig c = tiny_family(Family::Phi3);
  const ModelWeights w = init_weights(c, 5);
  Trace trace;
  Mat logits;
  std::string error;
  ASSERT_TRUE(forward(logits, &trace, w, c, {3, 1, 4, 1, 5}, &error)) << error;
  const Mat& q = trace.find("layers.0.attn.q")->value;
  const Mat& qr = trace.find("layers.0.attn.q_rope")->value;
  const int D = c.head_dim(), R = c.rotary_dim();
  ASSERT_EQ(R, D / 2);
  for (int h = 0; h < c.n_heads; ++h)
    for (int i = 0; i < D; ++i) {
      const bool same = (q.col(h * D + i) - qr.col(h * D + i)).cwiseAbs().maxCoeff() == 0.0f;
      EXPECT_EQ(same, i >= R) << "head " << h << " dim " << i;  // position 0 turns by 0: rows 1.. differ
    }
}

// Every family trains (the backward of each: tests/core/train/test_model_train.cpp); what has none is refused in
// one line naming the family's class and the detail.
TEST(HfFamilies, TrainingRefusesWhatHasNoBackwardInOneLine) {
  for (Family f : {Family::GPT2, Family::Qwen3, Family::Gemma3, Family::Phi3})
    EXPECT_EQ(training_unsupported(tiny_family(f)), "") << to_string(f);
  ModelConfig c = tiny_family(Family::Gemma3);
  c.parallel_block = true;  // sandwich norms in a parallel block: no family has it, and no backward here
  const ModelWeights w = init_weights(c, 1);
  Batch batch{1, 4, {1, 2, 3, 4}, {2, 3, 4, -1}};
  TrainState state;
  ModelWeights grads;
  double loss = 0;
  std::string error;
  EXPECT_FALSE(train_forward_backward(&grads, state, w, c, batch, &loss, &error));
  EXPECT_NE(error.find("Gemma3ForCausalLM"), std::string::npos) << error;
  EXPECT_NE(error.find("sandwich"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(training_unsupported(tiny_config()), "");
}

}  // namespace
}  // namespace tw
