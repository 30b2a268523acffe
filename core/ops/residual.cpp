#include "core/ops/residual.h"

#include <cassert>

namespace tw {

template <class S>
void residual_forward(MatT<S>& out, const MatT<S>& a, const MatT<S>& b) {
  // a, b, out: (N, C)
  assert(a.rows() == b.rows() && a.cols() == b.cols());
  out = a + b;  // elementwise, so aliasing a or b is safe
}

template <class S>
void residual_backward(MatT<S>* da, MatT<S>* db, const MatT<S>& dout) {
  // dout, da, db: (N, C)
  if (da) *da += dout;
  if (db) *db += dout;
}

template void residual_forward<float>(Mat&, const Mat&, const Mat&);
template void residual_forward<double>(MatD&, const MatD&, const MatD&);
template void residual_backward<float>(Mat*, Mat*, const Mat&);
template void residual_backward<double>(MatD*, MatD*, const MatD&);

}  // namespace tw
