#pragma once
// Scene values → the parameters a panel hands to core, for lesson quantities: the same fields the panel binds
// (a float slider's value is rounded to float first, as the panel holds it). nullopt when a key is missing, has
// the wrong type or names an unknown option.
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/experiments/alibi_analysis.h"
#include "core/experiments/architectures.h"
#include "core/experiments/flash_walkthrough.h"
#include "core/experiments/gqa_analysis.h"
#include "core/experiments/moe_routing.h"
#include "core/ops/mask.h"
#include "core/ops/sampling.h"

namespace tw {

// gqa.*: a preset model's shape or the custom one (KV snapped down to a divisor of H, as the panel does).
std::optional<GqaParams> gqa_params_of(const nlohmann::json& values);

// masks.*: the AND-list of terms in the panel's order, and the stack for the receptive field.
struct MaskScene {
  std::vector<MaskTerm> terms;
  int T = 0;
  int layers = 0;
  int global_every = 0;
};
std::optional<MaskScene> mask_scene_of(const nlohmann::json& values);

// architectures.*: your own model (head_dim = d_model / heads, context 4096).
std::optional<ArchitectureConfig> architecture_of(const nlohmann::json& values);

// alibi.*
std::optional<AlibiParams> alibi_params_of(const nlohmann::json& values);

// moe.*
std::optional<MoeParams> moe_params_of(const nlohmann::json& values);

// flash.*
std::optional<FlashWalkParams> flash_params_of(const nlohmann::json& values);

// decoding.*: p's logits, p's temperature, and the sampling filters applied to p.
struct DecodingScene {
  std::vector<double> logits_p, logits_q;
  double temp_p = 1, temp_q = 1;
  SamplingConfig sampling;
  double loss = 0;  // the typed mean loss (nats)
};
std::optional<DecodingScene> decoding_scene_of(const nlohmann::json& values);

}  // namespace tw
