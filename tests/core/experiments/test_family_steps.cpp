// The GPT-2-shaped vs LLaMA-shaped step comparison against the traces the forward pass records for each config
// (looked up here by name, not through the comparison), and against the architectural facts of the two families.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/experiments/family_steps.h"
#include "core/model/forward.h"
#include "core/model/forward_steps.h"
#include "core/model/weights.h"

namespace tw {
namespace {

// The steps outside the blocks and those of block 0, keyed by step-table name, straight from a traced pass.
std::map<std::string, const TraceStep*> steps_of(const Trace& trace) {
  std::map<std::string, const TraceStep*> out;
  for (const TraceStep& s : trace.steps())
    if (s.layer == -1)
      out[s.name] = &s;
    else if (s.layer == 0)
      out[s.name.substr(std::string("layers.0.").size())] = &s;
  return out;
}

Trace traced(const ModelConfig& c) {
  Trace trace;
  Mat logits;
  std::string error;
  EXPECT_TRUE(forward(logits, &trace, init_weights(c, 3), c, {1, 2, 3}, &error)) << error;
  return trace;
}

const FamilyStepRow* row_named(const FamilyComparison& cmp, const std::string& step) {
  for (const FamilyStepRow& r : cmp.rows)
    if (r.step == step) return &r;
  return nullptr;
}

TEST(FamilySteps, RowsAreTheTracedStepsOfBothModelsAligned) {
  const ModelConfig a = gpt2_shaped_config(), b = llama_shaped_config();
  ASSERT_TRUE(validate(a).empty()) << validate(a).front();
  ASSERT_TRUE(validate(b).empty()) << validate(b).front();
  const FamilyComparison cmp = compare_family_steps(a, b);
  ASSERT_TRUE(cmp.error.empty()) << cmp.error;
  const Trace ta = traced(a), tb = traced(b);
  const auto sa = steps_of(ta), sb = steps_of(tb);
  // Every step either trace recorded is one row, and no row is made up.
  std::map<std::string, int> seen;
  for (const FamilyStepRow& r : cmp.rows) ++seen[r.step];
  for (const auto& [name, s] : sa) EXPECT_EQ(seen[name], 1) << name;
  for (const auto& [name, s] : sb) EXPECT_EQ(seen[name], 1) << name;
  EXPECT_EQ(seen.size(), cmp.rows.size());
  int last_table_index = -1, changed = 0;
  for (const FamilyStepRow& r : cmp.rows) {
    // Titles and formulas are what each pass recorded; a missing step has none.
    const auto ia = sa.find(r.step), ib = sb.find(r.step);
    EXPECT_EQ(r.formula_a, ia == sa.end() ? "" : ia->second->formula) << r.step;
    EXPECT_EQ(r.title_a, ia == sa.end() ? "" : ia->second->title) << r.step;
    EXPECT_EQ(r.formula_b, ib == sb.end() ? "" : ib->second->formula) << r.step;
    EXPECT_EQ(r.title_b, ib == sb.end() ? "" : ib->second->title) << r.step;
    const StepMatch want = ia == sa.end()                                         ? StepMatch::OnlyB
                           : ib == sb.end()                                       ? StepMatch::OnlyA
                           : r.formula_a == r.formula_b && r.title_a == r.title_b ? StepMatch::Same
                                                                                  : StepMatch::Differs;
    EXPECT_EQ(r.match, want) << r.step;
    changed += want != StepMatch::Same;
    // In the step table's order.
    int index = -1;
    for (size_t k = 0; k < forward_step_table().size(); ++k)
      if (r.step == forward_step_table()[k].name) index = static_cast<int>(k);
    EXPECT_GT(index, last_table_index) << r.step;
    last_table_index = index;
  }
  EXPECT_EQ(cmp.changed(), changed);
}

// What changed since GPT-2, as the families define it: learned positions only in GPT-2; RoPE and the SwiGLU gate
// only in LLaMA; the norms, the MLP activation and the biased projections computed differently; softmax attention
// itself unchanged.
TEST(FamilySteps, MarksWhatTheFamiliesChange) {
  const FamilyComparison cmp = compare_family_steps(gpt2_shaped_config(), llama_shaped_config());
  ASSERT_TRUE(cmp.error.empty()) << cmp.error;
  const std::map<std::string, StepMatch> want = {
      {"pos_embed", StepMatch::OnlyA},    {"attn.q_rope", StepMatch::OnlyB},  {"attn.k_rope", StepMatch::OnlyB},
      {"mlp.gate", StepMatch::OnlyB},     {"attn_norm", StepMatch::Differs},  {"mlp_norm", StepMatch::Differs},
      {"final_norm", StepMatch::Differs}, {"mlp.hidden", StepMatch::Differs}, {"attn.q", StepMatch::Differs},
      {"attn.proj", StepMatch::Differs},  {"attn.probs", StepMatch::Same},    {"attn.residual", StepMatch::Same},
  };
  for (const auto& [step, match] : want) {
    const FamilyStepRow* r = row_named(cmp, step);
    ASSERT_NE(r, nullptr) << step;
    EXPECT_EQ(r->match, match) << step;
  }
  EXPECT_EQ(row_named(cmp, "attn.q_norm"), nullptr);  // neither family normalises q and k
}

TEST(FamilySteps, AModelComparedWithItselfChangesNothing) {
  for (const ModelConfig& c : {gpt2_shaped_config(), llama_shaped_config()}) {
    const FamilyComparison cmp = compare_family_steps(c, c);
    ASSERT_TRUE(cmp.error.empty()) << cmp.error;
    EXPECT_FALSE(cmp.rows.empty());
    EXPECT_EQ(cmp.changed(), 0);
  }
}

TEST(FamilySteps, AnInvalidConfigIsAnErrorNotACrash) {
  ModelConfig bad = llama_shaped_config();
  bad.n_heads = 3;  // 64 is not a multiple of 3
  const FamilyComparison cmp = compare_family_steps(gpt2_shaped_config(), bad);
  EXPECT_FALSE(cmp.error.empty());
  EXPECT_TRUE(cmp.rows.empty());
}

}  // namespace
}  // namespace tw
