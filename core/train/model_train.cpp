#include "core/train/model_train.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>

#include "core/base/i18n.h"
#include "core/model/kernels.h"
#include "core/model/model_pass.h"
#include "core/model/positions.h"
#include "core/model/weight_tensors.h"
#include "core/ops/alibi.h"
#include "core/ops/attention.h"
#include "core/ops/cross_entropy.h"
#include "core/ops/dropout.h"
#include "core/ops/embedding.h"
#include "core/ops/linear.h"
#include "core/ops/mask.h"
#include "core/ops/mlp.h"
#include "core/ops/moe_ffn.h"
#include "core/ops/norm.h"
#include "core/ops/residual.h"
#include "core/ops/rope.h"
#include "core/ops/z_loss.h"

namespace tw {

// [SECTION] activations
// The pass and its activations (Acts, LayerActs) are core/model/model_pass.h: allocated by the first step of a
// (config, B, T) and then only overwritten. N = B*T rows, one per token.
namespace {

// [SECTION] op dispatch by config

template <class S, class NW, class NG>
void norm_bwd(MatT<S>& dx, NG& g, const MatT<S>& dout, const MatT<S>& x, const NW& n, const VecT<S>& mean,
              const VecT<S>& rstd, const ModelConfig& c) {
  // dx (+=), dout, x: (N, C); g.weight, g.bias (+=): (C)
  const int N = static_cast<int>(x.rows()), C = static_cast<int>(x.cols());
  if (c.norm == NormType::RMSNorm && c.norm_plus_one) {  // Gemma: y = x̂ ⊙ (1 + γ); ∂/∂γ = ∂/∂(1 + γ)
    const std::decay_t<decltype(n.weight)> gamma = n.weight.array() + 1;
    rmsnorm_rows_backward<S>(dx.data(), g.weight.data(), dout.data(), x.data(), gamma.data(), rstd.data(), N, C);
  } else if (c.norm == NormType::RMSNorm) {
    rmsnorm_rows_backward<S>(dx.data(), g.weight.data(), dout.data(), x.data(), n.weight.data(), rstd.data(), N, C);
  } else {
    layernorm_rows_backward<S>(dx.data(), g.weight.data(), g.bias.data(), dout.data(), x.data(), n.weight.data(),
                               mean.data(), rstd.data(), N, C);
  }
}

// The MoE backward borrows each expert's gradients.
template <class S, class LG>
void expert_grad_refs(std::vector<ExpertGradRef<S>>& out, LG& lg) {
  out.resize(lg.experts.size());
  for (size_t e = 0; e < out.size(); ++e) out[e] = {&lg.experts[e].gate, &lg.experts[e].up, &lg.experts[e].down};
}

// [SECTION] loss
// The one forward pass (core/model/model_pass.h, batched attention keeping the probabilities), then the loss.

template <class S, class W>
double forward_t(Acts<S>& a, const W& w, const ModelConfig& c, const Batch& batch, const Dropout& dropout) {
  model_forward<S>(a, w, c, batch.tokens.data(), PassOptions{.dropout = dropout.p, .dropout_seed = dropout.seed});
  const int N = batch.B * batch.T;
  double loss = cross_entropy_forward<S>(a.probs, a.logits, batch.targets.data(), N);
  if (a.z_coef != 0)
    loss += z_loss_forward<S>(a.logz, a.logits, batch.targets.data(), N, a.z_coef);  // PaLM's auxiliary term
  if (c.moe()) loss += c.aux_loss_coef * a.balance;  // Switch's load-balancing term, mean over the layers
  return loss;
}

// [SECTION] backward
// The forward in reverse; every op backward accumulates, so each gradient buffer is zeroed right before its
// first writer. `g` must be zero on entry.

// One block's backward: its weights, gradients and saved activations, and the pass's shared scratch buffers.
template <class S, class LW, class LG>
struct BlockBackward {
  Acts<S>& a;
  const LW& lw;
  LG& lg;
  LayerActs<S>& L;
  const ModelConfig& c;
  int l, B, T;

  // The gradient at a branch's output before its dropout: dout ⊙ mask in a.ddrop, or dout itself when the pass
  // dropped nothing (the mask is empty).
  const MatT<S>& undrop(const MatT<S>& dout, const MatT<S>& mask) {
    if (mask.size() == 0) return dout;
    dropout_backward<S>(a.ddrop, dout, mask);
    return a.ddrop;
  }

  // MLP backward: dd = gradient of the down projection's output, m its input; ∂/∂m goes to dm (+= when
  // dm_accumulate, else overwritten). The first writer of each scratch buffer overwrites it (no zeroing pass).
  void mlp(const MatT<S>& dd, const MatT<S>& m, MatT<S>& dm, bool dm_accumulate) {
    const MlpKind kind = mlp_kind(c.activation);
    const Activation act = mlp_activation(c.activation, c.gelu_tanh);
    if (c.moe()) {  // the MoE op accumulates into dm; the balance term enters the loss as coef / L per layer
      if (!dm_accumulate) dm.setZero();
      expert_grad_refs<S>(L.expert_grads, lg);
      moe_ffn_backward<S>(dm, lg.router, L.expert_grads, L.moe, dd, m, lw.router, L.experts, kind, act,
                          c.aux_loss_coef / c.n_layers);
      return;
    }
    linear_backward<S>(&a.dhid, lg.mlp.down, dd, L.hid, lw.mlp.down, false);
    if (kind != MlpKind::Plain) {
      glu_backward<S>(a.dgate, a.dup, a.dhid, L.gate, L.up, act, false);
      linear_backward<S>(&dm, lg.mlp.gate, a.dgate, m, lw.mlp.gate, dm_accumulate);
      dm_accumulate = true;
    } else {
      activation_backward<S>(a.dup, a.dhid, L.up, act, false);
    }
    if (c.linear_bias) {  // GPT-2's c_fc and c_proj biases: ∂/∂b = column sums at each product's output
      lg.b_up += a.dup.colwise().sum().transpose();
      lg.b_down += dd.colwise().sum().transpose();
    }
    linear_backward<S>(&dm, lg.mlp.up, a.dup, m, lw.mlp.up, dm_accumulate);
  }

  // QK-norm's backward from *dq, *dk into the other buffer of each pair, then swapped: x is what it normalised
  // (the projection before RoPE when it runs first, else q, k after RoPE); γ as the forward applied it.
  void qk_norm_step(MatT<S>*& dq, MatT<S>*& dk, MatT<S>*& dq_next, MatT<S>*& dk_next, const MatT<S>& xq,
                    const MatT<S>& xk) {
    const int H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim();
    dq_next->setZero();
    dk_next->setZero();
    if (c.norm_plus_one) {  // Gemma's (1 + γ), as the forward applied it
      const std::decay_t<decltype(lw.q_norm)> gq = lw.q_norm.array() + 1, gk = lw.k_norm.array() + 1;
      qk_norm_backward<S>(*dq_next, lg.q_norm, *dq, xq, gq, L.qn_rstd, H, D);
      qk_norm_backward<S>(*dk_next, lg.k_norm, *dk, xk, gk, L.kn_rstd, KV, D);
    } else {
      qk_norm_backward<S>(*dq_next, lg.q_norm, *dq, xq, lw.q_norm, L.qn_rstd, H, D);
      qk_norm_backward<S>(*dk_next, lg.k_norm, *dk, xk, lw.k_norm, L.kn_rstd, KV, D);
    }
    std::swap(dq, dq_next);
    std::swap(dk, dk_next);
  }

  // Attention backward: dproj = gradient of the o_proj output, ain the block's input; da (+=) receives ∂/∂ain.
  void attention(const MatT<S>& dproj, const MatT<S>& ain, MatT<S>& da) {
    const int N = B * T, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim();
    const bool rope = c.positions == PositionType::RoPE;
    const bool pre_rope_norm = c.qk_norm && c.qk_norm_before_rope && rope;  // Qwen3: q, k normalised, then rotated
    if (c.linear_bias) lg.bo += dproj.colwise().sum().transpose();          // GPT-2's attn.c_proj bias
    linear_backward<S>(&a.datt, lg.wo, dproj, L.att, lw.wo, false);
    a.dq.setZero();
    a.dk.setZero();
    a.dv.setZero();
    AttentionOptions& opt = a.attn_opt;
    opt.mask_matrix = c.layer_is_sliding(l) ? &a.sliding : &a.causal;
    const bool normed_last = c.qk_norm && !pre_rope_norm;  // the q and k attention read (model_pass.h)
    attention_batched_backward<S>(a.dq, a.dk, a.dv, a.scratch, a.datt, L.capped, L.probs, normed_last ? L.qn : L.q,
                                  normed_last ? L.kn : L.k, L.v, opt, B, T, H, KV, D);
    MatT<S>* dq = &a.dq;  // ping-pong between two buffers through QK-norm and RoPE
    MatT<S>* dk = &a.dk;
    MatT<S>* dq_next = &a.dq2;
    MatT<S>* dk_next = &a.dk2;
    if (normed_last) qk_norm_step(dq, dk, dq_next, dk_next, L.q, L.k);
    if (rope) {  // Gemma 3's sliding layers turned with their own base; Phi-3 turns the first R dims only
      const bool local = c.rope_local_base > 0 && c.layer_is_sliding(l);
      const MatT<S>& cs = local ? a.cos_local : a.cos;
      const MatT<S>& sn = local ? a.sin_local : a.sin;
      const int R = c.rotary_dim();
      dq_next->setZero();
      dk_next->setZero();
      rope_backward<S>(*dq_next, *dq, cs, sn, RopeConvention::HalfSplit, N, H, D, R);
      rope_backward<S>(*dk_next, *dk, cs, sn, RopeConvention::HalfSplit, N, KV, D, R);
      std::swap(dq, dq_next);
      std::swap(dk, dk_next);
    }
    if (pre_rope_norm) qk_norm_step(dq, dk, dq_next, dk_next, L.q_pre, L.k_pre);
    if (c.attn_bias) {  // ∂/∂b = the column sums of the gradient at the projection's output (before RoPE)
      lg.bq += dq->colwise().sum().transpose();
      lg.bk += dk->colwise().sum().transpose();
      lg.bv += a.dv.colwise().sum().transpose();
    }
    linear_backward<S>(&da, lg.wq, *dq, ain, lw.wq);
    linear_backward<S>(&da, lg.wk, *dk, ain, lw.wk);
    linear_backward<S>(&da, lg.wv, a.dv, ain, lw.wv);
  }

  // a.dres = ∂/∂(block output) on entry, ∂/∂x (the block's input) on return.
  void block(const MatT<S>& x) {
    const bool pre = c.placement == NormPlacement::Pre;
    if (pre && c.parallel_block) {
      // dres = ∂/∂(x + Attn(Norm1(x)) + MLP(Norm2(x))): both branches read the same dres, then add through
      // their norms to the residual path's dres.
      mlp(undrop(a.dres, L.drop_mlp), L.ln2, a.dnorm, false);
      a.dtmp.setZero();
      attention(undrop(a.dres, L.drop_attn), L.ln1, a.dtmp);
      norm_bwd<S>(a.dres, lg.mlp_norm, a.dnorm, x, lw.mlp_norm, L.ln2_mean, L.ln2_rstd, c);
      norm_bwd<S>(a.dres, lg.attn_norm, a.dtmp, x, lw.attn_norm, L.ln1_mean, L.ln1_rstd, c);
    } else if (pre) {
      // dres = ∂/∂(h + MLP(Norm(h))): the residual passes it to h, the MLP branch adds through Norm2 (Gemma 3's
      // sandwich: h + Norm(MLP(Norm(h))), through the post-MLP norm first).
      const MatT<S>* dmlp = &undrop(a.dres, L.drop_mlp);
      if (c.sandwich_norm) {
        a.dtmp.setZero();
        norm_bwd<S>(a.dtmp, lg.post_mlp_norm, *dmlp, L.down, lw.post_mlp_norm, L.pm_mean, L.pm_rstd, c);
        dmlp = &a.dtmp;
      }
      mlp(*dmlp, L.ln2, a.dnorm, false);
      norm_bwd<S>(a.dres, lg.mlp_norm, a.dnorm, L.h, lw.mlp_norm, L.ln2_mean, L.ln2_rstd, c);
      // dres = ∂/∂h = ∂/∂(x + Attn(Norm(x))) (sandwich: x + Norm(Attn(Norm(x)))).
      const MatT<S>* dattn = &undrop(a.dres, L.drop_attn);
      if (c.sandwich_norm) {
        a.dtmp.setZero();
        norm_bwd<S>(a.dtmp, lg.post_attn_norm, *dattn, L.proj, lw.post_attn_norm, L.pa_mean, L.pa_rstd, c);
        dattn = &a.dtmp;
      }
      a.dnorm.setZero();
      attention(*dattn, L.ln1, a.dnorm);
      norm_bwd<S>(a.dres, lg.attn_norm, a.dnorm, x, lw.attn_norm, L.ln1_mean, L.ln1_rstd, c);
    } else {
      // dres = ∂/∂Norm2(res2), res2 = h_n + MLP(h_n), h_n = Norm1(h), h = x + Attn(x).
      a.dtmp.setZero();
      norm_bwd<S>(a.dtmp, lg.mlp_norm, a.dres, L.res2, lw.mlp_norm, L.ln2_mean, L.ln2_rstd, c);
      a.dres = a.dtmp;  // residual path to h_n
      mlp(undrop(a.dtmp, L.drop_mlp), L.ln1, a.dres, true);
      a.dtmp.setZero();
      norm_bwd<S>(a.dtmp, lg.attn_norm, a.dres, L.h, lw.attn_norm, L.ln1_mean, L.ln1_rstd, c);
      a.dres = a.dtmp;  // residual path to x
      attention(undrop(a.dtmp, L.drop_attn), x, a.dres);
    }
  }
};

// Loss → logits → (final norm) → a.dres, the gradient at the last block's output.
template <class S, class W, class G>
void head_backward(G& g, Acts<S>& a, const W& w, const ModelConfig& c, const Batch& batch) {
  const int N = batch.B * batch.T;
  cross_entropy_backward<S>(a.dlogits, a.probs, batch.targets.data(), N, /*accumulate=*/false);
  if (a.z_coef != 0) z_loss_backward<S>(a.dlogits, a.probs, a.logz, batch.targets.data(), N, a.z_coef);
  if (c.final_softcap > 0) {  // logits = c·tanh(z/c): ∂/∂z = 1 − (logits/c)²
    const S cap = static_cast<S>(c.final_softcap);
    a.dlogits.array() *= 1 - (a.logits.array() / cap).square();
  }
  const MatT<S>& last = a.xs[static_cast<size_t>(c.n_layers)];
  auto& dhead = c.tie_embeddings ? g.embed : g.lm_head;  // tied: the head's gradient adds to the embedding's
  if (c.has_final_norm()) {
    a.dtmp.setZero();
    linear_backward<S>(&a.dtmp, dhead, a.dlogits, a.xf, w.head());
    a.dres.setZero();
    norm_bwd<S>(a.dres, g.final_norm, a.dtmp, last, w.final_norm, a.f_mean, a.f_rstd, c);
  } else {
    a.dres.setZero();
    linear_backward<S>(&a.dres, dhead, a.dlogits, last, w.head());
  }
}

template <class S, class W, class G>
void backward_t(G& g, Acts<S>& a, const W& w, const ModelConfig& c, const Batch& batch) {
  head_backward<S>(g, a, w, c, batch);
  for (int l = c.n_layers - 1; l >= 0; --l) {
    const size_t i = static_cast<size_t>(l);
    using LW = std::decay_t<decltype(w.layers[i])>;
    using LG = std::decay_t<decltype(g.layers[i])>;
    BlockBackward<S, LW, LG>{a, w.layers[i], g.layers[i], a.layers[i], c, l, batch.B, batch.T}.block(a.xs[i]);
  }
  // dres = ∂/∂x0: scatter into the learned position rows and the embedding rows (Gemma: x0 = E[tokens]·√C).
  const int N = batch.B * batch.T;
  if (c.positions == PositionType::Learned) embedding_backward<S>(g.pos_embed, a.dres, a.pos_ids.data(), N);
  if (c.embed_scale > 0) a.dres *= static_cast<S>(c.embed_scale);
  embedding_backward<S>(g.embed, a.dres, batch.tokens.data(), N);
}

// [SECTION] checks shared by both precisions

// Every tensor of `config` with the shape it must have (rows, cols; cols = 1 for γ/β and bias vectors), in the order
// of for_each_tensor (core/model/weight_tensors.h). No names, so the per-step shape checks allocate nothing. The
// caller checks the layer and expert counts first.
template <class W, class F>
void each_array(W& w, const ModelConfig& c, F&& f) {
  const int C = c.dim, V = c.vocab, Fh = c.hidden, HD = c.n_heads * c.head_dim(), KVD = c.n_kv_heads * c.head_dim();
  auto norm = [&](auto& n) {
    f(n.weight, C, 1);
    if (c.norm == NormType::LayerNorm) f(n.bias, C, 1);
  };
  f(w.embed, V, C);
  if (c.positions == PositionType::Learned) f(w.pos_embed, c.max_seq, C);
  for (auto& l : w.layers) {
    norm(l.attn_norm);
    f(l.wq, HD, C);
    if (c.attn_bias) f(l.bq, HD, 1);
    f(l.wk, KVD, C);
    if (c.attn_bias) f(l.bk, KVD, 1);
    f(l.wv, KVD, C);
    if (c.attn_bias) f(l.bv, KVD, 1);
    f(l.wo, C, HD);
    if (c.linear_bias) f(l.bo, C, 1);
    if (c.qk_norm) {
      f(l.q_norm, c.head_dim(), 1);
      f(l.k_norm, c.head_dim(), 1);
    }
    if (c.sandwich_norm) norm(l.post_attn_norm);
    norm(l.mlp_norm);
    if (c.moe()) {
      f(l.router, c.experts, C);
      for (auto& x : l.experts) {
        if (c.gated()) f(x.gate, Fh, C);
        f(x.up, Fh, C);
        f(x.down, C, Fh);
      }
      continue;
    }
    if (c.gated()) f(l.mlp.gate, Fh, C);
    f(l.mlp.up, Fh, C);
    if (c.linear_bias) f(l.b_up, Fh, 1);
    f(l.mlp.down, C, Fh);
    if (c.linear_bias) f(l.b_down, C, 1);
    if (c.sandwich_norm) norm(l.post_mlp_norm);
  }
  if (c.has_final_norm()) norm(w.final_norm);
  if (!c.tie_embeddings) f(w.lm_head, V, C);
}

// True when every tensor the config needs is there with its shape.
template <class W>
bool shapes_match(W& w, const ModelConfig& c) {
  if (static_cast<int>(w.layers.size()) != c.n_layers) return false;
  for (auto& l : w.layers)  // each_array walks c.experts experts per layer
    if (static_cast<int>(l.experts.size()) != (c.moe() ? c.experts : static_cast<int>(l.experts.size()))) return false;
  bool ok = true;
  each_array(w, c, [&](auto& m, int rows, int cols) { ok = ok && m.rows() == rows && m.cols() == cols; });
  return ok;
}

template <class W>
std::string check_weights(const W& w, const ModelConfig& c) {
  return shapes_match(w, c)
             ? ""
             : tr("the weights do not match the model config (a tensor is missing or has another shape)");
}

template <class S, class W>
bool run_forward(Acts<S>& a, const W& w, const ModelConfig& c, const Batch& batch, double* loss, std::string* error,
                 double z_loss, const Dropout& dropout = {}) {
  std::string problem = check_batch(c, batch);
  if (problem.empty()) problem = check_weights(w, c);
  if (!problem.empty()) {
    if (error) *error = problem;
    return false;
  }
  ensure_acts(a, c, batch.B, batch.T, 0, true);
  a.z_coef = z_loss;
  const double l = forward_t<S>(a, w, c, batch, dropout);
  if (loss) *loss = l;
  if (!std::isfinite(l)) {  // diverged weights: say so instead of handing NaN gradients to the optimizer
    if (error)
      *error = std::isnan(l) ? tr("the loss is NaN: the weights or activations overflowed (learning rate too high?)")
                             : tr("the loss is infinite: the weights or activations overflowed (learning rate too "
                                  "high?)");
    return false;
  }
  return true;
}

}  // namespace

// [SECTION] public API

struct TrainActivations {
  Acts<float> f;
};

TrainState::TrainState() : acts(std::make_unique<TrainActivations>()) {}
TrainState::~TrainState() = default;
TrainState::TrainState(TrainState&&) noexcept = default;
TrainState& TrainState::operator=(TrainState&&) noexcept = default;

double train_state_floats(const ModelConfig& c, int B, int T) {
  // In double: hostile sizes must not overflow before they are refused.
  const double N = double(B) * T, C = c.dim, H = c.n_heads, KV = c.n_kv_heads, F = c.hidden, V = c.vocab,
               L = c.n_layers, E = c.moe() ? c.experts : 0, K = c.moe() ? c.top_k : 0;
  const double D = c.n_heads > 0 ? c.head_dim() : 0, HD = H * D, KVD = KV * D, maps = double(B) * H * T * T;
  // LayerActs: ln1 + stats, q, k, v, QK-norm outputs (and the projections before them when they precede RoPE), the
  // o_proj and down outputs, (capped,) probs, att, h, ln2 + stats, gate/up/hid, res2, and for MoE
  // the router probabilities and each routed row's input, hidden steps and output.
  const double per_layer = N * C + 2 * N + N * HD + 2 * N * KVD + (c.qk_norm ? N * (HD + KVD + H + KV) : 0) +
                           (c.qk_norm_before_rope ? N * (HD + KVD) : 0) + 2 * N * C +
                           (c.attn_softcap > 0 ? 2 : 1) * maps + N * HD + N * C + N * C + 2 * N + 3 * N * F + N * C +
                           (c.moe() ? N * E + N * K * (2 * C + 3 * F) : 0);
  const double stream = (L + 1) * N * C + N * C + 2 * N + 2 * N * V + N;  // xs, xf + stats, logits, probs, logz
  const double tables = N * (D + C) + 2.0 * T * T + N;                    // RoPE/sinusoid tables, masks, positions
  const double dropout = 2 * L * N * C;  // the two branch masks of each layer (counted whether or not a run drops)
  const double scratch = 4 * N * C + 3 * N * F + 3 * N * HD + 3 * N * KVD + N * V + double(T) * T;
  const double temporaries = N * V + V * C + maps;  // one unfused product or softmax backward at a time
  return L * per_layer + stream + tables + dropout + scratch + temporaries;
}

std::string check_batch(const ModelConfig& c, const Batch& batch) {
  if (const std::vector<std::string> problems = validate(c); !problems.empty()) return problems.front();
  if (batch.B < 1 || batch.T < 1) return tr("a batch needs at least one sequence of at least one token");
  if (batch.T > c.max_seq)
    return subst(tr("sequences of {0} tokens exceed max_seq {1}"),
                 {std::to_string(batch.T), std::to_string(c.max_seq)});
  const size_t n = static_cast<size_t>(batch.B) * static_cast<size_t>(batch.T);
  if (batch.tokens.size() != n || batch.targets.size() != n)
    return subst(tr("the batch holds {0} tokens and {1} targets, expected {2} (batch size \xC3\x97 sequence length)"),
                 {std::to_string(batch.tokens.size()), std::to_string(batch.targets.size()), std::to_string(n)});
  size_t n_targets = 0;
  for (size_t i = 0; i < n; ++i) {
    const int t = batch.tokens[i], y = batch.targets[i];
    if (t < 0 || t >= c.vocab)
      return subst(tr("token {0} is outside the vocabulary 0..{1}"), {std::to_string(t), std::to_string(c.vocab - 1)});
    if (y < -1 || y >= c.vocab)
      return subst(tr("target {0} is outside the vocabulary 0..{1} (−1 means no loss)"),
                   {std::to_string(y), std::to_string(c.vocab - 1)});
    n_targets += y >= 0;
  }
  if (n_targets == 0) return tr("the batch has no target to compute a loss on");
  return "";
}

bool train_forward(TrainState& state, const ModelWeights& weights, const ModelConfig& config, const Batch& batch,
                   double* loss, std::string* error, double z_loss) {
  if (!state.acts) state.acts = std::make_unique<TrainActivations>();
  return run_forward<float>(state.acts->f, weights, config, batch, loss, error, z_loss);
}

namespace {
// Makes *grads zero with the shapes of `config`, allocating only when a shape differs.
void zero_grads(ModelWeights* grads, const ModelConfig& config) {
  if (!shapes_match(*grads, config)) {
    *grads = zero_weights(config);
    return;
  }
  each_array(*grads, config, [](auto& m, int, int) { std::fill_n(m.data(), m.size(), 0.0f); });  // one memset each
}
}  // namespace

bool train_forward_backward(ModelWeights* grads, TrainState& state, const ModelWeights& weights,
                            const ModelConfig& config, const Batch& batch, double* loss, std::string* error,
                            double z_loss, const Dropout& dropout) {
  if (const std::string why = training_unsupported(config); !why.empty()) return *error = why, false;
  if (!state.acts) state.acts = std::make_unique<TrainActivations>();
  if (!run_forward<float>(state.acts->f, weights, config, batch, loss, error, z_loss, dropout)) return false;
  zero_grads(grads, config);
  backward_t<float>(*grads, state.acts->f, weights, config, batch);
  return true;
}

const Mat& train_logits(const TrainState& state) {
  static const Mat kEmpty;  // before the first pass, or on a moved-from state
  return state.acts ? state.acts->f.logits : kEmpty;
}

const Acts<float>& train_acts(const TrainState& state) {
  static const Acts<float> kEmpty;  // before the first pass, or on a moved-from state
  return state.acts ? state.acts->f : kEmpty;
}

Mat train_attention_probs(const TrainState& state, int layer, int b) {
  if (!state.acts) return Mat();
  const Acts<float>& a = state.acts->f;
  if (a.B == 0 || layer < 0 || layer >= static_cast<int>(a.layers.size()) || b < 0 || b >= a.B) return Mat();
  const Mat& p = a.layers[static_cast<size_t>(layer)].probs;
  const Eigen::Index rows = p.rows() / a.B;  // H*T
  return p.middleRows(static_cast<Eigen::Index>(b) * rows, rows);
}

MoeStats train_moe_stats(const TrainState& state) {
  MoeStats s;
  if (!state.acts || !state.acts->f.moe) return s;
  const Acts<float>& a = state.acts->f;
  s.tokens = a.B * a.T;
  s.balance = a.balance;
  for (const LayerActs<float>& L : a.layers) {
    const MoeRoute& r = L.moe.route;
    s.top_k = r.k;
    s.layers.push_back({r.load, r.wanted, r.n_dropped, r.capacity, L.moe.balance});
  }
  return s;
}

// [SECTION] double precision

ModelWeightsD to_double(const ModelWeights& w) {
  ModelWeightsD d;
  auto norm = [](const NormWeights& n) { return NormWeightsD{n.weight.cast<double>(), n.bias.cast<double>()}; };
  d.embed = w.embed.cast<double>();
  d.pos_embed = w.pos_embed.cast<double>();
  for (const LayerWeights& l : w.layers) {
    LayerWeightsD x;
    x.attn_norm = norm(l.attn_norm);
    x.wq = l.wq.cast<double>();
    x.wk = l.wk.cast<double>();
    x.wv = l.wv.cast<double>();
    x.wo = l.wo.cast<double>();
    x.bq = l.bq.cast<double>();
    x.bk = l.bk.cast<double>();
    x.bv = l.bv.cast<double>();
    x.q_norm = l.q_norm.cast<double>();
    x.k_norm = l.k_norm.cast<double>();
    x.bo = l.bo.cast<double>();
    x.b_up = l.b_up.cast<double>();
    x.b_down = l.b_down.cast<double>();
    x.post_attn_norm = norm(l.post_attn_norm);
    x.post_mlp_norm = norm(l.post_mlp_norm);
    x.mlp_norm = norm(l.mlp_norm);
    x.mlp = {l.mlp.gate.cast<double>(), l.mlp.up.cast<double>(), l.mlp.down.cast<double>()};
    x.router = l.router.cast<double>();
    for (const MlpWeights& e : l.experts)
      x.experts.push_back({e.gate.cast<double>(), e.up.cast<double>(), e.down.cast<double>()});
    d.layers.push_back(std::move(x));
  }
  d.final_norm = norm(w.final_norm);
  d.lm_head = w.lm_head.cast<double>();
  return d;
}

void visit_parameters(ModelWeightsD& w, const ModelConfig& c,
                      const std::function<void(const std::string& name, double* data, int64_t size)>& visit) {
  for_each_tensor(w, c, [&](const std::string& name, auto& m, const std::vector<int64_t>&) {
    visit(name, m.data(), static_cast<int64_t>(m.size()));
  });
}

bool train_forward_backward_double(ModelWeightsD* grads, const ModelWeightsD& weights, const ModelConfig& config,
                                   const Batch& batch, double* loss, std::string* error, double z_loss,
                                   const Dropout& dropout) {
  Acts<double> a;
  if (!run_forward<double>(a, weights, config, batch, loss, error, z_loss, dropout)) return false;
  if (!grads) return true;
  *grads = to_double(zero_weights(config));
  backward_t<double>(*grads, a, weights, config, batch);
  return true;
}

}  // namespace tw
