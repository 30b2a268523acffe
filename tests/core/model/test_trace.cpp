#include "core/model/trace.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

TEST(Trace, RecordsInOrderWithShape) {
  Trace trace;
  const Mat a = Mat::Constant(2, 3, 1.5f);
  trace.record("embed", "Token embedding", "x = E[tokens]", {"tokens"}, a, {{"T", 2, "tokens"}, {"C", 3, "channels"}},
               -1, 0, 48);
  trace.record("layers.0.attn.q", "Query", "q = x W_qᵀ", {"embed"}, Mat::Zero(2, 4),
               {{"T", 2, "tokens"}, {"H", 2, "query heads"}, {"D", 2, "head dim"}}, 0, 48, 88);
  ASSERT_EQ(trace.steps().size(), 2u);
  EXPECT_EQ(trace.index_of("layers.0.attn.q"), 1);
  EXPECT_EQ(trace.find("nope"), nullptr);
  const TraceStep* q = trace.find("layers.0.attn.q");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->layer, 0);
  EXPECT_EQ(q->shape_string(), "($T = 2$ tokens, $H = 2$ query heads, $D = 2$ head dim)");
  EXPECT_EQ(q->sizes(), (std::vector<int64_t>{2, 2, 2}));
  // The key/value head count is one variable, typeset as the formulas name it (not K times V).
  EXPECT_EQ((TraceDim{"KV", 2, "kv heads"}.tex()), "H_{kv}");
  EXPECT_EQ((TraceDim{"T_k", 2, "keys"}.tex()), "T_k");
  EXPECT_DOUBLE_EQ(q->intensity(), 48.0 / 88.0);
  EXPECT_EQ(trace.steps()[0].value(1, 2), 1.5f);
  EXPECT_DOUBLE_EQ(trace.total_flops(), 48.0);
}

TEST(Trace, DisabledRecordsNothing) {
  Trace trace(false);
  trace.record("embed", "", "", {}, Mat::Zero(1, 1), {}, -1, 1, 1);
  EXPECT_TRUE(trace.steps().empty());
  trace.set_enabled(true);
  trace.record("embed", "", "", {}, Mat::Zero(1, 1), {}, -1, 1, 1);
  EXPECT_EQ(trace.steps().size(), 1u);
  trace.clear();
  EXPECT_TRUE(trace.steps().empty());
}

}  // namespace
}  // namespace tw
