#pragma once
// The GQA / MQA panel's settings as the user sets them (a published model's shape or a custom one) and the one
// function that turns them into GqaParams: the panel and the lessons both call it.
#include <span>
#include <vector>

#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
#include "core/experiments/gqa_analysis.h"

namespace tw {

struct GqaSettings {
  static constexpr const char* kPanel = "gqa";
  int model = 0;       // 0 = custom, else 1 + index into gqa_model_presets()
  int n_heads = 8;     // H (custom)
  int n_kv_heads = 2;  // KV (custom; snapped down to a divisor of H)
  int head_dim = 128;  // D (custom)
  int layers = 32;     // (custom)
  int seq_len = 4096;  // KV-cache curve end
  int batch = 1;
  int bytes_per_value = 2;       // 2 = fp16/bf16
  float head_similarity = 0.0f;  // toy layer: how alike the K/V heads are before pooling
  int group = 0;                 // which group's attention maps are shown (clamped)
  int toy_tokens = 10;
  int seed = 1;
};

// The model options: "custom", then every preset's name.
std::span<const char* const> gqa_model_options();

// The largest divisor of h that is ≤ kv (at least 1): the KV head count a custom shape uses.
int snap_kv_heads(int h, int kv);

// The preset's shape (or the custom one with KV snapped), the group clamped to the KV heads.
GqaParams params_of(const GqaSettings& s);

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(GqaSettings& s, F&& f) {
  f("model", s.model,
    OptionsSpec{gqa_model_options(), N_("model"),
                N_("A real model's attention shape from its Hugging Face config.json, or custom to use the sliders.")});
  f("n_heads", s.n_heads, IntSpec{1, 128, N_("n_heads $H$"), N_("Number of query heads.")});
  f("n_kv_heads", s.n_kv_heads,
    IntSpec{1, 128, N_("n_kv_heads $H_{kv}$"),
            N_("Number of key/value heads; it must divide n_heads, so other values snap down to a divisor.")});
  f("head_dim", s.head_dim,
    IntSpec{1, 512, N_("head_dim $D$"), N_("Size of each head's key and value vectors."), true});
  f("layers", s.layers, IntSpec{1, 128, N_("layers"), N_("Transformer layers; each keeps its own KV cache.")});
  f("seq_len", s.seq_len,
    IntSpec{1, 1048576, N_("sequence length"), N_("Tokens held in the cache (the right end of the memory plot)."),
            true});
  f("batch", s.batch,
    IntSpec{1, 512, N_("batch"), N_("Sequences decoded at once; the cache grows linearly with it."), true});
  f("bytes_per_value", s.bytes_per_value,
    IntSpec{1, 4, N_("bytes per value"), N_("Storage per cached number: 2 for fp16/bf16, 4 for fp32, 1 for int8.")});
  f("head_similarity", s.head_similarity,
    FloatSpec{0.0f, 1.0f, N_("head similarity $\\rho$"),
              N_("Toy layer: 0 gives independent key/value heads, 1 identical ones (which pool without loss)."), false,
              "%.2f"});
  f("group", s.group, IntSpec{0, 127, N_("group"), N_("Which KV group's query heads the attention maps show.")});
  f("toy_tokens", s.toy_tokens,
    IntSpec{2, 64, N_("toy tokens"), N_("Sequence length of the toy layer behind the error and the maps.")});
  f("seed", s.seed, SeedSpec{N_("Seed of the toy layer's input and weights.")});
}

}  // namespace tw
