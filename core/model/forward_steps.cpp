#include "core/model/forward_steps.h"

#include <sstream>

#include "core/base/i18n.h"

namespace tw {

const std::vector<StepRow>& forward_step_table() {
  // clang-format off
  static const std::vector<StepRow> rows = {
    {StepId::Embed,        "embed",         false, N_("Token embedding"),          "$x = E[\\mathrm{tokens}]$",                             "T C"},
    {StepId::PosEmbed,     "pos_embed",     false, N_("Add learned positions"),    "$x = x + P[\\mathrm{pos}]$",                            "T C"},
    {StepId::AttnNorm,     "attn_norm",     true,  N_("Attention RMSNorm"),
     "$a = x / \\sqrt{\\mathrm{mean}(x^2) + \\varepsilon} \\cdot \\gamma$",                                                 "T C"},
    {StepId::Q,            "attn.q",        true,  N_("Query projection"),         "$q = a W_q^\\top$",                                     "T H D"},
    {StepId::K,            "attn.k",        true,  N_("Key projection"),           "$k = a W_k^\\top$",                                     "T KV D"},
    {StepId::V,            "attn.v",        true,  N_("Value projection"),         "$v = a W_v^\\top$",                                     "T KV D"},
    {StepId::QNorm,        "attn.q_norm",   true,  N_("Query norm (per head, before RoPE)"),
     "$\\hat q_h = q_h / \\sqrt{\\mathrm{mean}(q_h^2) + \\varepsilon} \\cdot \\gamma_q$",                                        "T H D"},
    {StepId::KNorm,        "attn.k_norm",   true,  N_("Key norm (per head, before RoPE)"),
     "$\\hat k_g = k_g / \\sqrt{\\mathrm{mean}(k_g^2) + \\varepsilon} \\cdot \\gamma_k$",                                        "T KV D"},
    {StepId::QRope,        "attn.q_rope",   true,  N_("Rotate queries (RoPE)"),
     "$(q'_k, q'_{k+D/2}) = \\mathrm{rotate}(q_k, q_{k+D/2};\\, \\mathrm{pos} \\cdot \\theta_k)$, "
     "$\\theta_k = \\mathrm{base}^{-2k/D}$",                                                                                "T H D"},
    {StepId::KRope,        "attn.k_rope",   true,  N_("Rotate keys (RoPE)"),
     "$(k'_k, k'_{k+D/2}) = \\mathrm{rotate}(k_k, k_{k+D/2};\\, \\mathrm{pos} \\cdot \\theta_k)$",                          "T KV D"},
    {StepId::Scores,       "attn.scores",   true,  N_("Attention scores"),
     "$S = q k^\\top / \\sqrt{D}$, $S_{ij} = -\\infty$ $(j > i)$",                                                          "H T T_k"},
    {StepId::Probs,        "attn.probs",    true,  N_("Attention probabilities"),  "$P_{i,:} = \\mathrm{softmax}(S_{i,:})$",                "H T T_k"},
    {StepId::AttnOut,      "attn.out",      true,  N_("Weighted values"),          "$o_h = P_h v_{\\lfloor h / n_{rep} \\rfloor}$",         "T H D"},
    {StepId::Proj,         "attn.proj",     true,  N_("Output projection"),        "$y = o W_o^\\top$",                                     "T C"},
    {StepId::AttnPostNorm, "attn.post_norm", true, N_("Post-attention RMSNorm (sandwich)"),
     "$y' = y / \\sqrt{\\mathrm{mean}(y^2) + \\varepsilon} \\cdot (1 + \\gamma)$",                                            "T C"},
    {StepId::AttnResidual, "attn.residual", true,  N_("Residual add (attention)"), "$h = x + y$",                                          "T C"},
    {StepId::MlpNorm,      "mlp_norm",      true,  N_("MLP RMSNorm"),
     "$m = h / \\sqrt{\\mathrm{mean}(h^2) + \\varepsilon} \\cdot \\gamma$",                                                 "T C"},
    {StepId::RouterProbs,  "mlp.router_probs", true, N_("Router probabilities"),
     "$P = \\mathrm{softmax}(m W_r^\\top)$",                                                                             "T E"},
    {StepId::ExpertGates,  "mlp.expert_gates", true, N_("Expert gates (top-k)"),
     "$g_{t,e} = [e \\in C_t] \\, P_{t,e} / \\sum_{c \\in C_t} P_{t,c}$, $C_t = \\mathrm{top}_k(P_t)$",          "T E"},
    {StepId::ExpertLoad,   "mlp.expert_load", true, N_("Expert load"),
     "$n_e = \\sum_t [e \\in C_t]$",                                                                       "E"},
    {StepId::ExpertDropped, "mlp.expert_dropped", true, N_("Dropped assignments (capacity)"),
     "$\\mathrm{wanted}_e - n_e$, $n_e \\le \\lceil \\mathrm{cf} \\cdot T k / E \\rceil$",                              "E"},
    {StepId::Gate,         "mlp.gate",      true,  N_("Gate projection"),          "$g = m W_{gate}^\\top$",                                "T F"},
    {StepId::Up,           "mlp.up",        true,  N_("Up projection"),            "$u = m W_{up}^\\top$",                                  "T F"},
    {StepId::Hidden,       "mlp.hidden",    true,  N_("Activation (swiglu)"),
     "$z = \\mathrm{silu}(g) \\odot u$, $\\mathrm{silu}(g) = g \\, \\sigma(g)$",                                             "T F"},
    {StepId::Down,         "mlp.down",      true,  N_("Down projection"),          "$d = z W_{down}^\\top$",                                "T C"},
    {StepId::MlpPostNorm,  "mlp.post_norm", true,  N_("Post-MLP RMSNorm (sandwich)"),
     "$d' = d / \\sqrt{\\mathrm{mean}(d^2) + \\varepsilon} \\cdot (1 + \\gamma)$",                                            "T C"},
    {StepId::MlpResidual,  "mlp.residual",  true,  N_("Residual add (MLP)"),       "$x = h + d$",                                          "T C"},
    {StepId::FinalNorm,    "final_norm",    false, N_("Final RMSNorm"),
     "$x_f = x / \\sqrt{\\mathrm{mean}(x^2) + \\varepsilon} \\cdot \\gamma$",                                               "T C"},
    {StepId::Logits,       "logits",        false, N_("Logits"),                   "$\\mathrm{logits} = x_f W_{head}^\\top$",               "T V"},
  };
  // clang-format on
  return rows;
}

const StepRow& step_row(StepId id) { return forward_step_table()[static_cast<size_t>(id)]; }

std::vector<TraceDim> step_shape(const StepRow& row, const StepSizes& z) {
  std::vector<TraceDim> dims;
  std::istringstream symbols(row.shape);
  for (std::string s; symbols >> s;) {
    if (s == "T") dims.push_back({s, z.T, N_("tokens")});
    if (s == "T_k") dims.push_back({s, z.T_k, N_("keys")});
    if (s == "C") dims.push_back({s, z.C, N_("channels")});
    if (s == "H") dims.push_back({s, z.H, N_("query heads")});
    if (s == "KV") dims.push_back({s, z.KV, N_("kv heads")});
    if (s == "D") dims.push_back({s, z.D, N_("head dim")});
    if (s == "F") dims.push_back({s, z.F, N_("hidden")});
    if (s == "V") dims.push_back({s, z.V, N_("vocab")});
    if (s == "E") dims.push_back({s, z.E, N_("experts")});
  }
  return dims;
}

}  // namespace tw
