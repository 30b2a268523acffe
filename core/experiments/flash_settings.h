#pragma once
// The FlashAttention walkthrough panel's settings that reach the kernel and the one function that turns them into
// FlashWalkParams: the panel and the lessons both call it.
#include "core/experiments/flash_walkthrough.h"

namespace tw {

struct FlashSettings {
  static constexpr const char* kPanel = "flash";
  FlashWalkParams walk;  // T, D, the two tile sizes and the causal mask (the seed is the panel's, below)
  int seed = 1;
};

FlashWalkParams params_of(const FlashSettings& s);

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(FlashSettings& s, F&& f) {
  f("T", s.walk.T);
  f("D", s.walk.D);
  f("tile_q", s.walk.tile_q);
  f("tile_k", s.walk.tile_k);
  f("causal", s.walk.causal);
  f("seed", s.seed);
}

}  // namespace tw
