#include "core/ops/cross_entropy.h"

#include "core/ops/exp_kernel.h"

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
