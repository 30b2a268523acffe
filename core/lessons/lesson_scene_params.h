#pragma once
// Scene values → the parameters a panel hands to core, for lesson quantities: the same fields the panel binds
// (a float slider's value is rounded to float first, as the panel holds it). nullopt when a key is missing, has
// the wrong type or names an unknown option.
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/experiments/architectures.h"
#include "core/ops/sampling.h"

namespace tw {

// architectures.*: your own model (head_dim = d_model / heads, context 4096).
std::optional<ArchitectureConfig> architecture_of(const nlohmann::json& values);

// decoding.*: p's logits, p's temperature, and the sampling filters applied to p.
struct DecodingScene {
  std::vector<double> logits_p, logits_q;
  double temp_p = 1, temp_q = 1;
  SamplingConfig sampling;
  double loss = 0;  // the typed mean loss (nats)
};
std::optional<DecodingScene> decoding_scene_of(const nlohmann::json& values);

}  // namespace tw
