#pragma once
// Mixture-of-experts feed-forward layer (Mixtral's block_sparse_moe, with Switch's capacity and balance loss):
// a router sends every token to k of E expert MLPs and the layer's output is the gate-weighted sum of theirs.
//
// Key: N = tokens (B*T rows), C = channels, E = experts, k = experts per token, F = hidden size of one expert.
//
//   router logits  z = x · W_rᵀ                                   (N, E)
//   router probs   P = softmax(z)                                 (N, E)
//   top-k          the k largest P_t,e of each row                ties: the lower expert index first
//   capacity       ⌈cf · N·k / E⌉ per expert when cf > 0          assignments served rank by rank (every
//                  token's first choice before any second choice), in token order within a rank; past a full
//                  expert the assignment is dropped: its gate is 0 and the residual stream carries the token on
//   gates          g_t,j = P_t,cⱼ / Σ_{j'<k} P_t,cⱼ'              renormalised over the k chosen (Mixtral), the
//                  dropped ones included in the sum
//   output         y_t = Σ_{kept j} g_t,j · Expert_cⱼ(x_t)        expert = the model's MLP (SwiGLU, GELU, ...)
//   balance loss   E · Σ_e f_e · P̄_e,  f_e = (assignments e was asked for) / N,  P̄_e = mean_t P_t,e
//                  (Hugging Face's load_balancing_loss_func; k when the router is uniform, lowest when balanced)
//
// Top-k is a selection, not a function with a gradient: the backward treats the chosen set and the drops as
// constants and differentiates the chosen gates' values, through their renormalisation and the softmax, into
// the router; the balance loss reaches the router through P̄ only (f is a count). With k = 1 the renormalised gate
// is always 1, so only the balance loss trains the router (Switch multiplies by the raw P instead).

#include <vector>

#include "core/ops/mlp.h"
#include "core/tensor.h"

namespace tw {

// [SECTION] routing (index data only: shared with the MoE panel's experiment, core/experiments/moe_routing.h)
struct MoeRoute {
  int k = 0;                  // experts per token
  int capacity = 0;           // assignments one expert accepts; 0 = unlimited
  std::vector<int> choice;    // (N*k) chosen experts of token t in t*k .. t*k+k-1, best first
  std::vector<char> dropped;  // (N*k) 1 where that assignment found its expert full
  std::vector<int> wanted;    // (E) assignments each expert was asked for (Σ = N·k)
  std::vector<int> load;      // (E) assignments it accepted (Σ = N·k − n_dropped)
  int n_dropped = 0;
};

// Chooses each row's top-k of probs (N, E) and applies the capacity ⌈capacity_factor · N·k / E⌉ (no limit when
// capacity_factor ≤ 0). Assumes 1 ≤ k ≤ E. Reuses r's buffers.
template <class S>
void moe_route(MoeRoute& r, const MatT<S>& probs, int k, double capacity_factor);

// [SECTION] the layer
// One expert's matrices, borrowed from wherever the model keeps them (float or double weights alike).
template <class S>
struct ExpertRef {
  const MatT<S>* gate;  // (F, C) GLU kinds only, else unused
  const MatT<S>* up;    // (F, C)
  const MatT<S>* down;  // (C, F)
};
template <class S>
struct ExpertGradRef {
  MatT<S>* gate;  // (F, C) +=
  MatT<S>* up;    // (F, C) +=
  MatT<S>* down;  // (C, F) +=
};

// What the backward needs, kept by name (and what a figure reads: probs, route, balance).
template <class S>
struct MoeActs {
  MatT<S> probs;                                 // (N, E) router softmax
  MoeRoute route;                                // choice, drops, loads
  std::vector<S> gates;                          // (N*k) gate of each assignment, 0 where dropped
  std::vector<S> gate_sum;                       // (N) Σ of the k chosen probabilities (the renormaliser)
  double balance = 0;                            // E · Σ_e f_e · P̄_e
  std::vector<std::vector<int>> slots;           // (E) assignment a = t*k + j of each accepted row, in row order
  std::vector<MatT<S>> xin, gate, up, hid, out;  // (E) of (n_e, C), (n_e, F) ×3, (n_e, C): one expert's rows
  // backward scratch
  std::vector<S> dgates;                         // (N*k) ∂L/∂gate of each assignment
  MatT<S> dprobs, dout, dhid, dgate, dup, dxin;  // (N, E), then per expert (n_e, C/F)
};

// y: (N, C) overwritten; x: (N, C); router: (E, C); experts: E of them, `kind` and `act` as mlp_forward.
template <class S>
void moe_ffn_forward(MatT<S>& y, MoeActs<S>& a, const MatT<S>& x, const MatT<S>& router,
                     const std::vector<ExpertRef<S>>& experts, MlpKind kind, Activation act, int k,
                     double capacity_factor);

// dx (N, C) +=, drouter (E, C) +=, dexperts +=, from dy = ∂L/∂y (N, C) and balance_grad = ∂L/∂balance (the
// coefficient the balance loss enters the total loss with; 0 = not in the loss). `a` is the forward's state
// (its scratch is overwritten).
template <class S>
void moe_ffn_backward(MatT<S>& dx, MatT<S>& drouter, const std::vector<ExpertGradRef<S>>& dexperts, MoeActs<S>& a,
                      const MatT<S>& dy, const MatT<S>& x, const MatT<S>& router,
                      const std::vector<ExpertRef<S>>& experts, MlpKind kind, Activation act, double balance_grad);

}  // namespace tw
