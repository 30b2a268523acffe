#include "core/model/forward.h"

#include <cmath>
#include <sstream>
#include <utility>

#include "core/base/i18n.h"
#include "core/compare.h"
#include "core/model/forward_steps.h"
#include "core/model/hf_layout.h"
#include "core/model/model_pass.h"

namespace tw {

// [SECTION] cost model
// FLOPs count a multiply-add as 2 and exp, tanh, erf, sqrt as 1 each. Bytes assume every input, weight and
// output is read or written once as float32: the traffic of an ideal kernel, not of this CPU code.
namespace {

constexpr double kF = 4.0;  // bytes per float

double norm_flops(const ModelConfig& c, double T) { return (c.norm == NormType::RMSNorm ? 4.0 : 7.0) * T * c.dim; }
double norm_bytes(const ModelConfig& c, double T) {
  return kF * (2.0 * T * c.dim + (c.norm == NormType::RMSNorm ? 1.0 : 2.0) * c.dim);
}
double linear_flops(double T, double in, double out) { return 2.0 * T * in * out; }
double linear_bytes(double T, double in, double out) { return kF * (T * in + in * out + T * out); }
double rope_flops(double T, double heads, double D) { return 3.0 * T * heads * D; }  // a·cos − b·sin per value
double rope_bytes(double T, double heads, double D) { return kF * (2.0 * T * heads * D + T * D); }
double act_flops(const ModelConfig& c, double T) {
  // SiLU x·σ(x): 4 (neg, exp, add, div) + 1 mul; GELU (erf form): 5; ReLU: 1; the GLUs add the ⊙ up.
  const double per = c.activation == ActivationKind::ReLU ? 1.0 : 5.0;
  return (per + (c.gated() ? 1.0 : 0.0)) * T * c.hidden;
}

// Every step's FLOPs and bytes, in trace order, for a pass of T new tokens over T_k keys. forward() records
// these numbers and forward_flops() sums them, so the two cannot disagree.
struct StepCost {
  double flops = 0, bytes = 0;
};
struct BlockCosts {
  StepCost norm, q, k, v, q_rope, k_rope, scores, probs, out, proj, residual, gate, up, act, down;
  StepCost router, moe;  // MoE configs: router logits + softmax; k expert MLPs per token and the gated sum
};
BlockCosts block_costs(const ModelConfig& c, double T, double Tk) {
  const double C = c.dim, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim(), F = c.hidden;
  BlockCosts b;
  b.norm = {norm_flops(c, T), norm_bytes(c, T)};
  b.q = {linear_flops(T, C, H * D), linear_bytes(T, C, H * D)};
  b.k = {linear_flops(T, C, KV * D), linear_bytes(T, C, KV * D)};
  b.v = b.k;
  b.q_rope = {rope_flops(T, H, D), rope_bytes(T, H, D)};
  b.k_rope = {rope_flops(T, KV, D), rope_bytes(T, KV, D)};
  // Counted over every (query, key) cell, masked or not (the kernels skip the blocked ones, a causal pass about
  // half); scale (+ bias) is one more op each.
  const double bias = c.positions == PositionType::ALiBi ? 1.0 : 0.0;
  b.scores = {H * T * Tk * (2.0 * D + 1.0 + bias), kF * (T * H * D + Tk * KV * D + H * T * Tk)};
  b.probs = {5.0 * H * T * Tk, kF * 2.0 * H * T * Tk};  // max, subtract, exp, sum, divide
  b.out = {2.0 * H * T * Tk * D, kF * (H * T * Tk + Tk * KV * D + T * H * D)};
  b.proj = {linear_flops(T, H * D, C), linear_bytes(T, H * D, C)};
  b.residual = {T * C, kF * 3.0 * T * C};
  b.gate = {linear_flops(T, C, F), linear_bytes(T, C, F)};
  b.up = b.gate;
  b.act = {act_flops(c, T), kF * ((c.gated() ? 3.0 : 2.0) * T * F)};
  b.down = {linear_flops(T, F, C), linear_bytes(T, F, C)};
  if (c.moe()) {
    const double E = c.experts, k = c.top_k, mats = c.gated() ? 3.0 : 2.0;
    b.router = {linear_flops(T, C, E) + 5.0 * T * E, linear_bytes(T, C, E) + kF * T * E};
    b.moe = {k * mats * linear_flops(T, C, F) + act_flops(c, T * k) + 2.0 * T * k * C,
             kF * (2.0 * T * C + E * mats * C * F + 2.0 * T * k * F)};
  }
  return b;
}

// [SECTION] trace helpers

// Records steps of one layer (or of the model when layer = -1) under a dotted prefix: name, shape and the default
// title and formula come from the step table (core/model/forward_steps.h); a config's variant is passed in.
struct Recorder {
  Trace* trace;
  int layer;
  std::string prefix;  // "layers.0." or ""
  StepSizes sizes;

  bool on() const { return trace && trace->enabled(); }
  std::string name(StepId id) const { return prefix + step_row(id).name; }
  // The value is taken over: the pass that made it is done with it.
  void operator()(StepId id, std::vector<std::string> inputs, Mat&& value, StepCost cost, std::string title = {},
                  std::string formula = {}) const {
    if (!on()) return;
    const StepRow& row = step_row(id);
    trace->record(prefix + row.name, title.empty() ? row.title : std::move(title),
                  formula.empty() ? row.formula : std::move(formula), std::move(inputs), std::move(value),
                  step_shape(row, sizes), layer, cost.flops, cost.bytes);
  }
};

// Step titles that name the norm kind: whole literals, so each is one catalogue entry (views show tr(title)).
enum class NormStep { Attention, PostAttention, Mlp, PostMlp, Final };
const char* norm_title(const ModelConfig& c, NormStep step) {
  const bool rms = c.norm == NormType::RMSNorm;
  switch (step) {
    case NormStep::Attention: return rms ? N_("Attention RMSNorm") : N_("Attention LayerNorm");
    case NormStep::PostAttention: return rms ? N_("Post-attention RMSNorm") : N_("Post-attention LayerNorm");
    case NormStep::Mlp: return rms ? N_("MLP RMSNorm") : N_("MLP LayerNorm");
    case NormStep::PostMlp: return rms ? N_("Post-MLP RMSNorm") : N_("Post-MLP LayerNorm");
    case NormStep::Final: return rms ? N_("Final RMSNorm") : N_("Final LayerNorm");
  }
  return "";
}

std::string norm_formula(const ModelConfig& c, const std::string& out, const std::string& in) {
  const std::string gamma = c.norm_plus_one ? "(1 + \\gamma)" : "\\gamma";  // Gemma scales by 1 + γ
  return c.norm == NormType::RMSNorm
             ? "$" + out + " = " + in + " / \\sqrt{\\mathrm{mean}(" + in + "^2) + \\varepsilon} \\cdot " + gamma + "$"
             : "$" + out + " = (" + in +
                   " - \\mathrm{mean}) / \\sqrt{\\mathrm{var} + \\varepsilon} \\cdot \\gamma + \\beta$";
}

// [SECTION] trace from the pass's activations
// forward_cached() runs the one pass (core/model/model_pass.h) and then, when a Trace is wanted, walks the step
// table in trace order recording each step from the tensor the pass kept: no step is computed twice.

// The score formula of a layer, as math (the same in every language): QK-norm, the scale, soft-capping, ALiBi's
// bias, then the mask.
std::string score_formula(const ModelConfig& c, bool sliding_layer) {
  std::string f = c.qk_norm ? "\\mathrm{RMSNorm}(q) \\, \\mathrm{RMSNorm}(k)^\\top" : "q k^\\top";
  if (c.query_scale > 0)  // Gemma: query_pre_attn_scalar^(-1/2) instead of 1/√D
    f += " / \\sqrt{" + std::to_string(std::lround(1.0 / (double(c.query_scale) * c.query_scale))) + "}";
  else
    f += c.attn_scale == ScaleMode::InvSqrtDk ? " / \\sqrt{D}" : c.attn_scale == ScaleMode::InvDk ? " / D" : "";
  if (c.attn_softcap > 0) f = "c \\tanh((" + f + ") / c)";
  if (c.positions == PositionType::ALiBi) f += " - m_h (i - j)";
  f = "$S = " + f + "$, ";
  f += sliding_layer ? "$S_{ij} = -\\infty$ $(i - j \\notin [0, " + std::to_string(c.window) + "))$"
                     : "$S_{ij} = -\\infty$ $(j > i)$";
  return f;
}

const char* activation_title_of(ActivationKind a) {
  return a == ActivationKind::SwiGLU  ? N_("Activation (swiglu)")
         : a == ActivationKind::GeGLU ? N_("Activation (geglu)")
         : a == ActivationKind::GELU  ? N_("Activation (gelu)")
                                      : N_("Activation (relu)");
}
const char* activation_formula_of(ActivationKind a) {
  return a == ActivationKind::SwiGLU  ? "$z = \\mathrm{silu}(g) \\odot u$, $\\mathrm{silu}(g) = g \\, \\sigma(g)$"
         : a == ActivationKind::GeGLU ? "$z = \\mathrm{gelu}(g) \\odot u$, $\\mathrm{gelu}(g) = g \\, \\Phi(g)$"
         : a == ActivationKind::GELU  ? "$z = \\mathrm{gelu}(u) = u \\, \\Phi(u)$"
                                      : "$z = \\max(0, u)$";
}

// GELU's tanh form (GPT-2's gelu_new, Gemma's gelu_pytorch_tanh) is a different function from the erf form:
// its own title and formula.
const char* activation_title(const ModelConfig& c) {
  if (c.gelu_tanh && c.activation == ActivationKind::GELU) return N_("Activation (gelu, tanh form)");
  if (c.gelu_tanh && c.activation == ActivationKind::GeGLU) return N_("Activation (geglu, tanh form)");
  return activation_title_of(c.activation);
}
const char* activation_formula(const ModelConfig& c) {
  constexpr const char* tanh_gelu =
      "$\\mathrm{gelu}(u) = \\tfrac{1}{2} u (1 + \\tanh(\\sqrt{2/\\pi}\\,(u + 0.044715 u^3)))$";
  if (c.gelu_tanh && c.activation == ActivationKind::GELU) return tanh_gelu;
  if (c.gelu_tanh && c.activation == ActivationKind::GeGLU)
    return "$z = \\mathrm{gelu}(g) \\odot u$, "
           "$\\mathrm{gelu}(g) = \\tfrac{1}{2} g (1 + \\tanh(\\sqrt{2/\\pi}\\,(g + 0.044715 g^3)))$";
  return activation_formula_of(c.activation);
}

std::string number(float v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A projection step's weight as the checkpoint names it, and, where the family fuses or transposes it, the title
// and formula of the split. `part` is the block of the fused tensor (q 0, k 1, v 2; gate 0, up 1), -1 for none.
struct Projection {
  std::string weight, title, formula;
};
Projection projection(const ModelConfig& c, const std::string& p, const std::string& module, int part) {
  Projection r;
  const std::string name = p + module + ".weight";
  const HfSource s = hf_source(c, name, {1, 1}, "");
  r.weight = c.family == Family::GPT2 || c.family == Family::Phi3 ? s.name : name;
  static const char* gpt2_titles[] = {N_("Query projection (part 1 of the fused c_attn)"),
                                      N_("Key projection (part 2 of the fused c_attn)"),
                                      N_("Value projection (part 3 of the fused c_attn)")};
  static const char* phi3_titles[] = {N_("Query projection (rows of the fused qkv_proj)"),
                                      N_("Key projection (rows of the fused qkv_proj)"),
                                      N_("Value projection (rows of the fused qkv_proj)")};
  static const char* gpt2_split[] = {"$[q \\, k \\, v] = a W_{attn} + b_{attn}$, $q = [\\,]_{:, 0:C}$",
                                     "$[q \\, k \\, v] = a W_{attn} + b_{attn}$, $k = [\\,]_{:, C:2C}$",
                                     "$[q \\, k \\, v] = a W_{attn} + b_{attn}$, $v = [\\,]_{:, 2C:3C}$"};
  const bool qkv = module.compare(0, 10, "self_attn.") == 0 && part >= 0;
  if (c.family == Family::GPT2 && qkv) {
    r.title = gpt2_titles[part];
    r.formula = gpt2_split[part];
  } else if (c.family == Family::GPT2) {  // Conv1D: x W + b with W stored (in, out)
    r.formula = module == "self_attn.o_proj" ? "$y = o W_{proj} + b_{proj}$"
                : module == "mlp.up_proj"    ? "$u = m W_{fc} + b_{fc}$"
                                             : "$d = z W_{proj} + b_{proj}$";
  } else if (c.family == Family::Phi3 && qkv) {
    r.title = phi3_titles[part];
    r.formula = "$[q \\, k \\, v] = a W_{qkv}^\\top$, $W_{qkv}: (H + 2 H_{kv}) D \\times C$";
  } else if (c.family == Family::Phi3 && part >= 0) {
    r.title = part == 0 ? N_("Gate projection (first half of the fused gate_up_proj)")
                        : N_("Up projection (second half of the fused gate_up_proj)");
    r.formula = "$[g \\, u] = m W_{gate\\_up}^\\top$, $W_{gate\\_up}: 2F \\times C$";
  }
  return r;
}

// A tensor as the family's checkpoint names it (GPT-2: h.0.ln_1.weight for model.layers.0.input_layernorm.weight).
std::string hf_name(const ModelConfig& c, const std::string& name) {
  return c.family == Family::GPT2 ? hf_source(c, name, {1}, "").name : name;
}

// The MLP norm's tensor: Gemma 3 calls it pre_feedforward_layernorm (its post_attention_layernorm is the sandwich
// norm); GPT-2 ln_2.
std::string mlp_norm_name(const ModelConfig& c, const std::string& p) {
  if (c.family == Family::Gemma3) return p + "pre_feedforward_layernorm.weight";
  return hf_name(c, p + "post_attention_layernorm.weight");
}

// A mixture-of-experts MLP's routing as steps: router probabilities, the gates of the chosen experts, each
// expert's load and its drops, then the gated sum of the experts' outputs.
void record_moe(const Recorder& rec, LayerActs<float>& L, const ModelConfig& c, const std::string& m_name,
                const std::string& p, const BlockCosts& cost, int T) {
  const int E = c.experts, k = c.top_k;
  const MoeRoute& r = L.moe.route;
  rec(StepId::RouterProbs, {m_name, p + "block_sparse_moe.gate.weight"}, std::move(L.moe.probs), cost.router);
  Mat gates = Mat::Zero(T, E);  // (T, E): dense view of the k gates per token, 0 where dropped
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < k; ++j) gates(t, r.choice[size_t(t * k + j)]) = L.moe.gates[size_t(t * k + j)];
  rec(StepId::ExpertGates, {rec.name(StepId::RouterProbs)}, std::move(gates), {2.0 * T * E, kF * 2.0 * T * E});
  Mat load(1, E), dropped(1, E);
  for (int e = 0; e < E; ++e) {
    load(0, e) = float(r.load[size_t(e)]);
    dropped(0, e) = float(r.wanted[size_t(e)] - r.load[size_t(e)]);
  }
  rec(StepId::ExpertLoad, {rec.name(StepId::ExpertGates)}, std::move(load), {double(T) * k, kF * E});
  rec(StepId::ExpertDropped, {rec.name(StepId::ExpertGates)}, std::move(dropped), {double(E), kF * E});
  rec(StepId::Down, {m_name, rec.name(StepId::ExpertGates), p + "block_sparse_moe.experts"}, std::move(L.down),
      cost.moe, N_("Mixture of experts output"), "$d_t = \\sum_e g_{t,e} \\, \\mathrm{Expert}_e(m_t)$");
}

// Token embedding x = E[tokens], then absolute positions (learned or sinusoidal) added once.
void record_embedding(const Recorder& model_rec, Acts<float>& a, const ModelConfig& c, int T) {
  const int C = c.dim;
  const bool absolute = c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal;
  const bool gpt2 = c.family == Family::GPT2;
  model_rec(StepId::Embed, {"tokens", gpt2 ? "wte.weight" : "model.embed_tokens.weight"},
            std::move(absolute ? a.embed : a.xs[0]), {0, kF * (2.0 * T * C) + 4.0 * T},
            c.embed_scale > 0 ? N_("Token embedding, scaled") : "",
            c.embed_scale > 0
                ? "$x = E[\\mathrm{tokens}] \\cdot \\sqrt{C}$, $\\sqrt{C} \\approx " + number(c.embed_scale) + "$"
                : "");
  if (!absolute) return;
  const bool learned = c.positions == PositionType::Learned;
  model_rec(StepId::PosEmbed,
            {"embed", gpt2      ? "wpe.weight"
                      : learned ? "model.embed_positions.weight"
                                : "PE"},
            std::move(a.xs[0]), {double(T) * C, kF * 3.0 * T * C}, learned ? "" : N_("Add sinusoidal positions"),
            learned ? ""
                    : "$x = x + PE(\\mathrm{pos})$, $PE(p, 2i) = \\sin(p / 10000^{2i/C})$, "
                      "$PE(p, 2i+1) = \\cos(p / 10000^{2i/C})$");
}

// q and k turned by RoPE (after Qwen3's and Gemma 3's per-head norms when the model has them).
void record_rope(const Recorder& rec, LayerActs<float>& L, const ModelConfig& c, const std::string& p,
                 const BlockCosts& cost, int l, int T) {
  const bool qk_first = c.qk_norm && c.qk_norm_before_rope;
  if (qk_first) {  // Qwen3, Gemma 3: per-head RMSNorm of q and k, then RoPE turns the normalised vectors
    const StepCost qn{norm_flops(c, T) * c.n_heads * c.head_dim() / c.dim, 0},
        kn{norm_flops(c, T) * c.n_kv_heads * c.head_dim() / c.dim, 0};
    rec(StepId::QNorm, {rec.name(StepId::Q), p + "self_attn.q_norm.weight"}, std::move(L.qn), qn, "",
        c.norm_plus_one ? "$\\hat q_h = q_h / \\sqrt{\\mathrm{mean}(q_h^2) + \\varepsilon} \\cdot (1 + \\gamma_q)$"
                        : "");
    rec(StepId::KNorm, {rec.name(StepId::K), p + "self_attn.k_norm.weight"}, std::move(L.kn), kn, "",
        c.norm_plus_one ? "$\\hat k_g = k_g / \\sqrt{\\mathrm{mean}(k_g^2) + \\varepsilon} \\cdot (1 + \\gamma_k)$"
                        : "");
  }
  const bool local = c.rope_local_base > 0 && c.layer_is_sliding(l);
  // Partial rotary (Phi-3) turns the first R dims; Gemma 3's local layers rotate with their own base.
  const std::string rot =
      c.rotary_dim() < c.head_dim()
          ? "$q'_{0..R-1} = \\mathrm{rotate}(q_{0..R-1};\\, \\mathrm{pos} \\cdot \\theta_k)$, $\\theta_k = "
            "\\mathrm{base}^{-2k/R}$, $R = " +
                std::to_string(c.rotary_dim()) + " < D = " + std::to_string(c.head_dim()) + "$"
      : local ? "$(q'_k, q'_{k+D/2}) = \\mathrm{rotate}(q_k, q_{k+D/2};\\, \\mathrm{pos} \\cdot \\theta_k)$, "
                "$\\theta_k = " +
                    std::to_string(static_cast<long long>(c.rope_local_base)) + "^{-2k/D}$"
              : "";
  rec(StepId::QRope, {rec.name(qk_first ? StepId::QNorm : StepId::Q)}, std::move(L.q), cost.q_rope,
      local ? N_("Rotate queries (RoPE, local base)") : "", rot);
  rec(StepId::KRope, {rec.name(qk_first ? StepId::KNorm : StepId::K)}, std::move(L.k), cost.k_rope);
}

// Attention half of block l: norm (pre), projections, RoPE, scores, probabilities, P V, W_o, residual, norm
// (post). x_name is the block's input step; returns the step the MLP half adds its residual to.
std::string record_attention_half(const Recorder& rec, LayerActs<float>& L, const ModelConfig& c, const std::string& p,
                                  const std::string& x_name, const BlockCosts& cost, int l, int T) {
  const bool pre = c.placement == NormPlacement::Pre;
  const bool rope = c.positions == PositionType::RoPE;
  if (pre)
    rec(StepId::AttnNorm, {x_name, hf_name(c, p + "input_layernorm.weight")}, std::move(L.ln1), cost.norm,
        norm_title(c, NormStep::Attention), norm_formula(c, "a", "x"));
  const std::string a_name = pre ? rec.name(StepId::AttnNorm) : x_name;
  // GPT-2 (c_attn) and Phi-3 (qkv_proj) compute q, k and v in one fused product; each step is its part.
  const Projection qp = projection(c, p, "self_attn.q_proj", 0), kp = projection(c, p, "self_attn.k_proj", 1),
                   vp = projection(c, p, "self_attn.v_proj", 2);
  rec(StepId::Q, {a_name, qp.weight}, std::move(rope ? L.q_pre : L.q), cost.q, qp.title, qp.formula);
  rec(StepId::K, {a_name, kp.weight}, std::move(rope ? L.k_pre : L.k), cost.k, kp.title, kp.formula);
  rec(StepId::V, {a_name, vp.weight}, std::move(L.v), cost.v, vp.title, vp.formula);
  if (rope) record_rope(rec, L, c, p, cost, l, T);
  const bool sliding_layer = c.layer_is_sliding(l);
  rec(StepId::Scores, {rec.name(rope ? StepId::QRope : StepId::Q), rec.name(rope ? StepId::KRope : StepId::K)},
      std::move(L.scores), cost.scores, sliding_layer ? N_("Attention scores (sliding window)") : "",
      score_formula(c, sliding_layer));
  rec(StepId::Probs, {rec.name(StepId::Scores)}, std::move(L.probs), cost.probs);
  rec(StepId::AttnOut, {rec.name(StepId::Probs), rec.name(StepId::V)}, std::move(L.att), cost.out);
  const Projection op = projection(c, p, "self_attn.o_proj", -1);
  rec(StepId::Proj, {rec.name(StepId::AttnOut), op.weight}, std::move(L.proj), cost.proj, op.title, op.formula);
  std::string y_name = rec.name(StepId::Proj);
  if (c.sandwich_norm) {
    rec(StepId::AttnPostNorm, {y_name, p + "post_attention_layernorm.weight"}, std::move(L.proj_n), cost.norm);
    y_name = rec.name(StepId::AttnPostNorm);
  }
  rec(StepId::AttnResidual, {x_name, y_name}, std::move(L.h), cost.residual);
  std::string h_name = rec.name(StepId::AttnResidual);
  if (!pre) {
    rec(StepId::AttnNorm, {h_name, p + "input_layernorm.weight"}, std::move(L.ln1), cost.norm,
        norm_title(c, NormStep::PostAttention), norm_formula(c, "h", "(x + y)"));
    h_name = rec.name(StepId::AttnNorm);
  }
  return h_name;
}

// MLP half of block l: norm (pre; a parallel block's reads x), the MLP or the experts, residual, norm (post).
// `out` is the block's output activation.
void record_mlp_half(const Recorder& rec, LayerActs<float>& L, Mat& out, const ModelConfig& c, const std::string& p,
                     const std::string& x_name, const std::string& h_name, const BlockCosts& cost, int T) {
  const bool pre = c.placement == NormPlacement::Pre;
  if (pre)
    rec(StepId::MlpNorm, {c.parallel_block ? x_name : h_name, mlp_norm_name(c, p)}, std::move(L.ln2), cost.norm,
        norm_title(c, NormStep::Mlp), norm_formula(c, "m", c.parallel_block ? "x" : "h"));
  const std::string m_name = pre ? rec.name(StepId::MlpNorm) : h_name;
  if (c.moe()) {
    record_moe(rec, L, c, m_name, p, cost, T);
  } else {
    const Projection gp = projection(c, p, "mlp.gate_proj", 0), up = projection(c, p, "mlp.up_proj", 1),
                     dp = projection(c, p, "mlp.down_proj", -1);
    if (c.gated()) rec(StepId::Gate, {m_name, gp.weight}, std::move(L.gate), cost.gate, gp.title, gp.formula);
    rec(StepId::Up, {m_name, up.weight}, std::move(L.up), cost.up, up.title, up.formula);
    rec(StepId::Hidden,
        c.gated() ? std::vector<std::string>{rec.name(StepId::Gate), rec.name(StepId::Up)}
                  : std::vector<std::string>{rec.name(StepId::Up)},
        std::move(L.hid), cost.act, activation_title(c), activation_formula(c));
    rec(StepId::Down, {rec.name(StepId::Hidden), dp.weight}, std::move(L.down), cost.down, dp.title, dp.formula);
  }
  std::string d_name = rec.name(StepId::Down);
  if (c.sandwich_norm) {
    rec(StepId::MlpPostNorm, {d_name, p + "post_feedforward_layernorm.weight"}, std::move(L.down_n), cost.norm);
    d_name = rec.name(StepId::MlpPostNorm);
  }
  rec(StepId::MlpResidual, {h_name, d_name}, std::move(pre ? out : L.res2), cost.residual);
  if (!pre)
    rec(StepId::MlpNorm, {rec.name(StepId::MlpResidual), p + "post_attention_layernorm.weight"}, std::move(out),
        cost.norm, norm_title(c, NormStep::PostMlp), norm_formula(c, "x", "(h + d)"));
}

// Final norm (pre-norm only: a post-norm block already ends in a norm), then the logits.
void record_head(const Recorder& model_rec, Acts<float>& a, const ModelConfig& c, int T) {
  const int C = c.dim, V = c.vocab;
  const bool pre = c.placement == NormPlacement::Pre;
  const std::string last = "layers." + std::to_string(c.n_layers - 1) + (pre ? ".mlp.residual" : ".mlp_norm");
  if (c.has_final_norm())
    model_rec(StepId::FinalNorm, {last, hf_name(c, "model.norm.weight")}, std::move(a.xf),
              {norm_flops(c, T), norm_bytes(c, T)}, norm_title(c, NormStep::Final), norm_formula(c, "x_f", "x"));
  model_rec(
      StepId::Logits,
      {c.has_final_norm() ? "final_norm" : last, c.tie_embeddings ? "model.embed_tokens.weight" : "lm_head.weight"},
      std::move(a.logits), {linear_flops(T, C, V), linear_bytes(T, C, V)}, "",
      c.final_softcap > 0
          ? "$\\mathrm{logits} = c \\tanh(x_f W_{head}^\\top / c)$, $c = " + number(c.final_softcap) + "$"
      : c.tie_embeddings ? "$\\mathrm{logits} = x_f E^\\top$ $(W_{head} = E)$"
                         : "");
}

// Every step of one pass over T new tokens (T_k keys), in trace order, from the activations in `a`, which are
// moved into the trace (the pass is done with them).
void record_trace(Trace* trace, Acts<float>& a, const ModelConfig& c, int T, int Tk) {
  const bool pre = c.placement == NormPlacement::Pre;
  const bool absolute = c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal;
  const StepSizes sizes{
      T, Tk, c.dim, c.n_heads, c.n_kv_heads, c.head_dim(), c.hidden, c.vocab, c.moe() ? c.experts : 0};
  const Recorder model_rec{trace, -1, "", sizes};
  const BlockCosts cost = block_costs(c, T, Tk);
  record_embedding(model_rec, a, c, T);
  for (int l = 0; l < c.n_layers; ++l) {
    const Recorder rec{trace, l, "layers." + std::to_string(l) + ".", sizes};
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const std::string x_name = l == 0 ? (absolute ? "pos_embed" : "embed")
                                      : "layers." + std::to_string(l - 1) + (pre ? ".mlp.residual" : ".mlp_norm");
    LayerActs<float>& L = a.layers[static_cast<size_t>(l)];
    const std::string h_name = record_attention_half(rec, L, c, p, x_name, cost, l, T);
    record_mlp_half(rec, L, a.xs[static_cast<size_t>(l + 1)], c, p, x_name, h_name, cost, T);
  }
  record_head(model_rec, a, c, T);
}
}  // namespace

// [SECTION] argument checks

std::string check_tokens(const ModelConfig& c, const std::vector<int>& tokens, int already_cached) {
  if (tokens.empty()) return tr("no tokens to run (the input is empty)");
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= c.vocab)
      return subst(tr("token {0} at position {1} is outside the vocabulary 0..{2}"),
                   {std::to_string(tokens[i]), std::to_string(i), std::to_string(c.vocab - 1)});
  if (already_cached + static_cast<int64_t>(tokens.size()) > c.max_seq)
    return subst(tr("{0} tokens exceed the model's {1} positions (max_seq; max_position_embeddings in config.json)"),
                 {std::to_string(already_cached + tokens.size()), std::to_string(c.max_seq)});
  return "";
}

// [SECTION] forward

namespace {

// [SECTION] overflow guard
// Weights or activations beyond float32's range give inf, then NaN; a row of NaN scores would reach softmax,
// which cannot tell it from a fully masked row and writes zeros. The pass stops at the first layer where that
// happens and the message names the step and the token, so no NaN is ever shown as a quiet zero.
bool finite_or_report(const Mat& m, const std::string& step, std::string* error) {
  if (all_finite(m)) return true;  // the vectorised scan; the row search below runs only on failure
  Eigen::Index row = 0;
  while (row < m.rows() && m.row(row).allFinite()) ++row;
  *error = subst(tr("the forward pass overflowed float32: {0} has NaN or inf values at token {1} (weights or "
                    "activations too large)"),
                 {step, std::to_string(row)});
  return false;
}

// The message for the layer where model_forward stopped: its first non-finite step in trace order.
void report_overflow(const Acts<float>& a, const ModelConfig& c, const PassOptions& o, int layer, std::string* error) {
  if (layer >= c.n_layers) {
    finite_or_report(a.logits, "logits", error);
    return;
  }
  const LayerActs<float>& L = a.layers[layer_slot(o, layer)];
  const std::string p = "layers." + std::to_string(layer) + ".";
  const bool rope = c.positions == PositionType::RoPE;
  if (!finite_or_report(L.q, p + step_row(rope ? StepId::QRope : StepId::Q).name, error) ||
      !finite_or_report(L.k, p + step_row(rope ? StepId::KRope : StepId::K).name, error) ||
      !finite_or_report(L.v, p + step_row(StepId::V).name, error))
    return;
  // Causal and sliding masks always leave a query its own key, so an "empty" row is a score row that overflowed
  // to −∞ or NaN, not a mask.
  for (size_t r = 0; r < L.empty_rows.size(); ++r)
    if (L.empty_rows[r]) {
      *error = subst(tr("the forward pass overflowed float32: {0} row {1} has no finite score (weights or "
                        "activations too large)"),
                     {p + step_row(StepId::Scores).name, std::to_string(r)});
      return;
    }
  const bool pre = c.placement == NormPlacement::Pre;
  finite_or_report(pre ? a.xs[stream_slot(o, layer + 1)] : L.res2, p + step_row(StepId::MlpResidual).name, error);
}

// check tokens → the one pass → the trace from its activations → advance the cache. `cache` may be null (a full
// pass keeps no keys).
bool run(Mat& logits, Trace* trace, KVCache* cache, const ModelWeights& w, const ModelConfig& c,
         const std::vector<int>& tokens, std::string* error) {
  const int T = static_cast<int>(tokens.size());  // new tokens
  const int pos0 = cache ? cache->length : 0;     // position of the first new token
  if (const std::string problem = check_tokens(c, tokens, pos0); !problem.empty()) {
    *error = problem;
    return false;
  }
  if (cache && static_cast<int>(cache->k.size()) != c.n_layers) cache->reset(c);
  const bool traced = trace && trace->enabled();
  PassOptions o;
  o.pos0 = pos0;
  o.cache = cache;
  o.attention = traced ? PassAttention::Reference : PassAttention::Flash;
  o.keep_trace = traced;
  o.stop_on_overflow = true;
  o.keep_layers = traced;
  Acts<float> a;
  ensure_acts(a, c, 1, T, pos0, false);
  a.logits.swap(logits);  // the logits are written into the caller's buffer (no new allocation when it fits)
  if (const int bad = model_forward<float>(a, w, c, tokens.data(), o); bad >= 0) {
    report_overflow(a, c, o, bad, error);
    logits.swap(a.logits);
    if (cache)  // drop the rows this call appended: the cache stays as it was
      for (int l = 0; l < c.n_layers; ++l) {
        cache->k[static_cast<size_t>(l)].conservativeResize(pos0, Eigen::NoChange);
        cache->v[static_cast<size_t>(l)].conservativeResize(pos0, Eigen::NoChange);
      }
    return false;
  }
  if (cache) cache->advance(T);
  logits.swap(a.logits);
  if (!traced) return true;
  a.logits = logits;
  record_trace(trace, a, c, T, pos0 + T);
  return true;
}

}  // namespace

bool forward(Mat& logits, Trace* trace, const ModelWeights& w, const ModelConfig& c, const std::vector<int>& tokens,
             std::string* error) {
  return run(logits, trace, nullptr, w, c, tokens, error);
}

bool forward_cached(Mat& logits, Trace* trace, KVCache& cache, const ModelWeights& w, const ModelConfig& c,
                    const std::vector<int>& tokens, std::string* error) {
  return run(logits, trace, &cache, w, c, tokens, error);
}

double forward_flops(const ModelConfig& c, int T) {
  const BlockCosts b = block_costs(c, T, T);
  double block = 2 * b.norm.flops + b.q.flops + b.k.flops + b.v.flops + b.scores.flops + b.probs.flops + b.out.flops +
                 b.proj.flops + 2 * b.residual.flops + b.up.flops + b.act.flops + b.down.flops;
  if (c.positions == PositionType::RoPE) block += b.q_rope.flops + b.k_rope.flops;
  if (c.sandwich_norm) block += 2 * b.norm.flops;                               // the post-attention and post-MLP norms
  if (c.qk_norm && c.qk_norm_before_rope && c.positions == PositionType::RoPE)  // the recorded q/k norm steps
    block += norm_flops(c, T) * (c.n_heads + c.n_kv_heads) * c.head_dim() / c.dim;
  if (c.gated()) block += b.gate.flops;
  if (c.moe())  // the routing steps as moe_mlp records them (gates, load, drops) instead of the dense MLP
    block += b.router.flops + b.moe.flops + 2.0 * T * c.experts + double(T) * c.top_k + c.experts - b.up.flops -
             b.act.flops - b.down.flops - (c.gated() ? b.gate.flops : 0.0);
  double total = c.n_layers * block + linear_flops(T, c.dim, c.vocab);
  if (c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal) total += double(T) * c.dim;
  if (c.has_final_norm()) total += norm_flops(c, T);
  return total;
}

}  // namespace tw
