// "What to look for" per forward step (core/model/forward_look_for.h): every step kind has its own sentence, and
// trace names of any layer find it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/model/forward_look_for.h"

namespace tw {
namespace {

TEST(ForwardLookFor, EveryStepKindHasItsOwnSentence) {
  std::set<std::string> seen;
  for (const StepRow& row : forward_step_table()) {
    const std::string s = forward_look_for(row.id);
    EXPECT_GT(s.size(), 20u) << row.name;
    EXPECT_TRUE(seen.insert(s).second) << row.name << " repeats another step's sentence";
    EXPECT_EQ(forward_look_for(std::string_view(row.name)), forward_look_for(row.id)) << row.name;
  }
}

TEST(ForwardLookFor, LayerPrefixedTraceNamesFindTheirStep) {
  EXPECT_EQ(forward_look_for("layers.0.attn.probs"), forward_look_for(StepId::Probs));
  EXPECT_EQ(forward_look_for("layers.11.mlp.hidden"), forward_look_for(StepId::Hidden));
  EXPECT_EQ(forward_look_for("logits"), forward_look_for(StepId::Logits));
  EXPECT_EQ(forward_look_for("layers.3"), nullptr);
  EXPECT_EQ(forward_look_for("layers.3.attn.nothing"), nullptr);
  EXPECT_EQ(forward_look_for(""), nullptr);
}

}  // namespace
}  // namespace tw
