#pragma once
// The mixture-of-experts panel's settings and the one function that turns them into MoeParams: the panel and the
// lessons both call it.
#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
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
  f("tokens", s.params.tokens, IntSpec{1, 512, N_("tokens $N$"), N_("Tokens in the batch the router sees."), true});
  f("dim", s.params.dim,
    IntSpec{1, 1024, N_("dim $C$"), N_("Width of each token vector (and of the router's rows)."), true});
  f("experts", s.params.experts, IntSpec{1, 64, N_("experts $E$"), N_("Number of expert MLPs in the layer.")});
  f("top_k", s.params.top_k,
    IntSpec{1, 64, N_("top-k"), N_("Experts each token is sent to (at most $E$; Mixtral uses 2 of 8).")});
  f("capacity_factor", s.capacity_factor,
    FloatSpec{0.05f, 8.0f, N_("capacity factor"),
              N_("Slack on the even share $N k / E$; below 1 some tokens are always dropped."), true, "%.3g"});
  f("hidden", s.params.hidden,
    IntSpec{1, 65536, N_("expert hidden $F$"), N_("Hidden size of each expert MLP (parameter counts)."), true});
  f("gated", s.params.gated, BoolSpec{N_("gated experts"), N_("SwiGLU experts have 3 matrices, plain MLPs 2.")});
  f("router_bias", s.router_bias,
    FloatSpec{0.0f, 10.0f, N_("router bias"),
              N_("Added to expert 0's logit: an unbalanced router whose favourite expert overflows."), false, "%.2f"});
  f("seed", s.seed, SeedSpec{N_("Seed of the random tokens and router weights.")});
}

}  // namespace tw
