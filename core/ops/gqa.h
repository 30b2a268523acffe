#pragma once
// Grouped-query attention bookkeeping: which key/value head each query head reads, the repeat_kv
// expansion, and converting a multi-head layer to GQA (Ainslie et al. 2023).
//
// With n_rep = H / KV query heads per key/value head, query head h reads KV head h / n_rep: contiguous
// groups, exactly as torch.repeat_interleave(k, n_rep, dim=heads) lays them out. KV = H is multi-head
// attention (MHA), KV = 1 is multi-query attention (MQA), anything between is GQA.
// core/ops/attention reads KV head h / n_rep directly; repeat_kv materialises the same thing, which is how
// the Hugging Face LLaMA code does it and what the tests compare against.

#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

// Empty when H and KV form a valid grouping (both ≥ 1, KV divides H); otherwise one sentence.
std::string check_gqa(int n_heads, int n_kv_heads);

// KV head read by query head h: h / (H / KV). Assumes check_gqa passed and 0 ≤ h < H.
inline int kv_head_of(int h, int n_heads, int n_kv_heads) { return h / (n_heads / n_kv_heads); }

// (H) the KV head of every query head.
std::vector<int> kv_head_map(int n_heads, int n_kv_heads);

// Every KV that divides H, ascending (1 = MQA … H = MHA): the valid choices for a slider.
std::vector<int> valid_kv_head_counts(int n_heads);

// MHA → GQA conversion by mean-pooling the heads of each group of a K or V projection weight stored
// (H*D, C) as HF k_proj/v_proj: out head g = mean over h in [g·n_rep, (g+1)·n_rep) of w head h.
//   w: (H*D, C)   out: (KV*D, C)
void mean_pool_kv_heads(Mat& out, const Mat& w, int H, int KV, int D, int C);

}  // namespace tw
