#include "core/model/forward_steps.h"

#include <sstream>

namespace tw {

const std::vector<StepRow>& forward_step_table() {
  // clang-format off
  static const std::vector<StepRow> rows = {
    {StepId::Embed,        "embed",         false, "Token embedding",          "x = E[tokens]",                  "T C"},
    {StepId::PosEmbed,     "pos_embed",     false, "Add learned positions",    "x = x + P[pos]",                 "T C"},
    {StepId::AttnNorm,     "attn_norm",     true,  "Attention RMSNorm",        "a = x / sqrt(mean(x²) + ε) · γ", "T C"},
    {StepId::Q,            "attn.q",        true,  "Query projection",         "q = a · W_qᵀ",                   "T H D"},
    {StepId::K,            "attn.k",        true,  "Key projection",           "k = a · W_kᵀ",                   "T KV D"},
    {StepId::V,            "attn.v",        true,  "Value projection",         "v = a · W_vᵀ",                   "T KV D"},
    {StepId::QRope,        "attn.q_rope",   true,  "Rotate queries (RoPE)",
     "q'[k], q'[k+D/2] = rotate(q[k], q[k+D/2]; pos · θ_k), θ_k = base^(−2k/D)",                              "T H D"},
    {StepId::KRope,        "attn.k_rope",   true,  "Rotate keys (RoPE)",
     "k'[k], k'[k+D/2] = rotate(k[k], k[k+D/2]; pos · θ_k)",                                                   "T KV D"},
    {StepId::Scores,       "attn.scores",   true,  "Attention scores",         "S = q · kᵀ / √D, −∞ where j > i", "H T T_k"},
    {StepId::Probs,        "attn.probs",    true,  "Attention probabilities",  "P = softmax(S) over each row",   "H T T_k"},
    {StepId::AttnOut,      "attn.out",      true,  "Weighted values",          "o_h = P_h · v_(h / n_rep)",      "T H D"},
    {StepId::Proj,         "attn.proj",     true,  "Output projection",        "y = o · W_oᵀ",                   "T C"},
    {StepId::AttnResidual, "attn.residual", true,  "Residual add (attention)", "h = x + y",                      "T C"},
    {StepId::MlpNorm,      "mlp_norm",      true,  "MLP RMSNorm",              "m = h / sqrt(mean(h²) + ε) · γ", "T C"},
    {StepId::Gate,         "mlp.gate",      true,  "Gate projection",          "g = m · W_gateᵀ",                "T F"},
    {StepId::Up,           "mlp.up",        true,  "Up projection",            "u = m · W_upᵀ",                  "T F"},
    {StepId::Hidden,       "mlp.hidden",    true,  "Activation (swiglu)",      "z = silu(g) ⊙ u, silu(g) = g · σ(g)", "T F"},
    {StepId::Down,         "mlp.down",      true,  "Down projection",          "d = z · W_downᵀ",                "T C"},
    {StepId::MlpResidual,  "mlp.residual",  true,  "Residual add (MLP)",       "x = h + d",                      "T C"},
    {StepId::FinalNorm,    "final_norm",    false, "Final RMSNorm",            "x_f = x / sqrt(mean(x²) + ε) · γ", "T C"},
    {StepId::Logits,       "logits",        false, "Logits",                   "logits = x_f · W_headᵀ",         "T V"},
  };
  // clang-format on
  return rows;
}

const StepRow& step_row(StepId id) { return forward_step_table()[static_cast<size_t>(id)]; }

std::vector<TraceDim> step_shape(const StepRow& row, const StepSizes& z) {
  std::vector<TraceDim> dims;
  std::istringstream symbols(row.shape);
  for (std::string s; symbols >> s;) {
    if (s == "T") dims.push_back({s, z.T, "tokens"});
    if (s == "T_k") dims.push_back({s, z.T_k, "keys"});
    if (s == "C") dims.push_back({s, z.C, "channels"});
    if (s == "H") dims.push_back({s, z.H, "query heads"});
    if (s == "KV") dims.push_back({s, z.KV, "kv heads"});
    if (s == "D") dims.push_back({s, z.D, "head dim"});
    if (s == "F") dims.push_back({s, z.F, "hidden"});
    if (s == "V") dims.push_back({s, z.V, "vocab"});
  }
  return dims;
}

}  // namespace tw
