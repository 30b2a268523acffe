#include "core/ops/exp_kernel.h"

namespace tw {

namespace {
// Σ p[0..n) in 16 lanes added in a fixed order.
[[gnu::always_inline]] inline float lane_sum(const float* p, int n) {
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int v = 0;
  for (; v + kLanes <= n; v += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += p[v + j];
  for (int j = 0; v < n; ++v, ++j) acc[j] += p[v];
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
float exp_row(float* __restrict p, const float* __restrict x, float shift, int n) {
  for (int v = 0; v < n; ++v) p[v] = exp_nonpositive(x[v] - shift);
  return lane_sum(p, n);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
float exp_row_inplace(float* x, float shift, int n) {
  for (int v = 0; v < n; ++v) x[v] = exp_nonpositive(x[v] - shift);
  return lane_sum(x, n);
}

}  // namespace tw
