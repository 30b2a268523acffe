#include "core/ops/cross_entropy.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tw {

namespace {
template <class S>
using Row = Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>;
template <class S>
using ConstRow = Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>;

// p = e^(x − mx) over a row of V logits; returns Σ p. The sum runs in 16 lanes added in a fixed order, so it is
// the same number whichever instruction set the clone below runs on. Compiled for AVX-512, AVX2 and the baseline
// (the build itself targets the baseline; the vocabulary-wide pass is a third of a small model's step otherwise).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
float exp_row(float* __restrict p, const float* __restrict x, float mx, int V) {
  // e^(x − mx) ≤ 1: Cody–Waite reduction y = n·ln 2 + r with the split ln 2 = 0.693359375 − 2.12194440e-4, the
  // degree-6 polynomial of Cephes' expf for e^r (about 1 ulp), and 2^n through the exponent bits. Below −87, e^y
  // leaves float's normal range: y is clamped there (≈ 1.6e-38, nothing against the row's largest term, 1). The
  // clamp compares and selects bits (both negative: the larger magnitude has the larger pattern), so the loop has
  // no floating-point branch and vectorises. Written out here: a helper compiled for the baseline is not inlined
  // into the AVX clones.
  // A row holding NaN or ±∞ (a diverged run) must stay non-finite without undefined behaviour: y is clamped into
  // [−87, 0] by bits (negative NaN counts as below −87, +0, +∞ and positive NaN as above 0) so the integer
  // conversion is always defined, and y₀ − y₀ (0 when finite, NaN otherwise) is added to the result.
  constexpr uint32_t kMinus87 = 0xC2AE0000u;  // the bits of −87.0f
  constexpr uint32_t kSign = 0x80000000u;
  for (int v = 0; v < V; ++v) {
    const float y0 = x[v] - mx;
    const uint32_t bits = std::bit_cast<uint32_t>(y0);
    const uint32_t below = 0u - static_cast<uint32_t>(bits > kMinus87);  // all ones where y < −87 (or −NaN)
    const uint32_t above = 0u - static_cast<uint32_t>(bits < kSign);     // all ones where y ≥ +0 (or +∞, +NaN)
    float y = std::bit_cast<float>((bits & ~below & ~above) | (kMinus87 & below));
    const int n = static_cast<int>(y * 1.44269504088896341f - 0.5f);  // a nearby integer (y ≤ 0)
    const float fn = static_cast<float>(n);
    float r = y - fn * 0.693359375f;
    r = r - fn * -2.12194440e-4f;
    float q = 1.9875691500e-4f;
    q = q * r + 1.3981999507e-3f;
    q = q * r + 8.3334519073e-3f;
    q = q * r + 4.1665795894e-2f;
    q = q * r + 1.6666665459e-1f;
    q = q * r + 5.0000001201e-1f;
    p[v] = (q * r * r + r + 1.0f) * std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23) + (y0 - y0);
  }
  constexpr int kLanes = 16;
  float acc[kLanes] = {};
  int v = 0;
  for (; v + kLanes <= V; v += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += p[v + j];
  for (int j = 0; v < V; ++v, ++j) acc[j] += p[v];
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}
}  // namespace

template <class S>
double cross_entropy_forward(MatT<S>& probs, const MatT<S>& logits, const int* targets, int N) {
  // logits, probs: (N, V)   targets: (N)
  const int V = static_cast<int>(logits.cols());
  probs.resize(logits.rows(), V);
  double sum = 0.0;
  int n = 0;
  for (int i = 0; i < N; ++i) {  // one row per work item; the mean is a sum in row order (deterministic)
    if (targets[i] < 0) continue;
    assert(targets[i] < V);
    const ConstRow<S> x(logits.data() + static_cast<Eigen::Index>(i) * V, V);
    Row<S> p(probs.data() + static_cast<Eigen::Index>(i) * V, V);
    const S mx = x.maxCoeff();
    double z = 0;
    if constexpr (std::is_same_v<S, float>) {
      z = exp_row(p.data(), x.data(), mx, V);
    } else {  // double (the finite-difference path): Eigen's exp
      p = (x - mx).exp();
      z = p.sum();
    }
    p *= static_cast<S>(1.0 / z);
    sum += std::log(z) - static_cast<double>(x[targets[i]] - mx);  // −log p[target], via log-sum-exp
    ++n;
  }
  return n ? sum / n : 0.0;
}

template <class S>
void cross_entropy_backward(MatT<S>& dlogits, const MatT<S>& probs, const int* targets, int N, bool accumulate) {
  // probs, dlogits: (N, V)   targets: (N)
  const int V = static_cast<int>(probs.cols());
  int n = 0;
  for (int i = 0; i < N; ++i) n += targets[i] >= 0;
  if (n == 0 && accumulate) return;
  const S inv_n = static_cast<S>(n ? 1.0 / n : 0.0);
  for (int i = 0; i < N; ++i) {
    Row<S> d(dlogits.data() + static_cast<Eigen::Index>(i) * V, V);
    if (targets[i] < 0) {
      if (!accumulate) d.setZero();
      continue;
    }
    const ConstRow<S> p(probs.data() + static_cast<Eigen::Index>(i) * V, V);
    if (accumulate)
      d += p * inv_n;
    else
      d = p * inv_n;  // the same bits as 0 + p/n (p ≥ 0, so never −0)
    d[targets[i]] -= inv_n;
  }
}

template double cross_entropy_forward<float>(Mat&, const Mat&, const int*, int);
template double cross_entropy_forward<double>(MatD&, const MatD&, const int*, int);
template void cross_entropy_backward<float>(Mat&, const Mat&, const int*, int, bool);
template void cross_entropy_backward<double>(MatD&, const MatD&, const int*, int, bool);

}  // namespace tw
