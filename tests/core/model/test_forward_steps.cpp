#include "core/model/forward_steps.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "core/model/forward.h"

namespace tw {
namespace {

// The step list in the header of core/model/forward.h: name → shape symbols, e.g. "layers.L.attn.q" → "T H D".
std::map<std::string, std::string> header_steps() {
  std::ifstream in(std::string(TW_SOURCE_DIR) + "/core/model/forward.h");
  EXPECT_TRUE(in.good());
  std::map<std::string, std::string> steps;
  const std::regex line(R"(^//   (\S+)\s+\(([^)]*)\))");
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    std::string shape = std::regex_replace(m[2].str(), std::regex(", "), " ");
    steps[m[1].str()] = shape;
  }
  return steps;
}

std::string full_name(const StepRow& row) { return (row.in_block ? "layers.L." : "") + std::string(row.name); }

TEST(ForwardSteps, TableRowsAreInIdOrder) {
  const auto& rows = forward_step_table();
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(static_cast<size_t>(rows[i].id), i) << rows[i].name;
}

TEST(ForwardSteps, HeaderListMatchesTheTable) {
  const auto header = header_steps();
  std::map<std::string, std::string> table;
  for (const StepRow& row : forward_step_table()) table[full_name(row)] = row.shape;
  EXPECT_EQ(header, table);
}

// Every step a traced pass records is a row of the table, with the row's shape symbols, over configs that switch
// on every optional step (RoPE, learned positions, gated and plain MLPs, post-norm, sliding windows).
TEST(ForwardSteps, RecordedStepsFollowTheTable) {
  std::vector<ModelConfig> configs(4, tiny_config());
  configs[3].experts = 4;  // mixture of experts: routing steps instead of gate/up/hidden
  configs[3].capacity_factor = 0.5;
  configs[1].positions = PositionType::Learned;
  configs[1].activation = ActivationKind::GELU;
  configs[1].placement = NormPlacement::Post;
  configs[2].positions = PositionType::ALiBi;
  configs[2].attention = AttentionPattern::Sliding;
  configs[2].window = 3;
  std::map<std::string, const StepRow*> by_name;
  for (const StepRow& row : forward_step_table()) by_name[row.name] = &row;
  for (const ModelConfig& c : configs) {
    const ModelWeights w = init_weights(c, 1);
    Mat logits;
    Trace trace;
    std::string error;
    ASSERT_TRUE(forward(logits, &trace, w, c, {1, 2, 3, 4}, &error)) << error;
    for (const TraceStep& st : trace.steps()) {
      const std::string suffix = st.layer >= 0 ? st.name.substr(st.name.find('.', 7) + 1) : st.name;
      ASSERT_TRUE(by_name.count(suffix)) << st.name;
      std::string symbols;
      for (const TraceDim& d : st.shape) symbols += (symbols.empty() ? "" : " ") + d.symbol;
      EXPECT_EQ(symbols, by_name[suffix]->shape) << st.name;
      EXPECT_EQ(st.layer >= 0, by_name[suffix]->in_block) << st.name;
    }
  }
}

}  // namespace
}  // namespace tw
