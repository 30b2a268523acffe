#include "core/model/forward.h"

#include <cmath>

#include "core/model/forward_steps.h"
#include "core/model/kernels.h"
#include "core/model/positions.h"
#include "core/ops/alibi.h"
#include "core/ops/attention.h"
#include "core/ops/flash_attention.h"
#include "core/ops/mask.h"
#include "core/ops/mlp.h"
#include "core/ops/moe_ffn.h"
#include "core/ops/norm.h"
#include "core/ops/rope.h"
#include "core/text/i18n.h"

namespace tw {

// [SECTION] cost model
// FLOPs count a multiply-add as 2 and exp, tanh, erf, sqrt as 1 each. Bytes assume every input, weight and
// output is read or written once as float32: the traffic of an ideal kernel, not of this CPU code.
namespace {

constexpr double kF = 4.0;      // bytes per float
constexpr int kFlashTile = 64;  // tile of the untraced attention (bench_attention_ops Small: 64 beats 32, 128)

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
  // The reference kernel computes every (query, key) cell, masked or not; scale (+ bias) is one more op each.
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
  void operator()(StepId id, std::vector<std::string> inputs, const Mat& value, StepCost cost, std::string title = {},
                  std::string formula = {}) const {
    if (!on()) return;
    const StepRow& row = step_row(id);
    trace->record(prefix + row.name, title.empty() ? row.title : std::move(title),
                  formula.empty() ? row.formula : std::move(formula), std::move(inputs), value, step_shape(row, sizes),
                  layer, cost.flops, cost.bytes);
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

void apply_norm(Mat& out, const Mat& x, const NormWeights& n, const ModelConfig& c) {
  if (c.norm == NormType::RMSNorm)
    rmsnorm_forward(out, x, n.weight, c.eps);
  else
    layernorm_forward(out, x, n.weight, n.bias, c.eps);
}

std::string norm_formula(const ModelConfig& c, const std::string& out, const std::string& in) {
  return c.norm == NormType::RMSNorm
             ? "$" + out + " = " + in + " / \\sqrt{\\mathrm{mean}(" + in + "^2) + \\varepsilon} \\cdot \\gamma$"
             : "$" + out + " = (" + in +
                   " - \\mathrm{mean}) / \\sqrt{\\mathrm{var} + \\varepsilon} \\cdot \\gamma + \\beta$";
}

// The activations of one block, allocated once per forward pass and reused by every layer (no allocation
// inside the layer loop beyond what the trace copies).
struct BlockState {
  Mat normed;                             // (T, C)     input of attention (pre) or of the MLP
  Mat q;                                  // (T, H*D)   queries (rotated in place when RoPE)
  Mat k, v;                               // (T, KV*D)  keys (rotated in place), values of the new tokens
  Mat scores, probs;                      // (H*T, T_k)
  std::vector<char> empty_rows;           // (H*T)      rows with every key masked (none for causal masks)
  Mat attn;                               // (T, H*D)   P V per head
  Mat proj;                               // (T, C)     attention output after W_o
  Mat h;                                  // (T, C)     residual stream after attention
  MlpActivations mlp;                     // gate, up, hidden: (T, F)
  Mat mlp_out;                            // (T, C)
  MoeActs<float> moe;                     // MoE configs: router probabilities, routing, each expert's rows
  std::vector<ExpertRef<float>> experts;  // (E) this layer's experts, borrowed
};

// A block's MLP when it is a mixture of experts: the op training runs (core/ops/moe_ffn.h), then its routing
// recorded as steps: router probabilities, the gates of the chosen experts, each expert's load and its drops.
void moe_mlp(BlockState& s, const Recorder& rec, const LayerWeights& lw, const ModelConfig& c, const Mat& m,
             const std::string& m_name, const std::string& p, const BlockCosts& cost) {
  const int T = static_cast<int>(m.rows()), E = c.experts, k = c.top_k;
  s.experts.resize(lw.experts.size());
  for (size_t e = 0; e < s.experts.size(); ++e)
    s.experts[e] = {&lw.experts[e].gate, &lw.experts[e].up, &lw.experts[e].down};
  moe_ffn_forward<float>(s.mlp_out, s.moe, m, lw.router, s.experts, mlp_kind(c.activation),
                         mlp_activation(c.activation), k, c.capacity_factor);
  if (rec.on()) {
    const MoeRoute& r = s.moe.route;
    rec(StepId::RouterProbs, {m_name, p + "block_sparse_moe.gate.weight"}, s.moe.probs, cost.router);
    Mat gates = Mat::Zero(T, E);  // (T, E): dense view of the k gates per token, 0 where dropped
    for (int t = 0; t < T; ++t)
      for (int j = 0; j < k; ++j) gates(t, r.choice[size_t(t * k + j)]) = s.moe.gates[size_t(t * k + j)];
    rec(StepId::ExpertGates, {rec.name(StepId::RouterProbs)}, gates, {2.0 * T * E, kF * 2.0 * T * E});
    Mat load(1, E), dropped(1, E);
    for (int e = 0; e < E; ++e) {
      load(0, e) = float(r.load[size_t(e)]);
      dropped(0, e) = float(r.wanted[size_t(e)] - r.load[size_t(e)]);
    }
    rec(StepId::ExpertLoad, {rec.name(StepId::ExpertGates)}, load, {double(T) * k, kF * E});
    rec(StepId::ExpertDropped, {rec.name(StepId::ExpertGates)}, dropped, {double(E), kF * E});
  }
  rec(StepId::Down, {m_name, rec.name(StepId::ExpertGates), p + "block_sparse_moe.experts"}, s.mlp_out, cost.moe,
      N_("Mixture of experts output"), "$d_t = \\sum_e g_{t,e} \\, \\mathrm{Expert}_e(m_t)$");
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
// which cannot tell it from a fully masked row and writes zeros. The pass stops with a message naming the step
// and the token instead, so no NaN is ever shown as a quiet zero.
bool finite_or_report(const Mat& m, const std::string& step, std::string* error) {
  if (m.allFinite()) return true;
  Eigen::Index row = 0;
  while (row < m.rows() && m.row(row).allFinite()) ++row;
  *error = subst(tr("the forward pass overflowed float32: {0} has NaN or inf values at token {1} (weights or "
                    "activations too large)"),
                 {step, std::to_string(row)});
  return false;
}

}  // namespace

bool forward(Mat& logits, Trace* trace, const ModelWeights& w, const ModelConfig& c, const std::vector<int>& tokens,
             std::string* error) {
  KVCache cache;
  cache.reset(c);
  return forward_cached(logits, trace, cache, w, c, tokens, error);
}

bool forward_cached(Mat& logits, Trace* trace, KVCache& cache, const ModelWeights& w, const ModelConfig& c,
                    const std::vector<int>& tokens, std::string* error) {
  // Convenience sizes (key in core/tensor.h).
  const int T = static_cast<int>(tokens.size());  // new tokens
  const int pos0 = cache.length;                  // position of the first new token
  const int Tk = pos0 + T;                        // keys visible after appending them
  const int C = c.dim, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim(), F = c.hidden, V = c.vocab;
  const bool pre = c.placement == NormPlacement::Pre;
  if (const std::string problem = check_tokens(c, tokens, pos0); !problem.empty()) {
    *error = problem;
    return false;
  }
  if (static_cast<int>(cache.k.size()) != c.n_layers) cache.reset(c);
  const StepSizes sizes{T, Tk, C, H, KV, D, F, V, c.moe() ? c.experts : 0};
  const Recorder model_rec{trace, -1, "", sizes};
  const BlockCosts cost = block_costs(c, T, Tk);

  // Position machinery shared by every layer: RoPE tables, the attention mask, ALiBi slopes.
  Mat rope_cos, rope_sin;
  if (c.positions == PositionType::RoPE)  // rope_scaling (linear, dynamic, llama3) only changes the frequencies
    rope_cos_sin(rope_cos, rope_sin, rope_scaled_frequencies(rope_config(c), Tk), pos0, T);
  const Mask causal = causal_mask();
  const Mask sliding = sliding_window_mask(std::max(c.window, 1));  // 0 ≤ i − j < W is causal by itself
  AttentionOptions attn_opt;
  attn_opt.q_offset = pos0;
  attn_opt.scale_mode = c.attn_scale;
  attn_opt.softcap = c.attn_softcap;
  attn_opt.qk_norm = c.qk_norm;
  if (c.positions == PositionType::ALiBi) {
    attn_opt.bias.kind = AttentionBias::Kind::Alibi;
    attn_opt.bias.slopes = alibi_slopes(H);
  }

  // Token embedding: x = E[tokens].  (T, C)
  Mat x(T, C);
  for (int t = 0; t < T; ++t) x.row(t) = w.embed.row(tokens[static_cast<size_t>(t)]);
  model_rec(StepId::Embed, {"tokens", "model.embed_tokens.weight"}, x, {0, kF * (2.0 * T * C) + 4.0 * T});

  // Absolute positions are added once, before the first block.
  if (c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal) {
    const bool learned = c.positions == PositionType::Learned;
    Mat sinusoid;
    if (!learned) sinusoidal_positions(sinusoid, pos0, T, C);
    x += learned ? Mat(w.pos_embed.middleRows(pos0, T)) : sinusoid;
    model_rec(StepId::PosEmbed, {"embed", learned ? "model.embed_positions.weight" : "PE"}, x,
              {double(T) * C, kF * 3.0 * T * C}, learned ? "" : N_("Add sinusoidal positions"),
              learned ? ""
                      : "$x = x + PE(\\mathrm{pos})$, $PE(p, 2i) = \\sin(p / 10000^{2i/C})$, "
                        "$PE(p, 2i+1) = \\cos(p / 10000^{2i/C})$");
  }

  BlockState s;
  for (int l = 0; l < c.n_layers; ++l) {
    const LayerWeights& lw = w.layers[static_cast<size_t>(l)];
    const Recorder rec{trace, l, "layers." + std::to_string(l) + ".", sizes};
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const std::string x_name = l == 0 ? (model_rec.on() && trace->find("pos_embed") ? "pos_embed" : "embed")
                                      : "layers." + std::to_string(l - 1) + (pre ? ".mlp.residual" : ".mlp_norm");

    // Pre-norm: a = Norm(x) feeds attention. Post-norm: attention reads x itself.
    if (pre) {
      apply_norm(s.normed, x, lw.attn_norm, c);
      rec(StepId::AttnNorm, {x_name, p + "input_layernorm.weight"}, s.normed, cost.norm,
          norm_title(c, NormStep::Attention), norm_formula(c, "a", "x"));
    }
    const Mat& a = pre ? s.normed : x;
    const std::string a_name = pre ? rec.name(StepId::AttnNorm) : x_name;

    // Projections: q = a W_qᵀ (T, H·D), k = a W_kᵀ and v = a W_vᵀ (T, KV·D).
    s.q.noalias() = a * lw.wq.transpose();
    if (c.attn_bias) s.q.rowwise() += lw.bq.transpose();  // Qwen2: q/k/v biases
    rec(StepId::Q, {a_name, p + "self_attn.q_proj.weight"}, s.q, cost.q);
    s.k.noalias() = a * lw.wk.transpose();
    if (c.attn_bias) s.k.rowwise() += lw.bk.transpose();
    rec(StepId::K, {a_name, p + "self_attn.k_proj.weight"}, s.k, cost.k);
    s.v.noalias() = a * lw.wv.transpose();
    if (c.attn_bias) s.v.rowwise() += lw.bv.transpose();
    rec(StepId::V, {a_name, p + "self_attn.v_proj.weight"}, s.v, cost.v);

    // RoPE rotates each (x[k], x[k + D/2]) pair of q and k by position · θ_k (Hugging Face rotate_half).
    if (c.positions == PositionType::RoPE) {
      rope_apply(s.q, s.q, rope_cos, rope_sin, RopeConvention::HalfSplit, T, H, D);
      rec(StepId::QRope, {rec.name(StepId::Q)}, s.q, cost.q_rope);
      rope_apply(s.k, s.k, rope_cos, rope_sin, RopeConvention::HalfSplit, T, KV, D);
      rec(StepId::KRope, {rec.name(StepId::K)}, s.k, cost.k_rope);
    }
    const std::string k_name = rec.name(c.positions == PositionType::RoPE ? StepId::KRope : StepId::K);
    const std::string q_name = rec.name(c.positions == PositionType::RoPE ? StepId::QRope : StepId::Q);
    if (!finite_or_report(s.q, q_name, error) || !finite_or_report(s.k, k_name, error) ||
        !finite_or_report(s.v, rec.name(StepId::V), error))
      return false;

    // The new keys and values join the cache; attention reads all T_k of them.
    cache.append(l, s.k, s.v);
    const Mat& K = cache.k[static_cast<size_t>(l)];
    const Mat& Vc = cache.v[static_cast<size_t>(l)];

    // Scaled dot-product attention; query head h reads KV head h / n_rep (GQA).
    const bool sliding_layer = c.layer_is_sliding(l);
    attn_opt.mask = sliding_layer ? &sliding : &causal;
    attn_opt.q_norm_weight = c.qk_norm ? &lw.q_norm : nullptr;
    attn_opt.k_norm_weight = c.qk_norm ? &lw.k_norm : nullptr;
    // Traced: the reference kernel, which keeps the (H, T, T_k) scores and probabilities a learner looks at.
    // Fast path: the tiled online-softmax kernel (same result to ~1e-7, never builds T×T, skips masked tiles).
    if (rec.on())
      attention_forward(s.attn, s.scores, s.probs, s.empty_rows, s.q, K, Vc, attn_opt, H, KV, D);
    else
      flash_attention_forward(s.attn, s.empty_rows, s.q, K, Vc, attn_opt, H, KV, D, kFlashTile, kFlashTile);
    // Causal and sliding masks always leave a query its own key, so an "empty" row here is a score row that
    // overflowed to −∞ or NaN, not a mask.
    for (size_t r = 0; r < s.empty_rows.size(); ++r)
      if (s.empty_rows[r]) {
        *error = subst(tr("the forward pass overflowed float32: {0} row {1} has no finite score (weights or "
                          "activations too large)"),
                       {rec.name(StepId::Scores), std::to_string(r)});
        return false;
      }
    // As math, the same in every language: QK-norm, the scale, soft-capping, ALiBi's bias, then the mask.
    std::string score_formula = c.qk_norm ? "\\mathrm{RMSNorm}(q) \\, \\mathrm{RMSNorm}(k)^\\top" : "q k^\\top";
    score_formula += c.attn_scale == ScaleMode::InvSqrtDk ? " / \\sqrt{D}"
                     : c.attn_scale == ScaleMode::InvDk   ? " / D"
                                                          : "";
    if (c.attn_softcap > 0) score_formula = "c \\tanh((" + score_formula + ") / c)";
    if (c.positions == PositionType::ALiBi) score_formula += " - m_h (i - j)";
    score_formula = "$S = " + score_formula + "$, ";
    score_formula += sliding_layer ? "$S_{ij} = -\\infty$ $(i - j \\notin [0, " + std::to_string(c.window) + "))$"
                                   : "$S_{ij} = -\\infty$ $(j > i)$";
    rec(StepId::Scores, {q_name, k_name}, s.scores, cost.scores,
        sliding_layer ? N_("Attention scores (sliding window)") : "", score_formula);
    rec(StepId::Probs, {rec.name(StepId::Scores)}, s.probs, cost.probs);
    rec(StepId::AttnOut, {rec.name(StepId::Probs), rec.name(StepId::V)}, s.attn, cost.out);
    s.proj.noalias() = s.attn * lw.wo.transpose();
    rec(StepId::Proj, {rec.name(StepId::AttnOut), p + "self_attn.o_proj.weight"}, s.proj, cost.proj);

    // Residual: h = x + y (post-norm then normalises h).
    s.h = x + s.proj;
    rec(StepId::AttnResidual, {x_name, rec.name(StepId::Proj)}, s.h, cost.residual);
    std::string h_name = rec.name(StepId::AttnResidual);
    if (!pre) {
      apply_norm(s.h, s.h, lw.attn_norm, c);
      rec(StepId::AttnNorm, {h_name, p + "input_layernorm.weight"}, s.h, cost.norm,
          norm_title(c, NormStep::PostAttention), norm_formula(c, "h", "(x + y)"));
      h_name = rec.name(StepId::AttnNorm);
    }

    // Pre-norm: m = Norm(h) feeds the MLP; a parallel block's MLP reads the block input, m = Norm(x).
    // Post-norm: the MLP reads h.
    if (pre) {
      apply_norm(s.normed, c.parallel_block ? x : s.h, lw.mlp_norm, c);
      rec(StepId::MlpNorm, {c.parallel_block ? x_name : h_name, p + "post_attention_layernorm.weight"}, s.normed,
          cost.norm, norm_title(c, NormStep::Mlp), norm_formula(c, "m", c.parallel_block ? "x" : "h"));
    }
    const Mat& m = pre ? s.normed : s.h;
    const std::string m_name = pre ? rec.name(StepId::MlpNorm) : h_name;

    // MLP: down(act(gate) ⊙ up) for the GLUs, down(act(up)) otherwise; MoE: the router's k experts per token.
    if (c.moe()) {
      moe_mlp(s, rec, lw, c, m, m_name, p, cost);
    } else {
      mlp_forward(s.mlp_out, s.mlp, m, lw.mlp, mlp_kind(c.activation), mlp_activation(c.activation), T, C, F);
      if (c.gated()) rec(StepId::Gate, {m_name, p + "mlp.gate_proj.weight"}, s.mlp.gate, cost.gate);
      rec(StepId::Up, {m_name, p + "mlp.up_proj.weight"}, s.mlp.up, cost.up);
      const char* act_formula = c.activation == ActivationKind::SwiGLU
                                    ? "$z = \\mathrm{silu}(g) \\odot u$, $\\mathrm{silu}(g) = g \\, \\sigma(g)$"
                                : c.activation == ActivationKind::GeGLU
                                    ? "$z = \\mathrm{gelu}(g) \\odot u$, $\\mathrm{gelu}(g) = g \\, \\Phi(g)$"
                                : c.activation == ActivationKind::GELU ? "$z = \\mathrm{gelu}(u) = u \\, \\Phi(u)$"
                                                                       : "$z = \\max(0, u)$";
      const char* act_title = c.activation == ActivationKind::SwiGLU  ? N_("Activation (swiglu)")
                              : c.activation == ActivationKind::GeGLU ? N_("Activation (geglu)")
                              : c.activation == ActivationKind::GELU  ? N_("Activation (gelu)")
                                                                      : N_("Activation (relu)");
      rec(StepId::Hidden,
          c.gated() ? std::vector<std::string>{rec.name(StepId::Gate), rec.name(StepId::Up)}
                    : std::vector<std::string>{rec.name(StepId::Up)},
          s.mlp.hidden, cost.act, act_title, act_formula);
      rec(StepId::Down, {rec.name(StepId::Hidden), p + "mlp.down_proj.weight"}, s.mlp_out, cost.down);
    }

    // Residual: x = h + d (post-norm then normalises x).
    x = s.h + s.mlp_out;
    rec(StepId::MlpResidual, {h_name, rec.name(StepId::Down)}, x, cost.residual);
    if (!finite_or_report(x, rec.name(StepId::MlpResidual), error)) return false;
    if (!pre) {
      apply_norm(x, x, lw.mlp_norm, c);
      rec(StepId::MlpNorm, {rec.name(StepId::MlpResidual), p + "post_attention_layernorm.weight"}, x, cost.norm,
          norm_title(c, NormStep::PostMlp), norm_formula(c, "x", "(h + d)"));
    }
  }
  cache.advance(T);

  // Final norm (pre-norm only: a post-norm block already ends in a norm).
  const std::string last = "layers." + std::to_string(c.n_layers - 1) + (pre ? ".mlp.residual" : ".mlp_norm");
  if (c.has_final_norm()) {
    apply_norm(x, x, w.final_norm, c);
    model_rec(StepId::FinalNorm, {last, "model.norm.weight"}, x, {norm_flops(c, T), norm_bytes(c, T)},
              norm_title(c, NormStep::Final), norm_formula(c, "x_f", "x"));
  }

  // Logits: one score per vocabulary entry, x_f · E_headᵀ.  (T, V)
  logits.noalias() = x * w.head().transpose();
  model_rec(
      StepId::Logits,
      {c.has_final_norm() ? "final_norm" : last, c.tie_embeddings ? "model.embed_tokens.weight" : "lm_head.weight"},
      logits, {linear_flops(T, C, V), linear_bytes(T, C, V)}, "",
      c.tie_embeddings ? "$\\mathrm{logits} = x_f E^\\top$ $(W_{head} = E)$" : "");
  return finite_or_report(logits, "logits", error);
}

double forward_flops(const ModelConfig& c, int T) {
  const BlockCosts b = block_costs(c, T, T);
  double block = 2 * b.norm.flops + b.q.flops + b.k.flops + b.v.flops + b.scores.flops + b.probs.flops + b.out.flops +
                 b.proj.flops + 2 * b.residual.flops + b.up.flops + b.act.flops + b.down.flops;
  if (c.positions == PositionType::RoPE) block += b.q_rope.flops + b.k_rope.flops;
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
