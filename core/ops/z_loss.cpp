#include "core/ops/z_loss.h"

#include <algorithm>
#include <cmath>

#include "core/ops/softmax.h"

namespace tw {

template <class S>
double z_loss_forward(VecT<S>& logz, const MatT<S>& logits, const int* targets, int N, double coef) {
  // logits: (N, V)   targets, logz: (N)
  const int V = static_cast<int>(logits.cols());
  logz.setZero(N);
  double sum = 0.0;
  int n = 0;
  for (int i = 0; i < N; ++i) {  // one row per work item; log-sum-exp subtracts the row max
    if (targets[i] < 0) continue;
    const S* x = logits.data() + static_cast<Eigen::Index>(i) * V;
    const double lz = log_sum_exp(x, V);
    logz[i] = static_cast<S>(lz);
    sum += lz * lz;
    ++n;
  }
  return n ? coef * sum / n : 0.0;
}

template <class S>
void z_loss_backward(MatT<S>& dlogits, const MatT<S>& probs, const VecT<S>& logz, const int* targets, int N,
                     double coef) {
  // dlogits, probs: (N, V)   logz, targets: (N)
  const int V = static_cast<int>(probs.cols());
  int n = 0;
  for (int i = 0; i < N; ++i) n += targets[i] >= 0;
  if (n == 0 || coef == 0.0) return;
  for (int i = 0; i < N; ++i) {
    if (targets[i] < 0) continue;
    const S k = static_cast<S>(2.0 * coef * static_cast<double>(logz[i]) / n);
    const S* p = probs.data() + static_cast<Eigen::Index>(i) * V;
    S* d = dlogits.data() + static_cast<Eigen::Index>(i) * V;
    for (int v = 0; v < V; ++v) d[v] += k * p[v];
  }
}

template double z_loss_forward<float>(Vec&, const Mat&, const int*, int, double);
template double z_loss_forward<double>(VecD&, const MatD&, const int*, int, double);
template void z_loss_backward<float>(Mat&, const Mat&, const Vec&, const int*, int, double);
template void z_loss_backward<double>(MatD&, const MatD&, const VecD&, const int*, int, double);

}  // namespace tw
