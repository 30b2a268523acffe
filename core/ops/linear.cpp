#include "core/ops/linear.h"

#include <cassert>

namespace tw {

template <class S>
void linear_forward(MatT<S>& out, const MatT<S>& x, const MatT<S>& w) {
  // x: (N, in)   w: (out, in)   out: (N, out)
  assert(x.cols() == w.cols());
  out.resize(x.rows(), w.rows());
  out.noalias() = x * w.transpose();
}

template <class S>
void linear_forward_add(MatT<S>& out, const MatT<S>& x, const MatT<S>& w, const MatT<S>& residual) {
  // x: (N, in)   w: (out, in)   residual, out: (N, out)
  assert(x.cols() == w.cols() && residual.rows() == x.rows() && residual.cols() == w.rows() && &out != &residual);
  out = residual;
  out.noalias() += x * w.transpose();
}

template <class S>
void linear_backward(MatT<S>* dx, MatT<S>& dw, const MatT<S>& dout, const MatT<S>& x, const MatT<S>& w,
                     bool accumulate_dx) {
  // dout: (N, out)   x, dx: (N, in)   w, dw: (out, in)
  assert(dout.rows() == x.rows() && dout.cols() == w.rows() && dw.rows() == w.rows() && dw.cols() == w.cols());
  if (dx) {
    assert(dx->rows() == x.rows() && dx->cols() == x.cols());
    if (accumulate_dx)
      dx->noalias() += dout * w;
    else
      dx->noalias() = dout * w;
  }
  dw.noalias() += dout.transpose() * x;
}

template void linear_forward<float>(Mat&, const Mat&, const Mat&);
template void linear_forward<double>(MatD&, const MatD&, const MatD&);
template void linear_forward_add<float>(Mat&, const Mat&, const Mat&, const Mat&);
template void linear_forward_add<double>(MatD&, const MatD&, const MatD&, const MatD&);
template void linear_backward<float>(Mat*, Mat&, const Mat&, const Mat&, const Mat&, bool);
template void linear_backward<double>(MatD*, MatD&, const MatD&, const MatD&, const MatD&, bool);

}  // namespace tw
