// ForwardState → ModelConfig: the preset or custom sizes, then the architecture toggles.
#include "core/ops/gqa.h"
#include "views/forward/forward_state.h"

namespace tw {

ModelConfig forward_config(const ForwardState& s, std::vector<std::string>* problems) {
  ModelConfig c = s.model == ForwardModel_Small ? small_config() : tiny_config();
  if (s.model == ForwardModel_Custom) {
    c.dim = s.dim;
    c.n_layers = s.n_layers;
    c.n_heads = s.n_heads;
    c.hidden = s.hidden;
    c.vocab = s.vocab;
    c.max_seq = s.max_seq;
  }
  c.norm = static_cast<NormType>(s.norm);
  c.placement = static_cast<NormPlacement>(s.placement);
  c.positions = static_cast<PositionType>(s.positions);
  c.activation = static_cast<ActivationKind>(s.activation);
  c.attention = s.pattern == ForwardPattern_Full ? AttentionPattern::Full : AttentionPattern::Sliding;
  c.window = s.pattern == ForwardPattern_Full ? 0 : s.window;
  c.full_every = s.pattern == ForwardPattern_Interleaved ? s.full_every : 0;

  std::vector<std::string> messages;
  // The ratio is the control; n_kv_heads follows from it. A ratio that does not divide n_heads would silently
  // round, so it is refused with the ratios that work.
  if (s.gqa_ratio >= 1 && c.n_heads >= 1 && c.n_heads % s.gqa_ratio == 0) {
    c.n_kv_heads = c.n_heads / s.gqa_ratio;
  } else {
    std::string valid;
    for (int kv : valid_kv_head_counts(c.n_heads))
      valid += (valid.empty() ? "" : ", ") + std::to_string(c.n_heads / kv);
    messages.push_back("gqa_ratio " + std::to_string(s.gqa_ratio) + " must divide n_heads " +
                       std::to_string(c.n_heads) + (valid.empty() ? "" : " (possible: " + valid + ")"));
    c.n_kv_heads = 1;
  }
  if (s.pattern == ForwardPattern_Interleaved && s.full_every < 1)
    messages.push_back("full_every must be at least 1 for interleaved attention (every P-th layer is full)");
  for (std::string& m : validate(c)) messages.push_back(std::move(m));
  if (problems) *problems = std::move(messages);
  return c;
}

SamplingConfig sampling_config(const ForwardState& s) {
  SamplingConfig c;
  c.temperature = s.temperature;
  c.top_k = s.top_k;
  c.top_p = s.top_p;
  return c;
}

}  // namespace tw
