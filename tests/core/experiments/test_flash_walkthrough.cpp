#include "core/experiments/flash_walkthrough.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tw {
namespace {

// After key tile j of a query tile, the running max of row r must be the max of the reference scores over keys
// 0 .. k0+nk−1, and ℓ = Σ exp(S − m) over those keys: recomputed here in double from the reference scores,
// independently of the kernel's online updates.
void expect_online_state_matches_prefix(const FlashWalkthrough& w) {
  for (const FlashStep& s : w.steps) {
    for (int a = 0; a < s.nq; ++a) {
      const int r = s.q0 + a, end = s.k0 + s.nk;
      double mx = -INFINITY;
      for (int j = 0; j < end; ++j) mx = std::max(mx, double(w.scores(r, j)));
      if (std::isinf(mx)) {  // nothing visible yet (only before a causal row's first tile)
        EXPECT_TRUE(std::isinf(s.m[a]));
        continue;
      }
      double sum = 0;
      for (int j = 0; j < end; ++j)
        if (std::isfinite(w.scores(r, j))) sum += std::exp(double(w.scores(r, j)) - mx);
      EXPECT_NEAR(s.m[a], mx, 1e-5 * std::max(1.0, std::abs(mx))) << "row " << r << " after keys < " << end;
      EXPECT_NEAR(s.l[a], sum, 1e-5 * sum) << "row " << r << " after keys < " << end;
    }
  }
}

TEST(FlashWalkthrough, PerTileStateIsTheOnlineSoftmaxOfTheReference) {
  for (bool causal : {true, false}) {
    FlashWalkParams p;
    p.T = 13;  // not a multiple of either tile
    p.tile_q = 4;
    p.tile_k = 3;
    p.causal = causal;
    ASSERT_EQ(validate(p), "");
    const FlashWalkthrough w = flash_walkthrough(p);
    EXPECT_EQ(static_cast<long long>(w.steps.size()), 4LL * 5LL);  // ⌈13/4⌉ · ⌈13/3⌉ tiles, skipped ones too
    expect_online_state_matches_prefix(w);
    EXPECT_LE(w.max_abs_diff, 1e-5f);
    // The last tile of each query tile holds acc = ℓ · O: normalising it gives the reference output.
    for (const FlashStep& s : w.steps) {
      if (s.k0 + s.nk != p.T) continue;
      for (int a = 0; a < s.nq; ++a)
        for (int d = 0; d < p.D; ++d) EXPECT_NEAR(s.acc(a, d) / s.l[a], w.reference(s.q0 + a, d), 1e-5f);
    }
  }
}

TEST(FlashWalkthrough, CausalMaskSkipsTilesAboveTheDiagonal) {
  FlashWalkParams p;
  p.T = 16;
  p.tile_q = p.tile_k = 4;
  const FlashWalkthrough w = flash_walkthrough(p);
  EXPECT_EQ(w.stats.tiles_computed, 10);  // 4 + 3 + 2 + 1 tiles on and below the diagonal of a 4×4 tiling
  EXPECT_EQ(w.stats.tiles_skipped, 6);
  for (const FlashStep& s : w.steps) EXPECT_EQ(s.skipped, s.k_tile > s.q_tile);
}

// Traffic by hand for T = 16, D = 8, 4×4 tiles: standard 4·16·8 + 4·256 = 1,536 floats; tiled without a mask
// 2·128 + 2·8·(4 query tiles · 16 keys) = 1,280; causal 2·128 + 2·8·(4 + 8 + 12 + 16 keys) = 896.
TEST(FlashWalkthrough, HbmTrafficByHandAndAsCounted) {
  EXPECT_DOUBLE_EQ(standard_attention_floats(16, 8), 1536.0);
  EXPECT_DOUBLE_EQ(tiled_attention_floats(16, 8, 4, 4, false), 1280.0);
  EXPECT_DOUBLE_EQ(tiled_attention_floats(16, 8, 4, 4, true), 896.0);
  for (bool causal : {true, false}) {
    FlashWalkParams p;
    p.T = 16;
    p.tile_q = p.tile_k = 4;
    p.causal = causal;
    const FlashWalkthrough w = flash_walkthrough(p);
    EXPECT_DOUBLE_EQ(w.tiled_floats_counted, w.tiled_floats);  // the kernel's own tiles give the formula
  }
  // Standard traffic grows as T², the tiled kernel's as T²/tile_q: bigger tiles move less.
  EXPECT_LT(tiled_attention_floats(1024, 64, 128, 128, false), tiled_attention_floats(1024, 64, 32, 32, false));
  EXPECT_LT(tiled_attention_floats(1024, 64, 128, 128, false), standard_attention_floats(1024, 64));
  FlashWalkParams bad;
  bad.tile_q = 0;
  EXPECT_NE(validate(bad).find("query tile"), std::string::npos);
}

}  // namespace
}  // namespace tw
