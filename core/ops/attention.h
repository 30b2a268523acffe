#pragma once
// Reference scaled-dot-product attention for H query heads over KV key/value heads (MHA, GQA, MQA).
//
// For each query head h (reading KV head g = h / (H / KV), contiguous groups as repeat_interleave):
//   S = (Q_h K_gᵀ) · scale                      scale: 1/√D (default), 1, 1/D, or a custom value
//   S = c · tanh(S / c)                         optional logit soft-capping (Gemma 2), c = softcap > 0
//   S = S + B_h                                 optional additive bias (ALiBi or any dense bias)
//   S_ij = −∞ where the mask blocks (i, j)      additive −∞, never −1e9
//   P = softmax(S) row-wise                     a row with every key blocked → zeros + flag, never NaN
//   O_h = P V_g
// Optional QK-norm RMS-normalises each head's q and k rows (over D) before the dot product.
//
// Positions: query row r has absolute position q_offset + r; key row j has position j. A full prompt uses
// T_q == T_k and q_offset = 0. A KV-cache step appending T_new tokens to a cache now holding T_k keys
// (the new ones included) passes the T_new new query rows, all T_k keys/values and q_offset = T_k − T_new;
// masks and ALiBi then see the true positions.
//
// The reference keeps everything a learner wants to see: the pre-softmax scores and the probabilities of
// every head, (H, T_q, T_k) stored as H stacked (T_q, T_k) blocks: row h*T_q + r.
// It stays forever as the ground truth for flash_attention_forward (core/ops/flash_attention.h).
// It is also what the stepper runs (forward() with a Trace), so it skips what a mask blocks for sure: under a
// causal or sliding-window term each query row reads one key range, the two products of a block of 64 query
// rows run over the keys its rows read, and the softmax exponentiates that range only (vectorised). The blocked
// cells are still written (−∞ scores, probabilities exactly 0); any other mask is evaluated per cell.

#include <string>
#include <vector>

#include "core/ops/mask.h"
#include "core/tensor.h"

namespace tw {

enum class ScaleMode { InvSqrtDk, None, InvDk, Custom };
const char* scale_mode_name(ScaleMode m);  // "1/sqrt(d_k)", "none", "1/d_k", "custom"
// The same as a formula to show ($1/\sqrt{d_k}$, none, $1/d_k$, custom): scene files keep the names above.
const char* scale_mode_formula(ScaleMode m);
// The factor multiplying Q Kᵀ for a mode; `custom` is used only by ScaleMode::Custom.
float attention_scale(ScaleMode mode, int head_dim, float custom = 1.0f);

// Additive score bias, evaluated per cell so the tiled kernel never needs a (T_q, T_k) buffer.
struct AttentionBias {
  enum class Kind {
    None,            // no bias
    Alibi,           // −m_h·(i − j) for j ≤ i, 0 for j > i (the mask owns the future)
    AlibiSymmetric,  // −m_h·|i − j|
    Dense,           // read from `dense`
  };
  Kind kind = Kind::None;
  std::vector<double> slopes;  // Alibi*: (H), e.g. alibi_slopes(H)
  const Mat* dense = nullptr;  // Dense: (H*T_q, T_k) one block per head, or (T_q, T_k) shared by all heads

  // Bias for head h, query row r (absolute position i = q_offset + r), key j.
  float at(int h, int r, int i, int j, int T_q) const;
};

struct AttentionOptions {
  ScaleMode scale_mode = ScaleMode::InvSqrtDk;
  float custom_scale = 1.0f;           // ScaleMode::Custom only
  float softcap = 0.0f;                // c > 0 enables c·tanh(S/c); 0 disables (Gemma 2 uses 50)
  bool qk_norm = false;                // RMS-normalise q and k head rows before the dot product
  float qk_norm_eps = 1e-6f;           // ε of that RMSNorm
  const Vec* q_norm_weight = nullptr;  // (D) learned γ for q, nullptr = ones
  const Vec* k_norm_weight = nullptr;  // (D) learned γ for k, nullptr = ones
  const Mask* mask = nullptr;          // predicate on absolute positions; nullptr = every key visible
  const MatB* mask_matrix = nullptr;   // (T_q, T_k) true = allowed; ANDed with `mask` when both are set
  AttentionBias bias;                  // additive bias, Kind::None by default
  int q_offset = 0;                    // absolute position of query row 0 (KV cache), see above
};

// Checks sizes and options; returns "" when valid, otherwise a message naming the problem
// (e.g. "n_heads (6) must be a multiple of n_kv_heads (4)"). The forward functions assume this passed.
std::string check_attention_args(const Mat& q, const Mat& k, const Mat& v, const AttentionOptions& opt, int n_heads,
                                 int n_kv_heads, int head_dim);

// out:        (T_q, H*D)     head h in columns h*D .. h*D+D−1
// scores:     (H*T_q, T_k)   pre-softmax S after scale, softcap, bias and mask (−∞ where blocked)
// probs:      (H*T_q, T_k)   softmax(S)
// empty_rows: (H*T_q)        1 where every key of that (head, query) row is blocked; its probs and out are 0
// q: (T_q, H*D), k and v: (T_k, KV*D). Returns the number of empty rows.
int attention_forward(Mat& out, Mat& scores, Mat& probs, std::vector<char>& empty_rows, const Mat& q, const Mat& k,
                      const Mat& v, const AttentionOptions& opt, int n_heads, int n_kv_heads, int head_dim);

// Shared by the reference and the tiled kernel: is (query row r, key j) allowed under opt's masks?
inline bool attention_allows(const AttentionOptions& opt, int r, int j) {
  if (opt.mask_matrix && !(*opt.mask_matrix)(r, j)) return false;
  return !opt.mask || opt.mask->allows(opt.q_offset + r, j);
}

// The mask as a column range: when opt's only mask is one causal, sliding-window or bidirectional term (what
// forward() passes; no mask matrix), that term, else nullptr. Both kernels then read whole allowed key ranges
// instead of asking a predicate per cell. Not for "no mask at all" (every key allowed): the caller sees that.
const MaskTerm* attention_range_term(const AttentionOptions& opt);
// The keys [lo, hi) a query at absolute position i may read under such a term (nullptr: every key), of T_k keys.
struct KeyRange {
  int lo = 0, hi = 0;
};
KeyRange allowed_keys(const MaskTerm* term, int i, int T_k);

// QK-norm helper: RMS-normalises every D-wide head slice of x (T, n*D) in place of out.
void qk_norm_heads(Mat& out, const Mat& x, const Vec* weight, float eps, int n, int head_dim);

}  // namespace tw

// [SECTION] training kernels (float and double)
// Batched reference attention for training: B sequences of T tokens, row b*T + t of q/k/v/out. Each sequence
// attends only to itself, with the masks and bias of opt evaluated on positions 0..T−1 (opt.q_offset must be 0,
// opt.mask_matrix, when set, is (T, T)). QK-norm is a separate op here (qk_norm_forward below) so its γ gets a
// gradient: opt.qk_norm must be false.
// Work items: one (sequence, head) each; the two products per item are matrix products, as attention_forward.
//
// Backward of one (sequence b, head h reading KV head g), with P the probabilities and dO the output gradient:
//   dP = dO · V_gᵀ
//   dS = P ⊙ (dP − rowsum(dP ⊙ P))             softmax backward (masked cells have P = 0, so dS = 0)
//   dS ⊙= 1 − (capped / c)²                    soft-cap backward (d/dx c·tanh(x/c)), when c > 0
//   dS ·= scale
//   dQ_h += dS · K_g,   dK_g += dSᵀ · Q_h,   dV_g += Pᵀ · dO      (GQA: the n_rep heads of a group sum into dK_g, dV_g)
// The ALiBi / dense bias is a constant: no gradient.
namespace tw {

// out: (B*T, H*D); capped: (B*H*T, T) scale·q·k after the soft-cap, before bias and mask (written only when
// opt.softcap > 0; the soft-cap backward needs it); probs: (B*H*T, T), row (b*H + h)*T + r.
// q: (B*T, H*D); k, v: (B*T, KV*D).
template <class S>
void attention_batched_forward(MatT<S>& out, MatT<S>& capped, MatT<S>& probs, const MatT<S>& q, const MatT<S>& k,
                               const MatT<S>& v, const AttentionOptions& opt, int B, int T, int H, int KV, int D);

// dq: (B*T, H*D) +=; dk, dv: (B*T, KV*D) +=; scratch: any, resized to (T, T) (pass the same one every step);
// dout: (B*T, H*D); the rest as given to / produced by attention_batched_forward.
template <class S>
void attention_batched_backward(MatT<S>& dq, MatT<S>& dk, MatT<S>& dv, MatT<S>& scratch, const MatT<S>& dout,
                                const MatT<S>& capped, const MatT<S>& probs, const MatT<S>& q, const MatT<S>& k,
                                const MatT<S>& v, const AttentionOptions& opt, int B, int T, int H, int KV, int D);

// QK-norm with a learned γ: each D-wide head slice of x (N, n*D) is RMS-normalised (ε = eps) and scaled by γ.
// out: (N, n*D); rstd: (N*n) per slice; weight: (D).
template <class S>
void qk_norm_forward(MatT<S>& out, VecT<S>& rstd, const MatT<S>& x, const VecT<S>& weight, float eps, int n,
                     int head_dim);
// dx: (N, n*D) +=; dweight: (D) += (summed over every token and head).
template <class S>
void qk_norm_backward(MatT<S>& dx, VecT<S>& dweight, const MatT<S>& dout, const MatT<S>& x, const VecT<S>& weight,
                      const VecT<S>& rstd, int n, int head_dim);

}  // namespace tw
