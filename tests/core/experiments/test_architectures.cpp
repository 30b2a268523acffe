#include "core/experiments/architectures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/model/config.h"
#include "core/model/stepper_model.h"
#include "core/model/weights.h"

namespace tw {
namespace {

const ArchitectureConfig& row(const std::string& name) {
  for (const auto& c : published_architectures())
    if (c.name == name) return c;
  ADD_FAILURE() << "no row " << name;
  return published_architectures().front();
}

TEST(Architectures, TableHasTwentyRowsEachWithASource) {
  const auto& t = published_architectures();
  EXPECT_GE(t.size(), 20u);
  std::set<std::string> names;
  for (const auto& c : t) {
    EXPECT_FALSE(c.source.empty()) << c.name;
    EXPECT_GT(c.published_params, 0) << c.name;
    EXPECT_EQ(validate(c), "") << c.name;
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate " << c.name;
  }
}

// Where the source gives the exact count (a safetensors index's total_size / bytes per value, a paper's table or a
// library's count), the count from the configuration must equal it to the parameter.
TEST(Architectures, ExactPublishedCountsMatchToTheParameter) {
  int exact = 0;
  for (const auto& c : published_architectures()) {
    if (!c.published_exact) continue;
    ++exact;
    EXPECT_EQ(count_parameters(c).total, static_cast<int64_t>(c.published_params)) << c.name;
  }
  EXPECT_GE(exact, 8);
  // Written out, not read back from the table: the numbers the sources give.
  EXPECT_EQ(count_parameters(row("GPT-2 small")).total, 124439808);
  EXPECT_EQ(count_parameters(row("Llama 2 7B")).total, 6738415616);
  EXPECT_EQ(count_parameters(row("Mistral 7B")).total, 7241732096);
  EXPECT_EQ(count_parameters(row("BERT-base")).total, 109482240);
}

// Rounded published sizes ("70B") are names, within a few percent of the configuration's count.
TEST(Architectures, RoundedPublishedCountsAreClose) {
  for (const auto& c : published_architectures()) {
    const double n = static_cast<double>(count_parameters(c).total);
    EXPECT_NEAR(n / c.published_params, 1.0, 0.05) << c.name << ": " << n;
  }
}

TEST(Architectures, MixtureOfExpertsActiveParameters) {
  const ParameterBreakdown b = count_parameters(row("Mixtral 8x7B"));
  // Two of eight experts per token: 12.9B active of 46.7B (Mixtral's paper: "13B active").
  EXPECT_EQ(b.total - b.active, 32LL * 6 * 3 * 4096 * 14336);
  EXPECT_NEAR(b.active / 1e9, 12.9, 0.05);
}

// The same LLaMA-style configuration counted by the model code (core/model/weights) and by this table's formula.
TEST(Architectures, AgreesWithTheModelsOwnParameterTable) {
  ModelConfig m;
  m.dim = 256, m.n_layers = 4, m.n_heads = 8, m.n_kv_heads = 4, m.vocab = 8192, m.hidden = 768, m.max_seq = 256;
  ArchitectureConfig c;
  c.name = "Small";
  c.d_model = 256, c.layers = 4, c.heads = 8, c.kv_heads = 4, c.head_dim = 32, c.d_ff = 768, c.gated = true;
  c.vocab = 8192, c.context = 256;
  EXPECT_EQ(count_parameters(c).total, parameter_count(m));
  m.tie_embeddings = c.tied = true;
  EXPECT_EQ(count_parameters(c).total, parameter_count(m));
}

// A workbench model as a table row counts exactly the values its weights hold, for every choice that changes the
// count (norm kind, positions, biases, tying, QK-norm, gated or plain MLP, experts), and for the shipped models.
TEST(Architectures, AWorkbenchModelCountsTheValuesItsWeightsHold) {
  std::vector<ModelConfig> configs = {tiny_config(), small_config()};
  ModelConfig m = tiny_config();
  m.norm = NormType::LayerNorm, m.positions = PositionType::Learned, m.activation = ActivationKind::GELU;
  configs.push_back(m);
  m = tiny_config();
  m.attn_bias = true, m.tie_embeddings = true, m.qk_norm = true, m.placement = NormPlacement::Post;
  configs.push_back(m);
  m = tiny_config();
  m.experts = 4, m.top_k = 2, m.positions = PositionType::ALiBi;
  configs.push_back(m);
  for (const char* shipped : {"sort", "induction"}) {
    std::string error;
    ASSERT_TRUE(load_config(shipped_models_dir() + "/" + shipped + "/config.json", &m, &error)) << error;
    configs.push_back(m);
  }
  for (size_t i = 0; i < configs.size(); ++i) {
    const ArchitectureConfig c = architecture_of(configs[i], "model");
    EXPECT_EQ(validate(c), "") << i;
    const ParameterBreakdown b = count_parameters(c);
    EXPECT_EQ(b.total, parameter_count(init_weights(configs[i], 1))) << "config " << i;
    EXPECT_EQ(b.active, active_parameter_count(configs[i])) << "config " << i;
    EXPECT_EQ(b.embedding + b.attention + b.mlp + b.norms + b.head, b.total);
  }
}

TEST(Architectures, ValidateNamesTheField) {
  ArchitectureConfig c = row("Llama 3 8B");
  c.kv_heads = 3;
  EXPECT_NE(validate(c).find("heads"), std::string::npos);
}

}  // namespace
}  // namespace tw
