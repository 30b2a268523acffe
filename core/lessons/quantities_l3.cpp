// Lesson 3, what changed since GPT-2: quantities its exercises check (ALiBi, FlashAttention traffic, the KV
// cache, mixture of experts, sliding windows), each computed by the core function the panel calls.
#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiments/alibi_analysis.h"
#include "core/experiments/alibi_settings.h"
#include "core/experiments/family_steps.h"
#include "core/experiments/flash_settings.h"
#include "core/experiments/flash_walkthrough.h"
#include "core/experiments/gqa_analysis.h"
#include "core/experiments/gqa_settings.h"
#include "core/experiments/mask_analysis.h"
#include "core/experiments/mask_settings.h"
#include "core/experiments/moe_routing.h"
#include "core/experiments/moe_settings.h"
#include "core/lessons/lesson_quantity.h"
#include "core/lessons/scene_settings.h"

namespace tw {

namespace {

using Json = nlohmann::json;

// The largest share of attention any ALiBi head puts on keys at least train_len back (the slowest head's).
std::optional<double> alibi_most_beyond_train(const Json& v) {
  const std::optional<AlibiParams> p = scene_params<AlibiSettings>(v);
  if (!p) return std::nullopt;
  const AlibiAnalysis a = analyze_alibi(*p);
  if (!a.error.empty() || a.mass_beyond_train.empty()) return std::nullopt;
  return *std::max_element(a.mass_beyond_train.begin(), a.mass_beyond_train.end());
}

// The penalty m·100 the selected ALiBi head subtracts from the score of a key 100 positions back (the head control
// clamped to the head count, as the panel shows it).
std::optional<double> alibi_penalty_at_100(const Json& v) {
  const std::optional<AlibiParams> p = scene_params<AlibiSettings>(v);
  if (!p) return std::nullopt;
  const AlibiAnalysis a = analyze_alibi(*p);
  if (!a.error.empty() || p->head < 0 || p->head >= static_cast<int>(a.slopes.size())) return std::nullopt;
  return 100.0 * a.slopes[static_cast<size_t>(p->head)];
}

// How many times fewer floats the tiled kernel moves than standard attention, for the panel's T and D.
std::optional<double> flash_traffic_saving(const Json& v) {
  const std::optional<FlashWalkParams> p = scene_params<FlashSettings>(v);
  if (!p) return std::nullopt;
  const double tiled = tiled_attention_floats(p->T, p->D, p->tile_q, p->tile_k, p->causal);
  if (tiled <= 0) return std::nullopt;
  return standard_attention_floats(p->T, p->D) / tiled;
}

// The KV cache of the GQA panel's current grouping per token of one sequence, in bytes.
std::optional<double> gqa_bytes_per_token(const Json& v) {
  const std::optional<GqaParams> p = scene_params<GqaSettings>(v);
  if (!p || p->seq_len < 1 || p->batch < 1) return std::nullopt;
  return static_cast<double>(analyze_gqa(*p).bytes_gqa_at) / (static_cast<double>(p->seq_len) * p->batch);
}

// Token-to-expert assignments the MoE panel's experts turned away (over capacity).
std::optional<double> moe_dropped(const Json& v) {
  const std::optional<MoeParams> p = scene_params<MoeSettings>(v);
  if (!p) return std::nullopt;
  return moe_experiment(*p).n_dropped;
}

// Parameters one token uses as a share of all the MoE layer's parameters.
std::optional<double> moe_active_share(const Json& v) {
  const std::optional<MoeParams> p = scene_params<MoeSettings>(v);
  if (!p) return std::nullopt;
  const MoeRouting r = moe_experiment(*p);
  if (r.total_params <= 0) return std::nullopt;
  return static_cast<double>(r.active_params) / static_cast<double>(r.total_params);
}

// After the whole stack: how far back (in positions) the last query has heard from.
std::optional<double> masks_last_query_reach(const Json& v) {
  const std::optional<MasksSettings> m = read_scene_settings<MasksSettings>(v);
  if (!m) return std::nullopt;
  const ReceptiveField f = receptive_field(terms_of(*m), m->T, m->layers, m->global_every);
  if (!f.error.empty() || f.last_query_reach.empty()) return std::nullopt;
  return f.last_query_reach.back();
}

// How many of the steps (the model's own and block 0's) the LLaMA-shaped model computes differently from the
// GPT-2-shaped one, or that only one of them has: the rows the stepper's Families figure colours. The two
// shapes are fixed, so no scene value enters; the values must still be the forward stepper's (its view control).
std::optional<double> forward_family_steps_changed(const Json& v) {
  if (!lesson_text(v, "forward.tab")) return std::nullopt;
  const FamilyComparison cmp = compare_family_steps(gpt2_shaped_config(), llama_shaped_config());
  if (!cmp.error.empty()) return std::nullopt;
  return cmp.changed();
}

}  // namespace

std::vector<LessonQuantity> lesson_3_quantities() {
  return {
      {"alibi.most_beyond_train", alibi_most_beyond_train,
       "largest attention share any ALiBi head puts on keys at distance >= train_len (last query)"},
      {"alibi.penalty_at_100", alibi_penalty_at_100,
       "penalty 100*m the selected ALiBi head subtracts from a key 100 positions back"},
      {"flash.traffic_saving", flash_traffic_saving,
       "floats standard attention moves divided by floats the tiled kernel moves (one head)"},
      {"gqa.bytes_per_token", gqa_bytes_per_token, "KV-cache bytes of the current grouping per token of a sequence"},
      {"moe.dropped", moe_dropped, "token-to-expert assignments dropped because an expert was full"},
      {"moe.active_share", moe_active_share, "parameters one token uses divided by all the layer's parameters"},
      {"masks.last_query_reach", masks_last_query_reach,
       "how many positions back the last query has heard from after all the stacked layers"},
      {"forward.family_steps_changed", forward_family_steps_changed,
       "steps the LLaMA-shaped model computes differently from the GPT-2-shaped one, or that only one has"},
  };
}

}  // namespace tw
