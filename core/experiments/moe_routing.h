#pragma once
// Mixture-of-experts routing: a router scores every token against E experts, each token goes to its top-k,
// experts accept at most `capacity` tokens, and an auxiliary loss pushes the router toward balanced load.
//
//   router probs   P = softmax(x · W_rᵀ)                      (N, E), one row per token
//   top-k          the k experts with the largest P_t,e        (ties: lower expert index first)
//   gates          g_t,e = P_t,e / Σ_{chosen e'} P_t,e'        renormalised over the k chosen (Mixtral)
//   capacity       ⌈capacity_factor · N · k / E⌉ per expert    (Switch / GShard); assignments are served by
//                  rank (every token's first choice before any second choice), in token order within a rank;
//                  an assignment past a full expert is dropped: its gate becomes 0 and the token's residual
//                  stream carries it past that expert
//   balance loss   E · Σ_e f_e · P̄_e, f_e = (assignments wanted by e) / N, P̄_e = mean_t P_t,e
//                  (Hugging Face's load_balancing_loss_func for Mixtral; equals k when the router is uniform)
//   parameters     total = E · expert + router, active per token = k · expert + router,
//                  expert = (3 for a gated MLP, else 2) · C · F, router = E · C

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

struct MoeParams {
  int tokens = 16;                // N
  int dim = 16;                   // C
  int experts = 8;                // E
  int top_k = 2;                  // k, 1 ≤ k ≤ E
  double capacity_factor = 1.25;  // > 0
  int hidden = 64;                // F of each expert's MLP (parameter counts only)
  bool gated = true;              // SwiGLU experts (3 matrices) or plain (2)
  double router_bias = 0.0;       // added to expert 0's logit: makes one expert popular, to show drops
  uint64_t seed = 1;
};

std::string validate(const MoeParams& p);  // "" when usable, else one sentence naming the field

struct MoeRouting {
  Mat probs;                  // (N, E) router softmax
  std::vector<int> choice;    // (N, k) chosen experts, best first
  std::vector<char> dropped;  // (N, k) 1 where that assignment exceeded the expert's capacity
  Mat gates;                  // (N, E) combine weights; 0 for unchosen and dropped assignments
  std::vector<int> wanted;    // (E) assignments each expert was asked for
  std::vector<int> load;      // (E) assignments it accepted (≤ capacity)
  int capacity = 0;           // tokens one expert accepts
  int n_dropped = 0;          // Σ dropped = Σ wanted − Σ load
  double balance_loss = 0;    // E · Σ f_e P̄_e
  int64_t total_params = 0;   // experts + router
  int64_t active_params = 0;  // per token
};

// Routes tokens x (N, C) with router weights (E, C). Assumes validate(params) passed for the sizes given.
MoeRouting route_tokens(const Mat& x, const Mat& router, const MoeParams& params);

// The panel's experiment: seeded Gaussian tokens and router (std 1/√C), plus router_bias on expert 0.
MoeRouting moe_experiment(const MoeParams& params);

// Work of one moe_experiment in multiply-adds: the router's N × C × E scores (the rest is O(N · E)).
double moe_experiment_work(const MoeParams& params);

}  // namespace tw
