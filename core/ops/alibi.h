#pragma once
// ALiBi (Press et al., 2022): no position embeddings; each head adds a linear distance penalty to its scores.
//
// Slopes follow the reference get_slopes: for n heads a power of two, m_k = 2^(−8k/n), k = 1..n
// (a geometric sequence starting at 2^(−8/n)); for other n, the slopes of the closest lower power of two
// p, followed by every other slope (the 1st, 3rd, ...) of 2p, n − p of them.
// Bias: causal −m·(i − j) for j ≤ i (future keys are left to the mask); symmetric −m·|i − j|.
// The bias is added after the 1/√d_k scaling and is not divided by it.

#include <vector>

#include "core/tensor.h"

namespace tw {

// Slopes for n_heads ≥ 1, head 0 first. Computed in double, returned as float.
std::vector<double> alibi_slopes(int n_heads);

// Bias for one head, query positions q_offset..q_offset+T_q−1 against keys 0..T_k−1.
// causal (symmetric == false): −m·(i − j) where j ≤ i, and 0 where j > i (those cells belong to the mask).
// symmetric: −m·|i − j| everywhere.
void alibi_bias(Mat& out, double slope, int T_q, int T_k, int q_offset, bool symmetric);

// One bias value; the tiled attention kernel uses this instead of a T×T matrix.
inline float alibi_bias_at(double slope, int i, int j, bool symmetric) {
  const int d = i - j;
  if (symmetric) return static_cast<float>(-slope * (d < 0 ? -d : d));
  return d >= 0 ? static_cast<float>(-slope * d) : 0.0f;
}

}  // namespace tw
