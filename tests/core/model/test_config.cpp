#include "core/model/config.h"

#include <gtest/gtest.h>

#include "core/model/weights.h"
#include "test_util.h"

namespace tw {
namespace {

// The single message validate() gives for a config, or a failure when there is not exactly one.
std::string only_error(const ModelConfig& c) {
  const std::vector<std::string> errors = validate(c);
  EXPECT_EQ(errors.size(), 1u) << (errors.empty() ? "no error" : errors.front());
  return errors.empty() ? "" : errors.front();
}

TEST(Config, PresetsAreValid) {
  EXPECT_TRUE(validate(tiny_config()).empty());
  EXPECT_TRUE(validate(small_config()).empty());
  const ModelConfig s = small_config();
  EXPECT_EQ(s.head_dim(), 32);
  EXPECT_EQ(s.n_rep(), 2);
  const ModelConfig t = tiny_config();
  EXPECT_EQ(t.dim, 64);
  EXPECT_EQ(t.n_layers, 2);
  EXPECT_EQ(t.n_heads, 4);
  EXPECT_EQ(t.n_kv_heads, 2);
  EXPECT_EQ(t.vocab, 259);
}

TEST(Config, NonPositiveSizesAreNamed) {
  const struct {
    int ModelConfig::*field;
    int value;
    const char* message;
  } cases[] = {
      {&ModelConfig::n_layers, 0, "n_layers must be at least 1 (got 0)"},
      {&ModelConfig::vocab, 0, "vocab must be at least 1 (got 0)"},
      {&ModelConfig::hidden, 0, "hidden must be at least 1 (got 0)"},
      {&ModelConfig::max_seq, 0, "max_seq must be at least 1 (got 0)"},
      {&ModelConfig::dim, -4, "dim must be at least 1 (got -4)"},
      {&ModelConfig::n_heads, 0, "n_heads must be at least 1 (got 0)"},
      {&ModelConfig::n_kv_heads, 0, "n_kv_heads must be at least 1 (got 0)"},
  };
  for (const auto& tc : cases) {
    ModelConfig c = tiny_config();
    c.*tc.field = tc.value;
    EXPECT_EQ(only_error(c), tc.message);
  }
}

TEST(Config, HeadDivisibility) {
  ModelConfig c = tiny_config();
  c.dim = 66;  // 66 / 4 heads is not whole
  EXPECT_EQ(only_error(c), "dim (66) must be divisible by n_heads (4) so every head gets the same head_dim");
  c = tiny_config();
  c.n_heads = 8;
  c.n_kv_heads = 3;
  EXPECT_EQ(only_error(c),
            "n_heads (8) must be divisible by n_kv_heads (3) so each KV head serves the same number "
            "of query heads");
  c = tiny_config();
  c.n_kv_heads = 8;
  EXPECT_EQ(only_error(c), "n_kv_heads (8) cannot exceed n_heads (4)");
}

TEST(Config, RopeNeedsEvenHeadDim) {
  ModelConfig c = tiny_config();
  c.dim = 60;
  c.n_heads = 4;  // head_dim 15
  c.n_kv_heads = 4;
  EXPECT_EQ(only_error(c), "RoPE rotates pairs of dimensions, so head_dim must be even (got 15 = dim 60 / n_heads 4)");
  c.positions = PositionType::ALiBi;  // the same shape is fine without RoPE
  EXPECT_TRUE(validate(c).empty());
  c = tiny_config();
  c.rope_base = 1.0f;
  EXPECT_EQ(only_error(c), "rope_base must be a finite number greater than 1 (got 1.000000)");
}

TEST(Config, SinusoidalNeedsEvenDim) {
  ModelConfig c = tiny_config();
  c.positions = PositionType::Sinusoidal;
  c.dim = 63;
  c.n_heads = 3;
  c.n_kv_heads = 3;
  EXPECT_EQ(only_error(c), "sinusoidal positions pair a sine with a cosine, so dim must be even (got 63)");
}

TEST(Config, SlidingWindowAndInterleave) {
  ModelConfig c = tiny_config();
  c.attention = AttentionPattern::Sliding;
  EXPECT_EQ(only_error(c), "sliding attention needs window >= 1 (got 0)");
  c.window = 8;
  c.full_every = -1;
  EXPECT_EQ(only_error(c), "full_every must be 0 (no full layers) or a period >= 1 (got -1)");
  c = tiny_config();
  c.full_every = 2;  // interleaving needs sliding layers to interleave with
  EXPECT_EQ(only_error(c),
            "full_every interleaves full layers into sliding attention; set attention to sliding or "
            "full_every to 0");
}

TEST(Config, LayerPattern) {
  ModelConfig c = tiny_config();
  c.n_layers = 6;
  EXPECT_FALSE(c.layer_is_sliding(0));
  c.attention = AttentionPattern::Sliding;
  c.window = 4;
  for (int l = 0; l < 6; ++l) EXPECT_TRUE(c.layer_is_sliding(l));
  c.full_every = 3;  // layers 2 and 5 are full (Gemma-style: local, local, global)
  const bool expected[] = {true, true, false, true, true, false};
  for (int l = 0; l < 6; ++l) EXPECT_EQ(c.layer_is_sliding(l), expected[l]) << "layer " << l;
}

TEST(Config, EpsAndMemoryCap) {
  ModelConfig c = tiny_config();
  c.eps = 0.0f;
  EXPECT_EQ(only_error(c), "eps must be a small positive number (got 0.000000)");
  c = tiny_config();
  c.memory_cap_mb = 0;
  EXPECT_EQ(only_error(c), "memory_cap_mb must be positive (got 0.000000)");
  c = small_config();
  c.dim = 8192;
  c.n_heads = 64;
  c.n_kv_heads = 8;
  c.hidden = 28672;
  c.n_layers = 80;  // a 70B-class model: far above the default 2 GiB
  const std::string e = only_error(c);
  EXPECT_NE(e.find("this model needs about "), std::string::npos) << e;
  EXPECT_NE(e.find("above the cap of 2048 MiB"), std::string::npos) << e;
}

TEST(Config, MemoryEstimateOfSmall) {
  // Small: 7,342,336 parameters (see test_weights.cpp); traced activations at T = 256 (C = 256, H·D = 256,
  // KV·D = 128, F = 768, V = 8192), counted from forward.cpp:
  //   per layer   6·T·C + 3·T·HD + 3·T·KVD + 2·H·T² + 3·T·F + 2·T·KVD (cache)
  //             = 393216 + 196608 + 98304 + 1048576 + 589824 + 65536 = 2392064, × 4 layers = 9568256
  //   working     5·T·C + 2·T·HD + 2·T·KVD + 2·H·T² + 3·T·F + T²
  //             = 327680 + 131072 + 65536 + 1048576 + 589824 + 65536 = 2228224
  //   around      3·T·C + 2·T·V = 196608 + 4194304
  //   shown       the largest step, T·V = 2097152, and one layer's steps (2392064 − 65536 of cache), in double:
  //               2 · 2097152 + 2 · 2326528 = 8847360
  // activations 25034752 > parameters, so floats = 7342336 + 25034752 = 32377088, × 4 bytes, + the process base.
  EXPECT_DOUBLE_EQ(estimated_memory_bytes(small_config()), 4.0 * 32377088.0 + kProcessBaseBytes);
}

TEST(Config, MemoryEstimateCountsLayerNormPositionsAndTying) {
  // 99,008 parameters (LayerNorm γ/β, learned positions, ReLU, post-norm, tied; see test_weights.cpp) plus
  // activations at T = 128, C = 64, H = 4, KV = 2, D = 16, F = 192, V = 259:
  //   per layer 49152 + 24576 + 12288 + 131072 + 73728 + 8192 = 299008, × 2 layers = 598016
  //   working 40960 + 16384 + 8192 + 131072 + 73728 + 16384 = 286720; around 24576 + 66304;
  //   shown 2 · H·T² (131072) + 2 · (299008 − 8192) = 712704.
  const ModelConfig c = testing::layernorm_learned_tied_config();
  EXPECT_DOUBLE_EQ(estimated_memory_bytes(c),
                   4.0 * (99008 + 598016 + 286720 + 24576 + 66304 + 712704) + kProcessBaseBytes);
}

TEST(Config, MemoryEstimateCountsMixtureOfExpertsActivations) {
  // The tiny config with E = 4 experts, k = 2 (SwiGLU, RMSNorm, RoPE, untied): T = 128, C = 64, H = 4, KV = 2,
  // D = 16, F = 192, V = 259. Parameters: embeddings and head 2 · 259 · 64 = 33152, final norm 64, per block
  // norms 128 + q 4096 + k, v 4096 + o 4096 + experts 4 · 3 · 64 · 192 = 147456 + router 4 · 64 = 256 = 160128,
  // × 2 blocks: 353472. Activations (core/ops/moe_ffn.h; T·k = 256 assignments at most):
  //   per layer 6·T·C + 3·T·HD + 3·T·KVD + 2·H·T² + routing steps 2·T·E + 2·E + cache 2·T·KVD
  //           = 49152 + 24576 + 12288 + 131072 + 1032 + 8192 = 226312, × 2 = 452624
  //   working   5·T·C + 2·T·HD + 2·T·KVD + 2·H·T² + T² = 40960 + 16384 + 8192 + 131072 + 16384, plus the MoE's
  //             probs T·E 512, choice/dropped/gates/slots 4·T·k 1024, gate sums T 128, wanted/load 2·E 8,
  //             expert rows in and out 2·T·k·C 32768, gate/up/hidden 3·T·k·F 147456, recorded gates T·E 512 and
  //             load/drops 2·E 8 = 182416; working = 395408
  //   around    3·T·C + 2·T·V = 24576 + 66304
  //   shown     2 · H·T² (131072, larger than T·V and T·E) + 2 · (226312 − 8192) = 567312
  // activations 1506224 > parameters: floats = 353472 + 1506224 = 1859696.
  ModelConfig c = tiny_config();
  c.experts = 4;
  c.top_k = 2;
  EXPECT_EQ(parameter_count(c), 353472);
  EXPECT_DOUBLE_EQ(estimated_memory_bytes(c), 4.0 * 1859696.0 + kProcessBaseBytes);
}

TEST(Config, MemoryEstimateCountsTheWeightsTwiceWhenTheyDominate) {
  // Loading a checkpoint holds the parsed file and the model's matrices at once: with tiny activations (T = 1)
  // the estimate is twice the weights.
  ModelConfig c = small_config();
  c.max_seq = 1;
  const double params = 7342336;  // Small (test_weights.cpp); RoPE, so max_seq does not change it
  EXPECT_DOUBLE_EQ(estimated_memory_bytes(c), 4.0 * 2 * params + kProcessBaseBytes);
}

TEST(Config, HugeSizesGiveAMessageNotAnOverflow) {
  ModelConfig c = tiny_config();
  c.dim = c.vocab = c.hidden = c.max_seq = c.n_layers = 1 << 30;
  c.n_heads = c.n_kv_heads = 1 << 10;
  const std::string e = only_error(c);
  EXPECT_EQ(e.rfind("this model needs about ", 0), 0u) << e;
}

TEST(Config, SeveralProblemsAreAllReported) {
  ModelConfig c = tiny_config();
  c.vocab = 0;
  c.hidden = -1;
  c.eps = -1.0f;
  EXPECT_EQ(validate(c).size(), 3u);
}

// Each problem carries the field to change, so an editor needs no text search; validate() is its messages.
TEST(Config, ProblemsNameTheirField) {
  ModelConfig c = tiny_config();  // dim 64, 4 heads
  c.vocab = 0;
  c.n_kv_heads = 3;
  c.eps = -1.0f;
  c.attn_softcap = -2.0f;
  const std::vector<ConfigProblem> problems = validate_fields(c);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0], (ConfigProblem{"vocab", "vocab must be at least 1 (got 0)"}));
  EXPECT_EQ(problems[1], (ConfigProblem{"n_kv_heads",
                                        "n_heads (4) must be divisible by n_kv_heads (3) so each KV head serves the "
                                        "same number of query heads"}));
  EXPECT_EQ(problems[2].field, "attn_softcap");
  EXPECT_EQ(problems[3].field, "eps");
  const std::vector<std::string> messages = validate(c);
  ASSERT_EQ(messages.size(), problems.size());
  for (size_t i = 0; i < messages.size(); ++i) EXPECT_EQ(messages[i], problems[i].message);

  ModelConfig odd = tiny_config();
  odd.dim = 12;  // 4 heads of 3: RoPE needs pairs
  ASSERT_EQ(validate_fields(odd).size(), 1u);
  EXPECT_EQ(validate_fields(odd)[0].field, "dim");
  odd = tiny_config();
  odd.memory_cap_mb = 0.001;
  ASSERT_EQ(validate_fields(odd).size(), 1u);
  EXPECT_EQ(validate_fields(odd)[0].field, "memory_cap_mb");
  EXPECT_TRUE(validate_fields(tiny_config()).empty());
}

TEST(Config, JsonRoundTrip) {
  ModelConfig c = small_config();
  c.norm = NormType::LayerNorm;
  c.placement = NormPlacement::Post;
  c.positions = PositionType::ALiBi;
  c.activation = ActivationKind::GeGLU;
  c.attention = AttentionPattern::Sliding;
  c.window = 16;
  c.full_every = 2;
  c.tie_embeddings = true;
  c.eps = 1e-6f;
  c.rope_base = 500000.0f;
  ModelConfig back;
  std::string error;
  ASSERT_TRUE(config_from_json(config_to_json(c), &back, &error)) << error;
  EXPECT_EQ(config_to_json(back), config_to_json(c));
  EXPECT_EQ(back.window, 16);
  EXPECT_EQ(back.full_every, 2);
  EXPECT_EQ(back.norm, NormType::LayerNorm);
  EXPECT_EQ(back.eps, 1e-6f);
}

TEST(Config, AttentionStabilityChoicesRoundTripAndAreChecked) {
  ModelConfig c = tiny_config();
  c.attn_scale = ScaleMode::None;
  c.qk_norm = true;
  c.attn_softcap = 30.0f;
  ModelConfig back;
  std::string error;
  ASSERT_TRUE(config_from_json(config_to_json(c), &back, &error)) << error;
  EXPECT_EQ(back.attn_scale, ScaleMode::None);
  EXPECT_TRUE(back.qk_norm);
  EXPECT_EQ(back.attn_softcap, 30.0f);
  EXPECT_TRUE(config_from_json(config_to_json(tiny_config()), &back, &error)) << error;
  EXPECT_EQ(back.attn_softcap, 0.0f);  // written as null, read back as off
  c.attn_scale = ScaleMode::Custom;
  c.attn_softcap = -1.0f;
  EXPECT_EQ(validate(c).size(), 2u);
  EXPECT_FALSE(config_from_json(R"({"tw_attn_scale": "sqrt"})", &back, &error));
  EXPECT_NE(error.find("tw_attn_scale"), std::string::npos);
}

TEST(Config, ParallelBlockRoundTripsAndNeedsPreNorm) {
  ModelConfig c = tiny_config();
  c.parallel_block = true;
  const std::string text = config_to_json(c);
  EXPECT_NE(text.find("\"use_parallel_residual\": true"), std::string::npos) << text;
  EXPECT_EQ(config_to_json(tiny_config()).find("use_parallel_residual"), std::string::npos);  // serial: unchanged
  ModelConfig back;
  std::string error;
  ASSERT_TRUE(config_from_json(text, &back, &error)) << error;
  EXPECT_TRUE(back.parallel_block);
  c.placement = NormPlacement::Post;
  const std::vector<ConfigProblem> problems = validate_fields(c);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "parallel_block");
  EXPECT_FALSE(config_from_json(R"({"use_parallel_residual": true, "tw_norm_placement": "post"})", &back, &error));
  EXPECT_EQ(error,
            "config.json: a parallel block adds both branches to the block input, so it needs pre-norm "
            "(tw_norm_placement = post)");
  EXPECT_TRUE(back.parallel_block);  // untouched by the refused file
}

TEST(Config, JsonUsesHuggingFaceKeys) {
  const std::string text = config_to_json(small_config());
  for (const char* key : {"\"hidden_size\": 256", "\"intermediate_size\": 768", "\"num_hidden_layers\": 4",
                          "\"num_attention_heads\": 8", "\"num_key_value_heads\": 4", "\"vocab_size\": 8192",
                          "\"max_position_embeddings\": 256", "\"rms_norm_eps\"", "\"rope_theta\": 10000.0",
                          "\"tie_word_embeddings\": false", "\"hidden_act\": \"silu\"", "\"model_type\": \"llama\""})
    EXPECT_NE(text.find(key), std::string::npos) << key << " missing from\n" << text;
}

TEST(Config, PlainLlamaConfigLoads) {
  // A Hugging Face LlamaConfig without tw_* keys and without num_key_value_heads (HF then uses MHA).
  const std::string text = R"({"hidden_size": 128, "intermediate_size": 344, "num_hidden_layers": 3,
    "num_attention_heads": 4, "vocab_size": 300, "max_position_embeddings": 64, "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": true})";
  ModelConfig c;
  std::string error;
  ASSERT_TRUE(config_from_json(text, &c, &error)) << error;
  EXPECT_EQ(c.dim, 128);
  EXPECT_EQ(c.n_kv_heads, 4);
  EXPECT_EQ(c.activation, ActivationKind::SwiGLU);
  EXPECT_EQ(c.positions, PositionType::RoPE);
  EXPECT_TRUE(c.tie_embeddings);
}

TEST(Config, JsonErrorsAreOneLine) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"{not json",
       "config.json: not valid JSON: parse error at line 1, column 3: syntax error while parsing object key - invalid "
       "literal; last read: '{no'; expected string literal"},
      {"[1, 2]", "config.json: expected a JSON object at the top level"},
      {R"({"hidden_size": "big"})", "config.json: 'hidden_size' must be an integer"},
      {R"({"hidden_size": 1e40})", "config.json: 'hidden_size' must be an integer"},
      {R"({"hidden_size": 99999999999})", "config.json: 'hidden_size' is out of range"},
      {R"({"rms_norm_eps": "tiny"})", "config.json: 'rms_norm_eps' must be a number"},
      {R"({"tie_word_embeddings": 1})", "config.json: 'tie_word_embeddings' must be true or false"},
      {R"({"tw_norm": "batchnorm"})", "config.json: 'tw_norm' is 'batchnorm', expected one of: rmsnorm, layernorm"},
      {R"({"tw_positions": 3})",
       "config.json: 'tw_positions' must be a string, one of: none, learned, sinusoidal, rope, alibi"},
      {R"({"hidden_act": "gelu_pytorch_tanh"})",
       "config.json: hidden_act 'gelu_pytorch_tanh' is not supported (silu or gelu, or set tw_activation)"},
      {R"({"hidden_size": 64, "num_attention_heads": 4, "head_dim": 32})",
       "config.json: head_dim 32 differs from hidden_size / num_attention_heads (16); only head_dim = hidden_size / "
       "num_attention_heads is supported"},
      // validate()'s messages name the Hugging Face keys the user wrote, not the ModelConfig fields.
      {R"({"num_key_value_heads": 3})",
       "config.json: num_attention_heads (4) must be divisible by num_key_value_heads (3) so each KV head serves the "
       "same number of query heads"},
      {R"({"hidden_size": 0})", "config.json: hidden_size must be at least 1 (got 0)"},
      {R"({"intermediate_size": -2})", "config.json: intermediate_size must be at least 1 (got -2)"},
      {R"({"hidden_size": 96, "num_attention_heads": 32})",
       "config.json: RoPE rotates pairs of dimensions, so head_dim must be even (got 3 = hidden_size 96 / "
       "num_attention_heads 32)"},

  };
  // Nesting deep enough to overflow the stack in a recursive copy or dump is refused while parsing.
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  {
    ModelConfig c = small_config();
    std::string error;
    EXPECT_FALSE(config_from_json(deep, &c, &error));
    EXPECT_EQ(error, "config.json: nests deeper than 64 levels");
  }
  for (const auto& tc : cases) {
    ModelConfig c = small_config();
    std::string error;
    EXPECT_FALSE(config_from_json(tc.text, &c, &error)) << tc.text;
    EXPECT_EQ(error, tc.message) << tc.text;
    EXPECT_EQ(c.dim, 256) << "a failed parse must not touch the output";
  }
}

TEST(Config, JsonMemoryCapMessageNamesTheJsonKeys) {
  ModelConfig c;
  std::string error;
  EXPECT_FALSE(config_from_json(R"({"hidden_size": 4096, "vocab_size": 32000, "tw_memory_cap_mb": 64})", &c, &error));
  EXPECT_NE(error.find("at max_position_embeddings 128), above the cap of 64 MiB"), std::string::npos) << error;
  // The cap itself round-trips through config.json.
  ModelConfig capped = tiny_config(), back;
  capped.memory_cap_mb = 300;
  ASSERT_TRUE(config_from_json(config_to_json(capped), &back, &error)) << error;
  EXPECT_EQ(back.memory_cap_mb, 300);
}

TEST(Config, LoadMissingFile) {
  ModelConfig c;
  std::string error;
  EXPECT_FALSE(load_config("/nonexistent/config.json", &c, &error));
  EXPECT_EQ(error, "/nonexistent/config.json: cannot open (No such file or directory)");
}

}  // namespace
}  // namespace tw
