#pragma once
// The mixture-of-experts panel's settings and the one function that turns them into MoeParams: the panel and the
// lessons both call it.
#include "core/experiments/moe_routing.h"

namespace tw {

struct MoeSettings {
  static constexpr const char* kPanel = "moe";
  MoeParams params;  // N, C, E, k, F and gated, bound as they are
  // Bound beside params (sliders are floats, the seed an int; the core keeps doubles and a uint64): params_of.
  float capacity_factor = 1.0f;  // capacity = ⌈factor · N · k / E⌉
  float router_bias = 1.0f;      // on expert 0's logit: a popular expert, to show drops
  int seed = 1;
};

MoeParams params_of(const MoeSettings& s);

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(MoeSettings& s, F&& f) {
  f("tokens", s.params.tokens);
  f("dim", s.params.dim);
  f("experts", s.params.experts);
  f("top_k", s.params.top_k);
  f("capacity_factor", s.capacity_factor);
  f("hidden", s.params.hidden);
  f("gated", s.params.gated);
  f("router_bias", s.router_bias);
  f("seed", s.seed);
}

}  // namespace tw
