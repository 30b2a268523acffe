#pragma once
// The forward pass of the Transformer, recorded step by step in a Trace.
//
// Pre-norm block (LLaMA):   h = x + Attn(Norm(x));   out = h + MLP(Norm(h))
// Post-norm block (2017):   h = Norm(x + Attn(x));   out = Norm(h + MLP(h))
// Parallel block (NeoX):    h = x + Attn(Norm(x));   out = h + MLP(Norm(x))   (pre-norm; layers.L.mlp_norm reads x)
// then (pre-norm only) a final norm, and the logits = x · E_headᵀ (E_head = lm_head, or the embedding if tied).
//
// Trace step names (stable; `dump` file names and the stepper panel rely on them), L = layer index. The rows of
// core/model/forward_steps.h, checked against this list by tests/core/model/test_forward_steps.cpp:
//   embed                     (T, C)      token embedding rows
//   pos_embed                 (T, C)      x + learned / sinusoidal position vectors (those configs only)
//   layers.L.attn_norm        (T, C)      pre: Norm(x) before attention; post: Norm(x + Attn(x)) after it
//   layers.L.attn.q           (T, H, D)   queries, stored (T, H*D)
//   layers.L.attn.k           (T, KV, D)  keys of the new tokens, stored (T, KV*D)
//   layers.L.attn.v           (T, KV, D)  values of the new tokens, stored (T, KV*D)
//   layers.L.attn.q_norm      (T, H, D)   QK-norm before RoPE only (Qwen3, Gemma 3): each head's q RMS-normalised
//   layers.L.attn.k_norm      (T, KV, D)  the same for k
//   layers.L.attn.q_rope      (T, H, D)   RoPE configs only
//   layers.L.attn.k_rope      (T, KV, D)  RoPE configs only
//   layers.L.attn.scores      (H, T, T_k) S = Q Kᵀ/√D (+ ALiBi bias), −∞ where masked; stored (H*T, T_k)
//   layers.L.attn.probs       (H, T, T_k) softmax(S) per row
//   layers.L.attn.out         (T, H, D)   P V per head, heads side by side
//   layers.L.attn.proj        (T, C)      out · W_oᵀ
//   layers.L.attn.post_norm   (T, C)      sandwich norms only (Gemma 3): Norm(out · W_oᵀ) before the residual
//   layers.L.attn.residual    (T, C)      x + attention
//   layers.L.mlp_norm         (T, C)      pre: Norm(h) before the MLP; post: Norm(h + MLP(h)) after it
//   layers.L.mlp.router_probs (T, E)      MoE only: softmax of the router logits m W_rᵀ
//   layers.L.mlp.expert_gates (T, E)      MoE only: gate of each chosen expert, 0 where not chosen or dropped
//   layers.L.mlp.expert_load  (E)         MoE only: tokens each expert processed
//   layers.L.mlp.expert_dropped (E)       MoE only: assignments a full expert refused (capacity_factor > 0)
//   layers.L.mlp.gate         (T, F)      gated MLPs only
//   layers.L.mlp.up           (T, F)
//   layers.L.mlp.hidden       (T, F)      act(gate) ⊙ up, or act(up)
//   layers.L.mlp.down         (T, C)      MoE: Σ_e g_t,e · Expert_e(m_t) (no gate/up/hidden steps then)
//   layers.L.mlp.post_norm    (T, C)      sandwich norms only: Norm(MLP output) before the residual
//   layers.L.mlp.residual     (T, C)      h + MLP
//   final_norm                (T, C)      pre-norm only
//   logits                    (T, V)
// In post-norm the order inside a block is ... attn.residual, attn_norm, mlp.*, mlp.residual, mlp_norm.
// T is the number of tokens given; T_k = tokens in the cache after appending them (T_k = T for a full pass).
// MoE capacity counts the tokens of one call: decoding one token at a time never drops, a full pass may.

#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/kv_cache.h"
#include "core/model/trace.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace tw {

// Checks tokens against the config (ids in 0..V-1, 1..max_seq tokens in total including `already_cached`);
// returns "" when valid, otherwise one sentence for the user.
std::string check_tokens(const ModelConfig& config, const std::vector<int>& tokens, int already_cached = 0);

// Full forward pass over `tokens`. logits: (T, V). trace may be null or disabled (the fast path).
// Returns false and sets *error (one line) when the tokens are invalid for the config; never asserts on them.
// Assumes validate(config) is empty and the weights were made for this config.
bool forward(Mat& logits, Trace* trace, const ModelWeights& weights, const ModelConfig& config,
             const std::vector<int>& tokens, std::string* error);

// Incremental forward: processes `tokens` at positions cache.length .. cache.length+T-1, attending to every cached
// key, appends their keys/values to the cache, and returns their logits (T, V). A fresh cache (cache.reset) plus
// the whole prompt is exactly forward(); then one token at a time gives the same logits row by row.
bool forward_cached(Mat& logits, Trace* trace, KVCache& cache, const ModelWeights& weights, const ModelConfig& config,
                    const std::vector<int>& tokens, std::string* error);

// FLOPs of a full forward pass over T tokens, from the same per-step formulas the Trace records.
double forward_flops(const ModelConfig& config, int T);

}  // namespace tw
