#pragma once
// The GQA / MQA panel's settings as the user sets them (a published model's shape or a custom one) and the one
// function that turns them into GqaParams: the panel and the lessons both call it.
#include <span>
#include <vector>

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
  f("model", s.model, gqa_model_options());
  f("n_heads", s.n_heads);
  f("n_kv_heads", s.n_kv_heads);
  f("head_dim", s.head_dim);
  f("layers", s.layers);
  f("seq_len", s.seq_len);
  f("batch", s.batch);
  f("bytes_per_value", s.bytes_per_value);
  f("head_similarity", s.head_similarity);
  f("group", s.group);
  f("toy_tokens", s.toy_tokens);
  f("seed", s.seed);
}

}  // namespace tw
