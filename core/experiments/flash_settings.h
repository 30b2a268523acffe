#pragma once
// The FlashAttention walkthrough panel's settings that reach the kernel and the one function that turns them into
// FlashWalkParams: the panel and the lessons both call it.
#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
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
  f("T", s.walk.T,
    IntSpec{1, 256, N_("tokens $T$"), N_("Queries and keys of the walked head (the traffic curve goes further)."),
            true});
  f("D", s.walk.D, IntSpec{1, 128, N_("head dim $D$"), N_("Size of each query, key and value vector."), true});
  f("tile_q", s.walk.tile_q,
    IntSpec{1, 256, N_("query tile"),
            N_("Query rows loaded together; on a GPU, what one thread block keeps on chip (must be at most $T$)."),
            true});
  f("tile_k", s.walk.tile_k,
    IntSpec{1, 256, N_("key tile"),
            N_("Keys (and values) streamed past the query tile at a time (must be at most $T$)."), true});
  f("causal", s.walk.causal,
    BoolSpec{N_("causal mask"), N_("Query $i$ sees keys $j \\le i$; fully masked tiles are skipped.")});
  f("seed", s.seed, SeedSpec{N_("Seed of the random $Q$, $K$ and $V$.")});
}

}  // namespace tw
