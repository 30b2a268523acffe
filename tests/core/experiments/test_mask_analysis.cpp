// Mask analysis against hand-worked small cases: visible keys, computed fraction, "blocked by", empty rows,
// uniform-score probabilities, and receptive fields through stacked windowed / interleaved layers.
#include "core/experiments/mask_analysis.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace tw {
namespace {

MaskTerm term(const Mask& m) { return m.term; }

TEST(MaskAnalysis, CausalCountsAndUniformProbabilities) {
  const MaskAnalysis a = analyze_mask({term(causal_mask())}, 4);
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.visible_keys, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(a.visible_cells, 10);
  EXPECT_DOUBLE_EQ(a.fraction_computed, 10.0 / 16.0);
  EXPECT_TRUE(a.empty_rows.empty());
  Mat expected(4, 4);
  expected << 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1 / 3.f, 1 / 3.f, 1 / 3.f, 0, 0.25f, 0.25f, 0.25f, 0.25f;
  EXPECT_MAT_NEAR(a.uniform_probs, expected, 1e-7f);
}

TEST(MaskAnalysis, BlockedByNamesTheListEntry) {
  const MaskAnalysis a = analyze_mask({term(causal_mask()), term(sliding_window_mask(2))}, 4);
  auto by = [&](int i, int j) { return a.blocked_by[static_cast<size_t>(i) * 4 + j]; };
  EXPECT_EQ(by(0, 0), -1);
  EXPECT_EQ(by(0, 1), 0);  // future key: causal
  EXPECT_EQ(by(3, 0), 1);  // too far back: the window
  EXPECT_EQ(by(3, 2), -1);
  EXPECT_EQ(a.visible_keys, (std::vector<int>{1, 2, 2, 2}));
}

TEST(MaskAnalysis, LeftPaddingLeavesEmptyRowsAsZerosNotNaN) {
  const MaskAnalysis a = analyze_mask({term(causal_mask()), term(padding_mask(2, true, 5))}, 5);
  EXPECT_EQ(a.empty_rows, (std::vector<int>{0, 1}));
  EXPECT_TRUE(all_finite(a.uniform_probs));
  EXPECT_EQ(a.uniform_probs.row(0).sum(), 0.0f);
  EXPECT_FLOAT_EQ(a.uniform_probs(4, 2), 1 / 3.f);
  EXPECT_EQ(a.blocked_by[0], 1);  // (0, 0): causal allows it, the padding term (entry 1) blocks it
  EXPECT_EQ(a.blocked_by[1], 0);  // (0, 1): a future key, causal (entry 0) is the first to block
}

TEST(MaskAnalysis, InvalidInputGivesMessage) {
  EXPECT_EQ(analyze_mask({term(sliding_window_mask(0))}, 8).error, "sliding window $W$ must be >= 1, got 0");
  EXPECT_NE(analyze_mask({}, 0).error, "");
  EXPECT_NE(receptive_field({}, 8, 0, 0).error, "");
}

TEST(MaskAnalysis, ReceptiveFieldGrowsByWindowPerLayer) {
  // Window W = 3 reaches 2 positions back per layer: after l layers the last query hears 2l positions back.
  const std::vector<MaskTerm> terms = {term(causal_mask()), term(sliding_window_mask(3))};
  const ReceptiveField rf = receptive_field(terms, 16, 4, 0);
  ASSERT_EQ(rf.error, "");
  EXPECT_EQ(rf.last_query_reach, (std::vector<int>{2, 4, 6, 8}));
  EXPECT_EQ(rf.last_query_count, (std::vector<int>{3, 5, 7, 9}));
  EXPECT_EQ(rf.layer_global, (std::vector<char>{0, 0, 0, 0}));
  EXPECT_TRUE(rf.reach(15, 7));
  EXPECT_FALSE(rf.reach(15, 6));
  EXPECT_FALSE(rf.reach(3, 4));  // never from the future
}

TEST(MaskAnalysis, InterleavedGlobalLayerReachesEverything) {
  // Gemma 2 pattern (global every 2nd layer): local, global, local.
  const std::vector<MaskTerm> terms = {term(causal_mask()), term(sliding_window_mask(3))};
  const ReceptiveField rf = receptive_field(terms, 16, 3, 2);
  EXPECT_EQ(rf.layer_global, (std::vector<char>{0, 1, 0}));
  EXPECT_EQ(rf.last_query_reach, (std::vector<int>{2, 15, 15}));
  // Full causal attention in one layer: query i hears i+1 positions, mean (T+1)/2.
  const ReceptiveField full = receptive_field({term(causal_mask())}, 16, 1, 0);
  EXPECT_DOUBLE_EQ(full.mean_count[0], 8.5);
}

TEST(MaskAnalysis, DilationNeverMixesParity) {
  const std::vector<MaskTerm> terms = {term(causal_mask()), term(dilated_mask(2))};
  const ReceptiveField rf = receptive_field(terms, 8, 3, 0);
  EXPECT_EQ(rf.last_query_count, (std::vector<int>{4, 4, 4}));  // 7, 5, 3, 1
  EXPECT_EQ(rf.last_query_reach.back(), 6);
}

TEST(MaskAnalysis, PresetsAndLayerPattern) {
  const auto& p = interleave_presets();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].global_period, 2);
  EXPECT_EQ(p[0].window, 4096);
  EXPECT_EQ(p[1].global_period, 6);
  EXPECT_EQ(p[1].window, 1024);
  EXPECT_EQ(p[2].global_period, 4);
  EXPECT_FALSE(layer_is_global(1, 2));
  EXPECT_TRUE(layer_is_global(2, 2));
  EXPECT_FALSE(layer_is_global(5, 6));
  EXPECT_TRUE(layer_is_global(6, 6));
  EXPECT_FALSE(layer_is_global(6, 0));
}

}  // namespace
}  // namespace tw
