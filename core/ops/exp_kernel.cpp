#include "core/ops/exp_kernel.h"

namespace tw {

namespace {
// The exponentials run in blocks of 64 values unrolled into independent vectors: each value's polynomial is a
// chain of dependent operations, and interleaving several chains keeps the FP units busy (same operations per
// value, so the same bits).
constexpr int kBlock = 64;

// Σ p[0..n) in 16 lanes added in a fixed order.
[[gnu::always_inline]] inline float lane_sum(const float* p, int n) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int v = 0;
  for (; v + kLanes <= n; v += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += p[v + j];
  for (int j = 0; v < n; ++v, ++j) acc[j] += p[v];
  // The tree 16 → 8 → 4 → 2 → 1 written out (constant trip counts unroll into a few vector adds; a loop over the
  // width kept the lanes on the stack and cost as much as the exponentials of a 64-wide attention row).
  for (int j = 0; j < 8; ++j) acc[j] += acc[j + 8];
  for (int j = 0; j < 4; ++j) acc[j] += acc[j + 4];
  for (int j = 0; j < 2; ++j) acc[j] += acc[j + 2];
  return acc[0] + acc[1];
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
float exp_row(float* __restrict p, const float* __restrict x, float shift, int n) {
  int v = 0;
  for (; v + kBlock <= n; v += kBlock)
#pragma GCC unroll 64
    for (int j = 0; j < kBlock; ++j) p[v + j] = exp_nonpositive(x[v + j] - shift);
  for (; v < n; ++v) p[v] = exp_nonpositive(x[v] - shift);
  return lane_sum(p, n);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
float exp_row_inplace(float* x, float shift, int n) {
  int v = 0;
  for (; v + kBlock <= n; v += kBlock)
#pragma GCC unroll 64
    for (int j = 0; j < kBlock; ++j) x[v + j] = exp_nonpositive(x[v + j] - shift);
  for (; v < n; ++v) x[v] = exp_nonpositive(x[v] - shift);
  return lane_sum(x, n);
}

}  // namespace tw
