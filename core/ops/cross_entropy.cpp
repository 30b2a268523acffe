#include "core/ops/cross_entropy.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tw {

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
    const S* x = logits.data() + static_cast<Eigen::Index>(i) * V;
    S* p = probs.data() + static_cast<Eigen::Index>(i) * V;
    S mx = x[0];
    for (int v = 1; v < V; ++v) mx = std::max(mx, x[v]);
    double z = 0.0;
    for (int v = 0; v < V; ++v) {
      p[v] = std::exp(x[v] - mx);
      z += p[v];
    }
    const S inv = static_cast<S>(1.0 / z);
    for (int v = 0; v < V; ++v) p[v] *= inv;
    sum += std::log(z) - static_cast<double>(x[targets[i]] - mx);  // −log p[target], via log-sum-exp
    ++n;
  }
  return n ? sum / n : 0.0;
}

template <class S>
void cross_entropy_backward(MatT<S>& dlogits, const MatT<S>& probs, const int* targets, int N) {
  // probs, dlogits: (N, V)   targets: (N)
  const int V = static_cast<int>(probs.cols());
  int n = 0;
  for (int i = 0; i < N; ++i) n += targets[i] >= 0;
  if (n == 0) return;
  const S inv_n = static_cast<S>(1.0 / n);
  for (int i = 0; i < N; ++i) {
    if (targets[i] < 0) continue;
    const S* p = probs.data() + static_cast<Eigen::Index>(i) * V;
    S* d = dlogits.data() + static_cast<Eigen::Index>(i) * V;
    for (int v = 0; v < V; ++v) d[v] += p[v] * inv_n;
    d[targets[i]] -= inv_n;
  }
}

template double cross_entropy_forward<float>(Mat&, const Mat&, const int*, int);
template double cross_entropy_forward<double>(MatD&, const MatD&, const int*, int);
template void cross_entropy_backward<float>(Mat&, const Mat&, const int*, int);
template void cross_entropy_backward<double>(MatD&, const MatD&, const int*, int);

}  // namespace tw
