#include "core/ops/linear.h"

#include <cassert>
#include <type_traits>

#ifdef TW_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace tw {

template <class S>
void linear_forward(MatT<S>& out, const MatT<S>& x, const MatT<S>& w) {
  // x: (N, in)   w: (out, in)   out: (N, out)
  assert(x.cols() == w.cols());
  out.resize(x.rows(), w.rows());
#ifdef TW_HAVE_OPENBLAS
  // Eigen's BLAS binding zeroes the destination and then calls sgemm with β = 1 (it reads the zeros back); one
  // sgemm with β = 0 writes out once. Same kernel, same sums: the result is bit for bit Eigen's.
  if constexpr (std::is_same_v<S, float>) {
    const int N = static_cast<int>(x.rows()), in = static_cast<int>(x.cols()), n_out = static_cast<int>(w.rows());
    if (N > 0 && in > 0 && n_out > 0 && in + N + n_out >= 20) {  // Eigen's own cut-off (coefficient-wise below)
      assert(&out != &x && &out != &w);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, n_out, in, 1.0f, x.data(), in, w.data(), in, 0.0f,
                  out.data(), n_out);
      return;
    }
  }
#endif
  out.noalias() = x * w.transpose();
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
template void linear_backward<float>(Mat*, Mat&, const Mat&, const Mat&, const Mat&, bool);
template void linear_backward<double>(MatD*, MatD&, const MatD&, const MatD&, const MatD&, bool);

}  // namespace tw
