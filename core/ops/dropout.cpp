#include "core/ops/dropout.h"

#include <cassert>

namespace tw {

namespace {
// SplitMix64's output function: a bijection of 64-bit words whose outputs pass BigCrush for consecutive inputs.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

uint64_t dropout_site_seed(uint64_t step_seed, int site) {
  return mix64(step_seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(site) + 1);
}

template <class S>
void dropout_mask(MatT<S>& mask, int rows, int cols, double p, uint64_t seed) {
  // mask: (N, C); element i is dropped when the top 53 bits of mix64(seed + i), as a uniform in [0, 1), are < p.
  assert(p >= 0.0 && p < 1.0);
  mask.resize(rows, cols);
  const S keep = static_cast<S>(1.0 / (1.0 - p));
  S* m = mask.data();
  const int64_t n = static_cast<int64_t>(rows) * cols;
  for (int64_t i = 0; i < n; ++i) {
    const double u =
        static_cast<double>(mix64(seed + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(i)) >> 11) * 0x1.0p-53;
    m[i] = u < p ? S(0) : keep;
  }
}

template <class S>
void dropout_forward(MatT<S>& x, const MatT<S>& mask) {
  // x, mask: (N, C)
  assert(x.rows() == mask.rows() && x.cols() == mask.cols());
  x.array() *= mask.array();
}

template <class S>
void dropout_backward(MatT<S>& dx, const MatT<S>& dout, const MatT<S>& mask) {
  // dx, dout, mask: (N, C)
  assert(dout.rows() == mask.rows() && dout.cols() == mask.cols());
  dx = dout.cwiseProduct(mask);
}

template void dropout_mask<float>(Mat&, int, int, double, uint64_t);
template void dropout_mask<double>(MatD&, int, int, double, uint64_t);
template void dropout_forward<float>(Mat&, const Mat&);
template void dropout_forward<double>(MatD&, const MatD&);
template void dropout_backward<float>(Mat&, const Mat&, const Mat&);
template void dropout_backward<double>(MatD&, const MatD&, const MatD&);

}  // namespace tw
