#pragma once
// The architectures panel's own model as the user sets it, and the one function that turns it into an
// ArchitectureConfig (head_dim = d_model / heads, context 4096): the panel and the lessons both call it.
#include "core/experiments/architectures.h"

namespace tw {

struct ArchitectureSettings {
  static constexpr const char* kPanel = "architectures";
  int d_model = 2048, layers = 24, heads = 16, kv_heads = 4, d_ff = 5632, vocab = 32000;
  bool gated = true, tied = false;
};

// "your model", as the panel places it on every plot.
ArchitectureConfig params_of(const ArchitectureSettings& s);

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(ArchitectureSettings& s, F&& f) {
  f("d_model", s.d_model);
  f("layers", s.layers);
  f("heads", s.heads);
  f("kv_heads", s.kv_heads);
  f("d_ff", s.d_ff);
  f("vocab", s.vocab);
  f("gated", s.gated);
  f("tied", s.tied);
}

}  // namespace tw
