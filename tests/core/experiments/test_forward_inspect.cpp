// Tests for the forward-stepper helpers: step tree, block stages, residual-stream norms, KV grouping, the seed
// notes' parameter table and the config-editor message routing. Traces here are built by hand so every expected
// number is known without running the model.
#include "core/experiments/forward_inspect.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/model/weights.h"

namespace tw {
namespace {

void add_step(Trace& t, const std::string& name, const Mat& value, int layer) {
  t.record(name, name, "", {}, value, {{"T", value.rows(), "tokens"}, {"C", value.cols(), "channels"}}, layer, 0, 0);
}

Trace pre_norm_trace() {
  Trace t;
  Mat x(2, 2);
  x << 3, 4, 0, 1;  // norms 5 and 1
  add_step(t, "embed", x, -1);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    add_step(t, p + "attn_norm", x, l);
    add_step(t, p + "attn.q", x, l);
    add_step(t, p + "attn.probs", x, l);
    add_step(t, p + "attn.residual", x * float(2 + 2 * l), l);  // norms scaled by 2, then by 4
    add_step(t, p + "mlp_norm", x, l);
    add_step(t, p + "mlp.hidden", x, l);
    add_step(t, p + "mlp.residual", x * float(3 + 2 * l), l);
  }
  add_step(t, "final_norm", x, -1);
  add_step(t, "logits", x, -1);
  return t;
}

TEST(StepGroups, InputLayersOutputCoverEveryStepOnce) {
  const Trace t = pre_norm_trace();
  const auto groups = step_groups(t);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].label, "input");
  EXPECT_EQ(groups[1].label, "layer 0");
  EXPECT_EQ(groups[1].layer, 0);
  EXPECT_EQ(groups[2].label, "layer 1");
  EXPECT_EQ(groups[3].label, "output");
  EXPECT_EQ(groups[3].steps, (std::vector<int>{15, 16}));
  std::set<int> seen;
  for (const auto& g : groups)
    for (int i : g.steps) EXPECT_TRUE(seen.insert(i).second) << "step " << i << " in two groups";
  EXPECT_EQ(seen.size(), t.steps().size());
}

TEST(StepGroups, SubStepName) {
  EXPECT_EQ(sub_step_name("layers.12.attn.probs"), "attn.probs");
  EXPECT_EQ(sub_step_name("layers.0.mlp_norm"), "mlp_norm");
  EXPECT_EQ(sub_step_name("logits"), "logits");
  EXPECT_EQ(sub_step_name("layers.x.attn"), "layers.x.attn");  // not a layer number: left alone
}

TEST(BlockDiagram, StagesAndOrder) {
  EXPECT_EQ(block_stage("layers.0.attn_norm"), int(BlockStage::Norm1));
  EXPECT_EQ(block_stage("layers.3.attn.k_rope"), int(BlockStage::Attention));
  EXPECT_EQ(block_stage("layers.3.attn.residual"), int(BlockStage::Residual1));
  EXPECT_EQ(block_stage("layers.1.mlp_norm"), int(BlockStage::Norm2));
  EXPECT_EQ(block_stage("layers.1.mlp.gate"), int(BlockStage::Mlp));
  EXPECT_EQ(block_stage("layers.1.mlp.residual"), int(BlockStage::Residual2));
  EXPECT_EQ(block_stage("embed"), -1);
  EXPECT_EQ(block_stage("logits"), -1);
  const auto pre = block_order(NormPlacement::Pre);
  const auto post = block_order(NormPlacement::Post);
  ASSERT_EQ(pre.size(), size_t(kBlockStages));
  ASSERT_EQ(post.size(), size_t(kBlockStages));
  EXPECT_EQ(pre.front(), BlockStage::Norm1);
  EXPECT_EQ(post.front(), BlockStage::Attention);
  EXPECT_EQ(post[2], BlockStage::Norm1);  // post-norm: the norm follows the residual add
  EXPECT_EQ(post.back(), BlockStage::Norm2);
}

TEST(ResidualNorms, PreNormFollowsTheStream) {
  const Trace t = pre_norm_trace();
  const ResidualNorms r = residual_norms(t, NormPlacement::Pre);
  ASSERT_EQ(r.steps.size(), 5u);  // embed + 2 per layer
  EXPECT_EQ(r.labels, (std::vector<std::string>{"embed", "L0 attn+", "L0 mlp+", "L1 attn+", "L1 mlp+"}));
  ASSERT_EQ(r.norms.rows(), 5);
  ASSERT_EQ(r.norms.cols(), 2);
  const double scale[] = {1, 2, 3, 4, 5};
  for (int s = 0; s < 5; ++s) {
    EXPECT_NEAR(r.norms(s, 0), 5.0 * scale[s], 1e-9);
    EXPECT_NEAR(r.norms(s, 1), 1.0 * scale[s], 1e-9);
  }
}

TEST(ResidualNorms, PostNormUsesTheNormedStream) {
  const Trace t = pre_norm_trace();
  const ResidualNorms r = residual_norms(t, NormPlacement::Post);
  EXPECT_EQ(r.labels, (std::vector<std::string>{"embed", "L0 norm1", "L0 norm2", "L1 norm1", "L1 norm2"}));
  EXPECT_TRUE(is_residual_stream_step("pos_embed", NormPlacement::Post));
  EXPECT_FALSE(is_residual_stream_step("layers.0.attn.residual", NormPlacement::Post));
  EXPECT_FALSE(is_residual_stream_step("final_norm", NormPlacement::Pre));
}

TEST(ResidualNorms, EmptyTraceGivesNothing) {
  const ResidualNorms r = residual_norms(Trace{}, NormPlacement::Pre);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.norms.size(), 0);
}

TEST(AttentionMaps, HeadsGroupedByKvHead) {
  const auto g = heads_by_kv_head(8, 4);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0], (std::vector<int>{0, 1}));
  EXPECT_EQ(g[3], (std::vector<int>{6, 7}));
  EXPECT_EQ(heads_by_kv_head(4, 1).front(), (std::vector<int>{0, 1, 2, 3}));  // MQA: one group
  EXPECT_EQ(heads_by_kv_head(4, 4).size(), 4u);                               // MHA: a head per group
  EXPECT_TRUE(heads_by_kv_head(6, 4).empty());
  TraceStep s;
  s.name = "layers.0.attn.probs";
  EXPECT_TRUE(is_attention_map(s));
  s.name = "layers.0.attn.out";
  EXPECT_FALSE(is_attention_map(s));
}

TEST(NotesTable, MlpRowsAndTotalSlipped) {
  const NotesParamCheck c = check_notes_small_table();
  EXPECT_EQ(c.notes_hidden, 682);  // int(2 · 4 · 256 / 3)
  auto row = [&](const std::string& name) -> const NotesParamRow& {
    for (const auto& r : c.rows)
      if (r.component == name) return r;
    ADD_FAILURE() << "no row " << name;
    return c.rows.front();
  };
  EXPECT_EQ(row("Token embedding").computed, 2097152);
  EXPECT_TRUE(row("Token embedding").agrees);
  EXPECT_EQ(row("Attention $Q$").computed, 65536);
  EXPECT_TRUE(row("Attention $Q$").agrees);
  EXPECT_EQ(row("Attention $K$").computed, 32768);
  EXPECT_TRUE(row("Attention $K$").agrees);
  EXPECT_EQ(row("RMSNorm (×2)").computed, 512);
  EXPECT_EQ(row("MLP W1 (gate)").computed, 174592);  // 256 · 682, twice the printed 87K
  EXPECT_FALSE(row("MLP W1 (gate)").agrees);
  EXPECT_FALSE(row("MLP W2 (down)").agrees);
  EXPECT_FALSE(row("MLP W3 (up)").agrees);
  EXPECT_EQ(row("Block total").computed, 512 + 2 * 65536 + 2 * 32768 + 3 * 174592);
  EXPECT_FALSE(row("Block total").agrees);
  EXPECT_FALSE(row("4 blocks").agrees);
  EXPECT_TRUE(row("Output layer").agrees);
  // 2 · 8192 · 256 + 4 · 720896 + 256 (final norm).
  EXPECT_EQ(c.computed_total, 7078144);
  EXPECT_FALSE(row("Total").agrees);
  EXPECT_NEAR(c.notes_rows_sum, 6.03e6, 1);
  EXPECT_EQ(c.disagreements, 6);
  EXPECT_FALSE(row("Total").remark.empty());
}

TEST(NotesTable, CoreTableAgreesWithTheNotesFormulas) {
  // The same model in core's config (hidden = the notes' 682) must give the exact total computed above.
  ModelConfig cfg = small_config();
  cfg.hidden = check_notes_small_table().notes_hidden;
  EXPECT_EQ(parameter_count(cfg), check_notes_small_table().computed_total);
  // The app's Small preset rounds F up to 768 (LLaMA's multiple_of = 256): 4 · 3 · 256 · 86 more parameters.
  EXPECT_EQ(parameter_count(small_config()) - parameter_count(cfg), int64_t(4) * 3 * 256 * (768 - 682));
}

TEST(ConfigEditor, MessagesRoutedToTheirField) {
  // With a real invalid config, each validate_fields() message lands beside some field.
  ModelConfig bad = tiny_config();
  bad.n_kv_heads = 3;
  const auto errors = validate_fields(bad);
  ASSERT_FALSE(errors.empty());
  EXPECT_FALSE(messages_for_field(errors, "n_kv_heads").empty());
  EXPECT_TRUE(messages_for_field(errors, "").empty());
  // An odd head_dim is a problem of dim (the control that makes it), not of any other field.
  ModelConfig odd = tiny_config();
  odd.dim = odd.n_heads * 3;
  const auto odd_errors = validate_fields(odd);
  ASSERT_EQ(odd_errors.size(), 1u);
  EXPECT_EQ(messages_for_field(odd_errors, "dim").size(), 1u);
  EXPECT_TRUE(messages_for_field(odd_errors, "n_heads").empty());
  EXPECT_TRUE(messages_for_field(odd_errors, "vocab").empty());
  EXPECT_TRUE(messages_for_field(odd_errors, "").empty());
}

TEST(ConfigEditor, TypedProblemsRoutedByTheirFieldNotTheirText) {
  ModelConfig bad = tiny_config();  // 4 heads
  bad.n_kv_heads = 3;               // the message names n_heads too, but belongs to n_kv_heads
  bad.attn_softcap = -1.0f;         // no editor field: shown under the editor
  const std::vector<ConfigProblem> problems = validate_fields(bad);
  ASSERT_EQ(problems.size(), 2u);
  const auto kv = messages_for_field(problems, "n_kv_heads");
  ASSERT_EQ(kv.size(), 1u);
  EXPECT_EQ(kv[0], problems[0].message);
  EXPECT_TRUE(messages_for_field(problems, "n_heads").empty());
  const auto rest = messages_for_field(problems, "");
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0], problems[1].message);
}

}  // namespace
}  // namespace tw
