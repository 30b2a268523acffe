#include "core/experiments/gqa_settings.h"

#include <algorithm>

#include "core/ops/gqa.h"

namespace tw {

std::span<const char* const> gqa_model_options() {
  static const std::vector<const char*> options = [] {
    std::vector<const char*> o = {"custom"};
    for (const GqaModelPreset& m : gqa_model_presets()) o.push_back(m.name);
    return o;
  }();
  return options;
}

int snap_kv_heads(int h, int kv) {
  int best = 1;
  for (int d : valid_kv_head_counts(h))
    if (d <= kv) best = d;
  return best;
}

GqaParams params_of(const GqaSettings& s) {
  GqaParams p;
  const auto& presets = gqa_model_presets();
  if (s.model > 0 && s.model <= static_cast<int>(presets.size())) {
    const GqaModelPreset& m = presets[static_cast<size_t>(s.model - 1)];
    p.n_heads = m.n_heads;
    p.n_kv_heads = m.n_kv_heads;
    p.head_dim = m.head_dim;
    p.layers = m.layers;
    p.hidden = m.hidden;
  } else {
    p.n_heads = std::max(1, s.n_heads);
    p.n_kv_heads = snap_kv_heads(p.n_heads, s.n_kv_heads);
    p.head_dim = s.head_dim;
    p.layers = s.layers;
    p.hidden = 0;
  }
  p.seq_len = s.seq_len;
  p.batch = s.batch;
  p.bytes_per_value = s.bytes_per_value;
  p.toy_tokens = s.toy_tokens;
  p.head_similarity = s.head_similarity;
  p.group = std::clamp(s.group, 0, p.n_kv_heads - 1);
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

}  // namespace tw
