#include "core/model/weights.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "test_util.h"

namespace tw {
namespace {

TEST(Weights, SmallParameterCountWrittenOut) {
  // Small: C = 256, L = 4, H = 8, KV = 4, D = 32, V = 8192, F = 768, SwiGLU, RMSNorm, untied.
  //   token embedding   V·C               = 8192·256      = 2,097,152
  //   per block: 2 norms 2·C              = 512
  //              W_q C·H·D = 256·256      = 65,536
  //              W_k, W_v 2·C·KV·D        = 2·256·128     = 65,536
  //              W_o H·D·C                = 65,536
  //              gate, up, down 3·C·F     = 3·256·768     = 589,824
  //              block                                    = 786,944;  × 4 blocks = 3,147,776
  //   final norm C                                        = 256
  //   lm_head V·C                                         = 2,097,152
  //   total = 2,097,152 + 3,147,776 + 256 + 2,097,152     = 7,342,336
  // (The seed notes' table lists 87K per MLP matrix and ~2.08M in total; neither follows from its formulas.)
  EXPECT_EQ(parameter_count(small_config()), 7342336);
  ModelConfig tied = small_config();
  tied.tie_embeddings = true;  // the lm_head row disappears: 7,342,336 − 2,097,152
  EXPECT_EQ(parameter_count(tied), 5245184);
}

TEST(Weights, TableRowsOfSmall) {
  const std::vector<ParamGroup> rows = parameter_table(small_config());
  ASSERT_EQ(rows.size(), 12u);
  EXPECT_EQ(rows[0].name, "Token embedding");
  EXPECT_EQ(rows[0].total(), 2097152);
  EXPECT_EQ(rows[2].name, "$W_q$ (q_proj)");
  EXPECT_EQ(rows[2].count, 65536);
  EXPECT_EQ(rows[2].instances, 4);
  EXPECT_EQ(rows[3].count, 32768);  // W_k: GQA halves K and V
  EXPECT_EQ(rows[7].name, "$W_{gate}$ (gate_proj)");
  EXPECT_EQ(rows[7].count, 196608);
  EXPECT_EQ(rows[10].name, "Final norm");
  EXPECT_EQ(rows[11].name, "LM head");
}

TEST(Weights, LayerNormLearnedPositionsPlainMlpCount) {
  // C = 64, L = 2, H = 4, KV = 2, D = 16, V = 259, F = 192, max_seq 128, LayerNorm (γ and β), ReLU (no gate),
  // learned positions, post-norm (no final norm), tied.
  //   embed 259·64 = 16,576; positions 128·64 = 8,192
  //   block: norms 2·2·64 = 256; q 64·64 = 4,096; k, v 2·64·32 = 4,096; o 4,096; up, down 2·64·192 = 24,576
  //          = 37,120; × 2 = 74,240
  //   total = 16,576 + 8,192 + 74,240 = 99,008
  const ModelConfig c = testing::layernorm_learned_tied_config();
  EXPECT_EQ(parameter_count(c), 99008);
  EXPECT_EQ(parameter_count(init_weights(c, 3)), 99008);
}

TEST(Weights, InitHoldsExactlyTheCountedParameters) {
  EXPECT_EQ(parameter_count(init_weights(small_config(), 1)), 7342336);
  int64_t from_specs = 0;
  for (const TensorSpec& s : tensor_specs(small_config())) {
    int64_t n = 1;
    for (int64_t d : s.shape) n *= d;
    from_specs += n;
  }
  EXPECT_EQ(from_specs, 7342336);
}

TEST(Weights, InitIsDeterministicAndScaled) {
  const ModelConfig c = tiny_config();
  const ModelWeights a = init_weights(c, 42), b = init_weights(c, 42), other = init_weights(c, 43);
  EXPECT_EQ(std::memcmp(a.layers[1].mlp.down.data(), b.layers[1].mlp.down.data(), a.layers[1].mlp.down.size() * 4), 0);
  EXPECT_NE(a.layers[1].mlp.down(0, 0), other.layers[1].mlp.down(0, 0));
  // Linear weights are N(0, 1/in_features): W_q (64 · 64 values) should have std close to 1/8.
  const Mat& q = a.layers[0].wq;
  const double mean = q.mean();
  const double std = std::sqrt((q.array() - mean).square().mean());
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(std, 0.125, 0.006);
  EXPECT_TRUE((a.layers[0].attn_norm.weight.array() == 1.0f).all());
  EXPECT_EQ(a.final_norm.weight.size(), 64);
  EXPECT_EQ(a.lm_head.rows(), 259);
}

TEST(Weights, HuggingFaceNamesInForwardOrder) {
  const std::vector<TensorSpec> specs = tensor_specs(tiny_config());
  ASSERT_EQ(specs.size(), 1u + 2 * 9 + 2);
  EXPECT_EQ(specs[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(specs[0].shape, (std::vector<int64_t>{259, 64}));
  EXPECT_EQ(specs[1].name, "model.layers.0.input_layernorm.weight");
  EXPECT_EQ(specs[2].name, "model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(specs[3].name, "model.layers.0.self_attn.k_proj.weight");
  EXPECT_EQ(specs[3].shape, (std::vector<int64_t>{32, 64}));  // (KV·D, C)
  EXPECT_EQ(specs[5].name, "model.layers.0.self_attn.o_proj.weight");
  EXPECT_EQ(specs[6].name, "model.layers.0.post_attention_layernorm.weight");
  EXPECT_EQ(specs[7].name, "model.layers.0.mlp.gate_proj.weight");
  EXPECT_EQ(specs[9].name, "model.layers.0.mlp.down_proj.weight");
  EXPECT_EQ(specs[9].shape, (std::vector<int64_t>{64, 192}));  // (C, F)
  EXPECT_EQ(specs[19].name, "model.norm.weight");
  EXPECT_EQ(specs[20].name, "lm_head.weight");
}

class WeightsFile : public ::testing::Test {
 protected:
  std::string path(const std::string& name) { return (std::filesystem::path(::testing::TempDir()) / name).string(); }
};

TEST_F(WeightsFile, SaveLoadRoundTripsBitExactly) {
  ModelConfig c = tiny_config();
  c.norm = NormType::LayerNorm;
  c.positions = PositionType::Learned;
  const ModelWeights w = init_weights(c, 7);
  std::string error;
  ASSERT_TRUE(save_weights(path("rt.safetensors"), w, c, &error)) << error;
  ModelWeights back;
  ASSERT_TRUE(load_weights(path("rt.safetensors"), c, &back, &error)) << error;
  const SafeTensors a = to_safetensors(w, c), b = to_safetensors(back, c);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].name, b.tensors[i].name);
    EXPECT_EQ(a.tensors[i].shape, b.tensors[i].shape);
    EXPECT_EQ(std::memcmp(a.tensors[i].data.data(), b.tensors[i].data.data(), a.tensors[i].data.size() * 4), 0)
        << a.tensors[i].name;
  }
  EXPECT_EQ(back.layers[1].attn_norm.bias.size(), 64);
  EXPECT_EQ(back.pos_embed.rows(), 128);
  // The streamed save writes exactly the bytes the in-memory serializer produces.
  std::vector<uint8_t> expected;
  ASSERT_TRUE(serialize_safetensors(a, &expected, &error)) << error;
  std::ifstream in(path("rt.safetensors"), std::ios::binary);
  const std::vector<uint8_t> written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(written == expected) << written.size() << " bytes written, " << expected.size() << " expected";
}

TEST_F(WeightsFile, MismatchedCheckpointsAreRefused) {
  const ModelConfig tiny = tiny_config();
  std::string error;
  ASSERT_TRUE(save_weights(path("tiny.safetensors"), init_weights(tiny, 1), tiny, &error));
  ModelWeights w;

  ModelConfig wider = tiny;
  wider.hidden = 256;
  EXPECT_FALSE(load_weights(path("tiny.safetensors"), wider, &w, &error));
  EXPECT_EQ(error,
            path("tiny.safetensors") +
                ": tensor 'model.layers.0.mlp.gate_proj.weight' has shape (192, 64) but this config needs (256, 64)");

  ModelConfig deeper = tiny;
  deeper.n_layers = 3;
  EXPECT_FALSE(load_weights(path("tiny.safetensors"), deeper, &w, &error));
  EXPECT_EQ(error, path("tiny.safetensors") +
                       ": checkpoint has no tensor 'model.layers.2.input_layernorm.weight' (shape (64)) that this "
                       "config needs");

  ModelConfig tied = tiny;
  tied.tie_embeddings = true;
  EXPECT_FALSE(load_weights(path("tiny.safetensors"), tied, &w, &error));
  EXPECT_EQ(error, path("tiny.safetensors") +
                       ": checkpoint has tensor 'lm_head.weight' that this config does not use (written for another "
                       "architecture?)");
}

TEST_F(WeightsFile, TruncatedCheckpointIsRefused) {
  const ModelConfig c = tiny_config();
  std::string error;
  ASSERT_TRUE(save_weights(path("full.safetensors"), init_weights(c, 1), c, &error));
  const auto size = std::filesystem::file_size(path("full.safetensors"));
  std::filesystem::copy_file(path("full.safetensors"), path("cut.safetensors"),
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::resize_file(path("cut.safetensors"), size - 100);
  ModelWeights w;
  EXPECT_FALSE(load_weights(path("cut.safetensors"), c, &w, &error));
  EXPECT_NE(error.find(path("cut.safetensors") + ": tensor 'lm_head.weight': file is truncated"), std::string::npos)
      << error;
}

TEST_F(WeightsFile, NonFiniteWeightsAreReportedByName) {
  const ModelConfig c = tiny_config();
  SafeTensors file = to_safetensors(init_weights(c, 1), c);
  std::string error;
  ModelWeights w;
  for (NamedTensor& t : file.tensors)
    if (t.name == "model.layers.1.mlp.up_proj.weight") {
      t.data[70] = std::numeric_limits<float>::quiet_NaN();
      t.data[90] = -std::numeric_limits<float>::infinity();
    }
  EXPECT_FALSE(from_safetensors(file, c, &w, &error));
  EXPECT_EQ(error,
            "tensor 'model.layers.1.mlp.up_proj.weight' has 2 non-finite values (first: NaN at flat index 70); the "
            "checkpoint is damaged or comes from a diverged training run");
  ASSERT_TRUE(write_safetensors(path("nan.safetensors"), file, &error)) << error;
  EXPECT_FALSE(load_weights(path("nan.safetensors"), c, &w, &error));
  EXPECT_NE(error.find(path("nan.safetensors") + ": tensor 'model.layers.1.mlp.up_proj.weight' has 2 non-finite"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace tw
