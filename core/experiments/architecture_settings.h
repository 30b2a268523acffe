#pragma once
// The architectures panel's own model as the user sets it, and the one function that turns it into an
// ArchitectureConfig (head_dim = d_model / heads, context 4096): the panel and the lessons both call it.
#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
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
  f("d_model", s.d_model, IntSpec{16, 65536, N_("$d_{model}$"), N_("Width of your model's residual stream."), true});
  f("layers", s.layers, IntSpec{1, 200, N_("layers $L$"), N_("Number of blocks.")});
  f("heads", s.heads, IntSpec{1, 256, N_("query heads $H$"), N_("Head dimension is $d_{model}/H$.")});
  f("kv_heads", s.kv_heads,
    IntSpec{1, 256, N_("KV heads"),
            N_("Key/value heads: $H$ for multi-head, 1 for multi-query, in between for grouped-query attention.")});
  f("d_ff", s.d_ff,
    IntSpec{16, 262144, N_("MLP width $d_{ff}$"),
            N_("Hidden width of the MLP: $4 d_{model}$ is the classic choice, about $\\frac{8}{3} d_{model}$ for a "
               "gated unit with the same parameters."),
            true});
  f("vocab", s.vocab, IntSpec{2, 1000000, N_("vocabulary"), N_("Tokens in the vocabulary."), true});
  f("gated", s.gated, BoolSpec{N_("gated MLP (SwiGLU)"), N_("Three MLP matrices instead of two.")});
  f("tied", s.tied, BoolSpec{N_("tied output head"), N_("The output head shares the embedding matrix.")});
}

}  // namespace tw
