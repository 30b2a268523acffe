#pragma once
// The one forward pass of the Transformer. Training (core/train/model_train.cpp: loss, backward), the stepper's
// trace, `dump`, generation and Hugging Face models (core/model/forward.cpp) all run model_forward() below; they
// differ only in the PassOptions they give it:
//   training     B sequences, pos0 = 0, no cache, batched attention keeping the (B·H, T, T) probabilities, and
//                dropout on each branch's output when the run asks for it;
//   stepper      B = 1, KV cache appended, reference attention keeping the (H, T, T_k) scores and probabilities;
//   inference    B = 1, KV cache appended, tiled (flash) attention, nothing T×T kept.
// The activations stay in Acts afterwards: the backward pass reads them, and forward_cached() records its Trace
// from them (names, titles, formulas and shapes come from the step table in core/model/forward_steps.h).
//
// Pre-norm block (LLaMA):   h = x + Attn(Norm(x));   out = h + MLP(Norm(h))
// Post-norm block (2017):   h = Norm(x + Attn(x));   out = Norm(h + MLP(h))
// Parallel block (NeoX):    h = x + Attn(Norm(x));   out = h + MLP(Norm(x))
//
// Key: B = batch, T = new tokens per sequence, T_k = pos0 + T keys, N = B·T rows, C = channels, H = heads,
// KV = kv heads, D = head dim, F = MLP hidden, V = vocab, E = experts.

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/compare.h"
#include "core/model/config.h"
#include "core/model/kernels.h"
#include "core/model/kv_cache.h"
#include "core/model/positions.h"
#include "core/ops/alibi.h"
#include "core/ops/attention.h"
#include "core/ops/dropout.h"
#include "core/ops/embedding.h"
#include "core/ops/flash_attention.h"
#include "core/ops/linear.h"
#include "core/ops/mask.h"
#include "core/ops/mlp.h"
#include "core/ops/moe_ffn.h"
#include "core/ops/norm.h"
#include "core/ops/residual.h"
#include "core/ops/rope.h"
#include "core/tensor.h"

namespace tw {

// How attention runs, and so which of its intermediate tensors the pass keeps.
enum class PassAttention {
  Batched,    // training: attention_batched_forward, probs (B·H·T, T) (+ soft-capped scores) for the backward
  Reference,  // the stepper: attention_forward over the cache, scores and probs (H·T, T_k) for the trace
  Flash,      // untraced inference: flash_attention_forward over the cache, no T×T tensor at all
};

struct PassOptions {
  int pos0 = 0;                                      // position of the first new token (the cache's length)
  KVCache* cache = nullptr;                          // B = 1: each layer's new keys/values are appended here and
                                                     // attention reads all T_k of them (Reference/Flash only)
  PassAttention attention = PassAttention::Batched;  //
  bool keep_trace = false;                           // also keep what only the trace shows: the embedding before
                                                     // positions, q and k before RoPE (rotated out of place)
  bool stop_on_overflow = false;                     // stop after the first layer with a non-finite value
  bool keep_layers = true;    // keep every layer's activations; false (untraced inference): the layers share one
                              // LayerActs and two residual-stream buffers, which stay in cache
  double dropout = 0;         // training only: each branch output (attention, MLP) is dropped with this probability
                              // before the residual adds it (GPT-2's resid_pdrop); 0 = off
  uint64_t dropout_seed = 0;  // the step's seed: the site l·2 + branch draws dropout_site_seed(seed, site)
};

// Where the pass keeps layer l's activations and the residual stream entering layer l (see keep_layers).
inline size_t layer_slot(const PassOptions& o, int l) { return o.keep_layers ? static_cast<size_t>(l) : 0; }
inline size_t stream_slot(const PassOptions& o, int l) { return static_cast<size_t>(o.keep_layers ? l : l % 2); }

// The overflow check: float through the vectorised exponent-bit scan (core/compare.h), double through Eigen.
template <class S>
bool finite(const MatT<S>& m) {
  if constexpr (std::is_same_v<S, float>)
    return all_finite(m);
  else
    return m.allFinite();
}

constexpr float kQkNormEps = 1e-6f;  // AttentionOptions::qk_norm_eps
constexpr int kFlashTileQ = 64;      // tiles of the untraced attention: 64 queries × up to 256 keys, a causal key
constexpr int kFlashTileK = 256;     // tile cut at its last query (bench_attention_ops BM_AttentionTiled/Small/wide)

// One layer's activations. Rows: N = B·T tokens.
template <class S>
struct LayerActs {
  MatT<S> ln1;                        // (N, C)     pre: Norm(x) (attention input); post: Norm(x + attn) (MLP input)
  VecT<S> ln1_mean, ln1_rstd;         // (N)        its statistics (mean: LayerNorm only)
  MatT<S> q_pre, k_pre;               // (N, H*D), (N, KV*D)  before RoPE (keep_trace and RoPE only)
  MatT<S> q, k, v;                    // (N, H*D), (N, KV*D), (N, KV*D)  projections, q and k after RoPE
  MatT<S> qn, kn;                     // QK-norm outputs (qk_norm configs only)
  VecT<S> qn_rstd, kn_rstd;           // (N*H), (N*KV)
  MatT<S> scores;                     // (H*T, T_k) Reference only: S after scale, cap, bias, mask (−∞ blocked)
  MatT<S> capped, probs;              // Batched: (B*H*T, T) soft-capped scores (softcap configs only), probs;
                                      // Reference: probs (H*T, T_k)
  std::vector<char> empty_rows;       // (H*T)      Reference/Flash: rows whose every score is −∞ or NaN
  MatT<S> att;                        // (N, H*D)   P V per head
  MatT<S> proj;                       // (N, C)     att · W_oᵀ
  MatT<S> proj_n;                     // (N, C)     sandwich_norm: Norm(proj), what the residual adds (Gemma 3)
  VecT<S> pa_mean, pa_rstd;           // (N)        its statistics
  MatT<S> h;                          // (N, C)     x + attention output (before the post-norm)
  MatT<S> ln2;                        // (N, C)     pre: Norm(h) (MLP input); unused in post-norm
  VecT<S> ln2_mean, ln2_rstd;         // (N)        statistics of the second norm (pre: of h; post: of res2)
  MatT<S> gate, up, hid;              // (N, F)     gate (GLU only), up, act(gate)⊙up or act(up)
  MatT<S> down;                       // (N, C)     the MLP's output (MoE: Σ_e g_e Expert_e(m))
  MatT<S> down_n;                     // (N, C)     sandwich_norm: Norm(down), what the residual adds
  VecT<S> pm_mean, pm_rstd;           // (N)        its statistics
  MatT<S> res2;                       // (N, C)     post-norm only: Norm(h) + MLP, the input of the second norm
  MatT<S> drop_attn, drop_mlp;        // (N, C)     dropout masks of the two branch outputs (0 or 1/(1 − p));
                                      //            empty when the pass dropped nothing
  MoeActs<S> moe;                     // MoE configs: router probs, routing, each expert's rows (core/ops/moe_ffn.h)
  std::vector<ExpertRef<S>> experts;  // (E) this layer's expert weights, as the MoE op takes them
  std::vector<ExpertGradRef<S>> expert_grads;  // (E) and their gradients (backward)
};

// What an Acts was sized and filled for: the batch, and every config field its buffers, position tables and masks
// read (the RoPE frequencies' inputs among them). ensure_acts rebuilds them when any field differs.
struct ActsShape {
  int B = 0, T = 0, pos0 = 0;
  int dim = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, rotary_dim = 0, vocab = 0, hidden = 0;
  int positions = 0, attention = 0, window = 0, full_every = 0, attn_scale = 0, norm = 0;
  float rope_base = 0, rope_factor = 0, rope_low_freq = 0, rope_high_freq = 0, rope_local_base = 0, query_scale = 0;
  int rope_scaling = 0, rope_original_context = 0;
  bool operator==(const ActsShape&) const = default;
};

inline ActsShape acts_shape(const ModelConfig& c, int B, int T, int pos0) {
  return {.B = B,
          .T = T,
          .pos0 = pos0,
          .dim = c.dim,
          .layers = c.n_layers,
          .heads = c.n_heads,
          .kv_heads = c.n_kv_heads,
          .head_dim = c.head_dim(),
          .rotary_dim = c.rotary_dim(),
          .vocab = c.vocab,
          .hidden = c.hidden,
          .positions = static_cast<int>(c.positions),
          .attention = static_cast<int>(c.attention),
          .window = c.window,
          .full_every = c.full_every,
          .attn_scale = static_cast<int>(c.attn_scale),
          .norm = static_cast<int>(c.norm),
          .rope_base = c.rope_base,
          .rope_factor = c.rope_factor,
          .rope_low_freq = c.rope_low_freq,
          .rope_high_freq = c.rope_high_freq,
          .rope_local_base = c.rope_local_base,
          .query_scale = c.query_scale,
          .rope_scaling = static_cast<int>(c.rope_scaling),
          .rope_original_context = c.rope_original_context};
}

template <class S>
struct Acts {
  ActsShape shape;  // what the buffers below were made for
  int B = 0, T = 0, pos0 = 0;
  MatT<S> cos, sin;              // (N, R/2) RoPE tables of positions pos0.., tiled over the batch (R rotated dims)
  MatT<S> cos_local, sin_local;  // (N, R/2) the same with rope_local_base, for sliding layers (Gemma 3 only)
  MatT<S> sinusoid;              // (N, C)   sinusoidal positions tiled over the batch
  std::vector<int> pos_ids;      // (N)      position pos0 + t of row b*T + t (learned positions)
  MatB causal, sliding;          // (T, T)   masks, materialised once (Batched)
  Mask causal_fn, sliding_fn;    //          the same as predicates on absolute positions (Reference, Flash)
  AttentionOptions attn_opt;     // scale, soft-cap, ALiBi slopes (mask set per layer)
  MatT<S> embed;                 // (N, C)   E[tokens] before positions are added (keep_trace only)
  std::vector<MatT<S>> xs;       // L+1 of (N, C): residual stream entering each layer, xs[L] = last output
  std::vector<LayerActs<S>> layers;
  MatT<S> xf;              // (N, C) final norm output (pre-norm only)
  VecT<S> f_mean, f_rstd;  // (N)
  MatT<S> logits, probs;   // (N, V) logits; probs: softmax (training's loss)
  VecT<S> logz;            // (N) log Z of each row (z-loss only)
  double z_coef = 0;       // z-loss coefficient of the current pass; 0 = off
  bool moe = false;        // the last pass ran MoE layers (their stats in layers[l].moe)
  double balance = 0;      // MoE: mean over layers of each layer's balance loss E·Σ f_e P̄_e (0 when dense)
  // Backward scratch, shared by every layer (only the current layer's gradients are alive at a time).
  MatT<S> dres, dtmp, dnorm;  // (N, C)
  MatT<S> ddrop;              // (N, C) a branch's gradient before its dropout
  MatT<S> dhid, dgate, dup;   // (N, F)
  MatT<S> datt, dq, dq2;      // (N, H*D)
  MatT<S> dk, dk2, dv;        // (N, KV*D)
  MatT<S> dlogits;            // (N, V)
  MatT<S> scratch;            // (T, T)
};

// Position tables and masks for a (config, B, T, pos0); nothing here depends on the weights. `backward` (a
// training state: pos0 = 0, batched attention) also builds the (T, T) masks and sizes the backward's scratch.
template <class S>
void ensure_acts(Acts<S>& a, const ModelConfig& c, int B, int T, int pos0, bool backward) {
  const ActsShape shape = acts_shape(c, B, T, pos0);
  const int N = B * T, C = c.dim, D = c.head_dim(), H = c.n_heads, KV = c.n_kv_heads, F = c.hidden, V = c.vocab;
  if (a.B == B && a.T == T && a.shape == shape) {
    a.attn_opt.softcap = c.attn_softcap;  // may change between steps without new buffers
    if (!backward || a.dlogits.rows() == N) return;
  } else {
    a.shape = shape;
    a.B = B;
    a.T = T;
    a.pos0 = pos0;
    a.pos_ids.resize(static_cast<size_t>(N));
    for (int i = 0; i < N; ++i) a.pos_ids[static_cast<size_t>(i)] = pos0 + i % T;
    if (c.positions == PositionType::RoPE) {
      // rope_scaling (linear, dynamic, llama3) only changes the frequencies; dynamic scaling reads T_k.
      // Partial rotary (Phi-3): the tables cover the R = rotary_dim() rotated dims, frequencies base^(−2k/R).
      const int R = c.rotary_dim();
      auto tables = [&](MatT<S>& cos, MatT<S>& sin, const RopeConfig& rc) {
        Mat cs, sn;  // (T, R/2), then tiled over the batch
        rope_cos_sin(cs, sn, rope_scaled_frequencies(rc, pos0 + T), pos0, T);
        cos.resize(N, R / 2);
        sin.resize(N, R / 2);
        for (int b = 0; b < B; ++b) {
          cos.middleRows(static_cast<Eigen::Index>(b) * T, T) = cs.cast<S>();
          sin.middleRows(static_cast<Eigen::Index>(b) * T, T) = sn.cast<S>();
        }
      };
      tables(a.cos, a.sin, rope_config(c));
      if (c.rope_local_base > 0) {  // Gemma 3's local layers: their own base and no scaling
        RopeConfig local = rope_config(c);
        local.base = c.rope_local_base;
        local.scaling = RopeScaling::None;
        tables(a.cos_local, a.sin_local, local);
      }
    }
    if (c.positions == PositionType::Sinusoidal) {
      Mat pe;
      sinusoidal_positions(pe, pos0, T, C);
      a.sinusoid.resize(N, C);
      for (int b = 0; b < B; ++b) a.sinusoid.middleRows(static_cast<Eigen::Index>(b) * T, T) = pe.cast<S>();
    }
    a.causal_fn = causal_mask();
    a.sliding_fn = sliding_window_mask(std::max(c.window, 1));  // 0 ≤ i − j < W is causal by itself
    if (backward) {  // the batched kernel reads (T, T) matrices; inference reads the predicates
      materialize_mask(a.causal, a.causal_fn, T, T);
      materialize_mask(a.sliding, a.sliding_fn, T, T);
    }
    a.attn_opt = AttentionOptions{};
    a.attn_opt.scale_mode = c.query_scale > 0 ? ScaleMode::Custom : c.attn_scale;  // Gemma's query_pre_attn_scalar
    a.attn_opt.custom_scale = c.query_scale;
    a.attn_opt.softcap = c.attn_softcap;
    a.attn_opt.q_offset = pos0;
    if (c.positions == PositionType::ALiBi) {
      a.attn_opt.bias.kind = AttentionBias::Kind::Alibi;
      a.attn_opt.bias.slopes = alibi_slopes(H);
    }
    a.xs.resize(static_cast<size_t>(c.n_layers + 1));
    for (MatT<S>& x : a.xs) x.resize(N, C);
    a.layers.assign(static_cast<size_t>(c.n_layers), LayerActs<S>{});
    a.dlogits.resize(0, 0);
  }
  if (!backward) return;
  a.dres.resize(N, C);
  a.dtmp.resize(N, C);
  a.ddrop.resize(N, C);
  a.dnorm.resize(N, C);
  a.dhid.resize(N, F);
  a.dgate.resize(N, F);
  a.dup.resize(N, F);
  a.datt.resize(N, H * D);
  a.dq.resize(N, H * D);
  a.dq2.resize(N, H * D);
  a.dk.resize(N, KV * D);
  a.dk2.resize(N, KV * D);
  a.dv.resize(N, KV * D);
  a.dlogits.resize(N, V);
  a.scratch.resize(T, T);
}

// [SECTION] op dispatch by config

// `lanes` (untraced inference): float RMSNorm sums x² in 8 double lanes (rmsnorm_forward, vectorised) instead of
// in element order (training's kernel, whose bits the checkpoints and the stepper's comparison pin).
template <class S, class NW>
void norm_fwd(MatT<S>& out, VecT<S>& mean, VecT<S>& rstd, const MatT<S>& x, const NW& n, const ModelConfig& c,
              bool lanes = false) {
  // x, out: (N, C); mean, rstd: (N)
  const int N = static_cast<int>(x.rows()), C = static_cast<int>(x.cols());
  out.resize(N, C);
  rstd.resize(N);
  // Gemma's RMSNorm scales by (1 + γ): the sum formed once per call, in float as Hugging Face does.
  std::decay_t<decltype(n.weight)> plus_one;
  if (c.norm_plus_one) plus_one = n.weight.array() + 1;
  const auto& gamma = c.norm_plus_one ? plus_one : n.weight;
  if constexpr (std::is_same_v<S, float> && std::is_same_v<std::decay_t<decltype(n.weight)>, Vec>) {
    if (lanes && c.norm == NormType::RMSNorm) {
      rmsnorm_forward(out, x, gamma, c.eps, &rstd);
      return;
    }
  }
  if (c.norm == NormType::RMSNorm) {
    rmsnorm_rows_forward<S>(out.data(), rstd.data(), x.data(), gamma.data(), N, C, c.eps);
  } else {
    mean.resize(N);
    layernorm_rows_forward<S>(out.data(), mean.data(), rstd.data(), x.data(), n.weight.data(), n.bias.data(), N, C,
                              c.eps);
  }
}

// The MoE op borrows each expert's matrices (float or double weights alike).
template <class S, class LW>
void expert_refs(std::vector<ExpertRef<S>>& out, const LW& lw) {
  out.resize(lw.experts.size());
  for (size_t e = 0; e < out.size(); ++e) out[e] = {&lw.experts[e].gate, &lw.experts[e].up, &lw.experts[e].down};
}

// [SECTION] the block's attention half
// q, k (after RoPE and QK-norm) and v of the new tokens → L.att. Batched: each sequence attends to itself.
// Reference / Flash (B = 1): the new keys join the cache first, and the queries at positions pos0.. read all T_k.
template <class S>
void attention_step(LayerActs<S>& L, Acts<S>& a, const ModelConfig& c, int l, const PassOptions& o) {
  const int H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim();
  const bool sliding = c.layer_is_sliding(l);
  const bool normed = c.qk_norm && !c.qk_norm_before_rope;  // QK-norm after RoPE writes qn/kn last
  const MatT<S>& q = normed ? L.qn : L.q;
  const MatT<S>& k = normed ? L.kn : L.k;
  AttentionOptions& opt = a.attn_opt;
  if (o.attention == PassAttention::Batched) {
    opt.mask = nullptr;
    opt.mask_matrix = sliding ? &a.sliding : &a.causal;
    attention_batched_forward<S>(L.att, L.capped, L.probs, q, k, L.v, opt, a.B, a.T, H, KV, D);
    return;
  }
  if constexpr (std::is_same_v<S, float>) {
    opt.mask_matrix = nullptr;
    opt.mask = sliding ? &a.sliding_fn : &a.causal_fn;
    const Mat* K = &k;
    const Mat* Vv = &L.v;
    if (o.cache) {  // keys are cached after RoPE and QK-norm: they depend only on their own position
      o.cache->append(l, k, L.v);
      K = &o.cache->k[static_cast<size_t>(l)];
      Vv = &o.cache->v[static_cast<size_t>(l)];
    }
    if (o.attention == PassAttention::Reference)
      attention_forward(L.att, L.scores, L.probs, L.empty_rows, q, *K, *Vv, opt, H, KV, D);
    else
      flash_attention_forward(L.att, L.empty_rows, q, *K, *Vv, opt, H, KV, D, kFlashTileQ, kFlashTileK);
  }
}

// [SECTION] forward
// Dropout of one branch output before the residual adds it (training with o.dropout > 0); otherwise the mask is
// left empty, which tells the backward that nothing was dropped.
template <class S>
void drop_branch(MatT<S>& branch, MatT<S>& mask, const PassOptions& o, int site) {
  if (o.dropout <= 0) return mask.resize(0, 0);
  dropout_mask<S>(mask, static_cast<int>(branch.rows()), static_cast<int>(branch.cols()), o.dropout,
                  dropout_site_seed(o.dropout_seed, site));
  dropout_forward<S>(branch, mask);
}

// What every layer of one forward pass reads besides its weights: the pass's switches, worked out once.
struct PassPlan {
  bool pre = true;  // pre-norm (else post-norm)
  MlpKind kind = MlpKind::Plain;
  Activation act{};
  // Untraced inference keeps only what the next step reads: the residual additions ride on the W_o and down
  // products (linear_forward_add: L.proj and L.down stay unset) and RMSNorm sums in vector lanes.
  bool lean = false;
  // The residual additions ride on the products only when nothing sits between them (a bias, a sandwich norm).
  bool fuse_add = false;
};

inline PassPlan pass_plan(const ModelConfig& c, const PassOptions& o) {
  PassPlan p;
  p.pre = c.placement == NormPlacement::Pre;
  p.kind = mlp_kind(c.activation);
  p.act = mlp_activation(c.activation, c.gelu_tanh);
  p.lean = o.attention == PassAttention::Flash && !o.keep_trace;
  p.fuse_add = p.lean && o.dropout <= 0 && !c.linear_bias && !c.sandwich_norm;
  return p;
}

// Token embedding x0 = E[tokens] (+ learned or sinusoidal positions).  (N, C)
template <class S, class W>
void embed_forward(Acts<S>& a, const W& w, const ModelConfig& c, const int* tokens, const PassOptions& o) {
  const int N = a.B * a.T;
  MatT<S>& x0 = a.xs[0];
  embedding_forward<S>(x0, w.embed, tokens, N);
  if (c.embed_scale > 0) x0 *= static_cast<S>(c.embed_scale);  // Gemma: E[tokens] · √C
  const bool absolute = c.positions == PositionType::Learned || c.positions == PositionType::Sinusoidal;
  if (o.keep_trace && absolute) a.embed = x0;
  if (c.positions == PositionType::Learned)
    for (int i = 0; i < N; ++i) x0.row(i) += w.pos_embed.row(a.pos_ids[static_cast<size_t>(i)]);
  if (c.positions == PositionType::Sinusoidal) x0 += a.sinusoid;
}

// Layer l's attention half: norm, projections, QK-norm, RoPE, attention, output projection and residual into L.h
// (post-norm: then its norm into L.ln1). Returns false, with o.stop_on_overflow, when q, k, v or an attention row
// stopped being finite.
template <class S, class LW>
bool attention_half(Acts<S>& a, LayerActs<S>& L, const MatT<S>& x, const LW& lw, const ModelConfig& c,
                    const PassOptions& o, const PassPlan& p, int l) {
  const int N = a.B * a.T, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim();

  // Attention norm: pre-norm reads Norm(x); post-norm reads x itself.
  if (p.pre) norm_fwd<S>(L.ln1, L.ln1_mean, L.ln1_rstd, x, lw.attn_norm, c, p.lean);
  const MatT<S>& ain = p.pre ? L.ln1 : x;

  // Projections q = a W_qᵀ, k = a W_kᵀ, v = a W_vᵀ (+ Qwen2's biases, before RoPE). A trace keeps q and k
  // before RoPE too: they are written to q_pre/k_pre and rotated out of place. So does QK-norm before RoPE, whose
  // backward reads the projections it normalised.
  const bool rope = c.positions == PositionType::RoPE;
  const bool pre_rope_norm = c.qk_norm && c.qk_norm_before_rope && rope;
  MatT<S>& q0 = rope && (o.keep_trace || pre_rope_norm) ? L.q_pre : L.q;
  MatT<S>& k0 = rope && (o.keep_trace || pre_rope_norm) ? L.k_pre : L.k;
  linear_forward<S>(q0, ain, lw.wq);
  linear_forward<S>(k0, ain, lw.wk);
  linear_forward<S>(L.v, ain, lw.wv);
  if (c.attn_bias) {
    q0.rowwise() += lw.bq.transpose();
    k0.rowwise() += lw.bk.transpose();
    L.v.rowwise() += lw.bv.transpose();
  }

  // QK-norm before RoPE (Qwen3, Gemma 3): each head's q and k RMS-normalised with the model's ε and γ (Gemma:
  // 1 + γ); RoPE then rotates the normalised vectors.
  if (pre_rope_norm) {
    std::decay_t<decltype(lw.q_norm)> gq = lw.q_norm, gk = lw.k_norm;
    if (c.norm_plus_one) gq.array() += 1, gk.array() += 1;
    qk_norm_forward<S>(L.qn, L.qn_rstd, q0, gq, c.eps, H, D);
    qk_norm_forward<S>(L.kn, L.kn_rstd, k0, gk, c.eps, KV, D);
  }

  // RoPE rotates each (x[k], x[k + R/2]) pair of the first R dims of q and k by position · θ_k (Hugging Face
  // rotate_half; R = D unless partial rotary). Gemma 3's sliding layers use their own (local) base.
  if (rope) {
    const bool local = c.rope_local_base > 0 && c.layer_is_sliding(l);
    const MatT<S>& cs = local ? a.cos_local : a.cos;
    const MatT<S>& sn = local ? a.sin_local : a.sin;
    const int R = c.rotary_dim();
    rope_forward<S>(L.q, pre_rope_norm ? L.qn : q0, cs, sn, RopeConvention::HalfSplit, N, H, D, R);
    rope_forward<S>(L.k, pre_rope_norm ? L.kn : k0, cs, sn, RopeConvention::HalfSplit, N, KV, D, R);
  }

  // QK-norm (after RoPE: the rotation keeps each head's RMS).
  if (c.qk_norm && !pre_rope_norm) {
    qk_norm_forward<S>(L.qn, L.qn_rstd, L.q, lw.q_norm, kQkNormEps, H, D);
    qk_norm_forward<S>(L.kn, L.kn_rstd, L.k, lw.k_norm, kQkNormEps, KV, D);
  }
  if (o.stop_on_overflow && !(finite<S>(L.q) && finite<S>(L.k) && finite<S>(L.v))) return false;

  // Scaled dot-product attention, causal or sliding window; query head h reads KV head h / (H / KV).
  attention_step<S>(L, a, c, l, o);
  if (o.stop_on_overflow && std::find(L.empty_rows.begin(), L.empty_rows.end(), 1) != L.empty_rows.end()) return false;

  // Output projection (+ GPT-2's bias) and residual: h = x + att W_oᵀ (post-norm then normalises h; Gemma 3's
  // sandwich norm normalises the projection before the add: h = x + Norm(att W_oᵀ)).
  if (p.fuse_add) {
    linear_forward_add<S>(L.h, L.att, lw.wo, x);
  } else {
    linear_forward<S>(L.proj, L.att, lw.wo);
    if (c.linear_bias) L.proj.rowwise() += lw.bo.transpose();
    if (c.sandwich_norm) norm_fwd<S>(L.proj_n, L.pa_mean, L.pa_rstd, L.proj, lw.post_attn_norm, c, p.lean);
    drop_branch<S>(c.sandwich_norm ? L.proj_n : L.proj, L.drop_attn, o, 2 * l);
    residual_forward<S>(L.h, c.sandwich_norm ? L.proj_n : L.proj, x);
  }
  if (!p.pre) norm_fwd<S>(L.ln1, L.ln1_mean, L.ln1_rstd, L.h, lw.attn_norm, c, p.lean);
  return true;
}

// Layer l's MLP half: norm, MLP (or MoE) and residual into `out`, the stream's next slot. Returns false, with
// o.stop_on_overflow, when the sum stopped being finite.
template <class S, class LW>
bool mlp_half(Acts<S>& a, LayerActs<S>& L, const MatT<S>& x, MatT<S>& out, const LW& lw, const ModelConfig& c,
              const PassOptions& o, const PassPlan& p, int l) {
  // MLP norm: pre-norm reads Norm(h) (a parallel block: Norm(x)); post-norm's MLP reads the normalised h.
  if (p.pre) norm_fwd<S>(L.ln2, L.ln2_mean, L.ln2_rstd, c.parallel_block ? x : L.h, lw.mlp_norm, c, p.lean);
  const MatT<S>& m = p.pre ? L.ln2 : L.ln1;

  // MLP: down(act(gate) ⊙ up) for the GLUs, down(act(up)) otherwise; MoE: the router's k experts per token.
  MatT<S>& sum = p.pre ? out : L.res2;          // h + MLP (post-norm: before its norm)
  const MatT<S>& stream = p.pre ? L.h : L.ln1;  // what the MLP's output is added to
  const bool fused = p.fuse_add && !c.moe();    // the addition rides on the down product
  if (c.moe()) {
    expert_refs<S>(L.experts, lw);
    moe_ffn_forward<S>(L.down, L.moe, m, lw.router, L.experts, p.kind, p.act, c.top_k, c.capacity_factor);
    a.balance += L.moe.balance / c.n_layers;
  } else {
    linear_forward<S>(L.up, m, lw.mlp.up);
    if (c.linear_bias) L.up.rowwise() += lw.b_up.transpose();
    if (p.kind != MlpKind::Plain) {
      linear_forward<S>(L.gate, m, lw.mlp.gate);
      // Inference runs SwiGLU's one vectorised pass; training keeps glu_forward, whose bits the shipped
      // checkpoints pin (the two agree to float rounding).
      if constexpr (std::is_same_v<S, float>) {
        if (p.kind == MlpKind::SwiGLU && o.attention != PassAttention::Batched)
          swiglu_forward(L.hid, L.gate, L.up);
        else
          glu_forward<S>(L.hid, L.gate, L.up, p.act);
      } else {
        glu_forward<S>(L.hid, L.gate, L.up, p.act);
      }
    } else {
      activation_forward_t<S>(L.hid, L.up, p.act);
    }
    if (fused) {
      linear_forward_add<S>(sum, L.hid, lw.mlp.down, stream);
    } else {
      linear_forward<S>(L.down, L.hid, lw.mlp.down);
      if (c.linear_bias) L.down.rowwise() += lw.b_down.transpose();
    }
  }
  if (c.sandwich_norm) norm_fwd<S>(L.down_n, L.pm_mean, L.pm_rstd, L.down, lw.post_mlp_norm, c, p.lean);

  // Residual: x' = h + MLP (post-norm: x' = Norm(h_n + MLP); sandwich: x' = h + Norm(MLP)).
  if (!fused) drop_branch<S>(c.sandwich_norm ? L.down_n : L.down, L.drop_mlp, o, 2 * l + 1);
  if (!fused) residual_forward<S>(sum, c.sandwich_norm ? L.down_n : L.down, stream);
  if (!p.pre) norm_fwd<S>(out, L.ln2_mean, L.ln2_rstd, L.res2, lw.mlp_norm, c, p.lean);
  return !(o.stop_on_overflow && !finite<S>(sum));
}

// Runs tokens (B·T ids, row b*T + t) through the model; the activations stay in `a` (a.logits: (N, V)).
// ensure_acts(a, c, B, T, o.pos0, ...) must have been called. Returns -1, or with o.stop_on_overflow the first
// layer (n_layers: the logits) where a value or an attention row stopped being finite.
template <class S, class W>
int model_forward(Acts<S>& a, const W& w, const ModelConfig& c, const int* tokens, const PassOptions& o) {
  const PassPlan plan = pass_plan(c, o);
  a.balance = 0;
  a.moe = c.moe();
  embed_forward<S>(a, w, c, tokens, o);
  for (int l = 0; l < c.n_layers; ++l) {
    const auto& lw = w.layers[static_cast<size_t>(l)];
    LayerActs<S>& L = a.layers[layer_slot(o, l)];
    const MatT<S>& x = a.xs[stream_slot(o, l)];
    if (!attention_half<S>(a, L, x, lw, c, o, plan, l)) return l;
    if (!mlp_half<S>(a, L, x, a.xs[stream_slot(o, l + 1)], lw, c, o, plan, l)) return l;
  }

  // Final norm (pre-norm only), then the logits x_f · E_headᵀ.  (N, V)
  const MatT<S>& last = a.xs[stream_slot(o, c.n_layers)];
  if (c.has_final_norm()) norm_fwd<S>(a.xf, a.f_mean, a.f_rstd, last, w.final_norm, c, plan.lean);
  linear_forward<S>(a.logits, c.has_final_norm() ? a.xf : last, w.head());
  if (c.final_softcap > 0) {  // Gemma: logits = c·tanh(logits / c)
    const S cap = static_cast<S>(c.final_softcap);
    a.logits = (a.logits.array() / cap).tanh() * cap;
  }
  if (o.stop_on_overflow && !finite<S>(a.logits)) return c.n_layers;
  return -1;
}

}  // namespace tw
