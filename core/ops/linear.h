#pragma once
// Linear layer without bias, weights stored (out_features, in_features) as in Hugging Face checkpoints:
//   y = x · Wᵀ          forward
//   dx += dy · W        backward to the input
//   dW += dyᵀ · x       backward to the weight (summed over every row: every token of every sequence)
// Both directions are single matrix products, so Eigen (or OpenBLAS) does the work.

#include "core/tensor.h"

namespace tw {

// out: (N, out); x: (N, in); w: (out, in).
template <class S>
void linear_forward(MatT<S>& out, const MatT<S>& x, const MatT<S>& w);

// out = residual + x · Wᵀ with the product accumulated onto a copy of the residual (one GEMM with β = 1: no zeroed
// output, no separate addition pass). out: (N, out); x: (N, in); w: (out, in); residual: (N, out), not aliasing out.
// Equals residual_forward(out, x·Wᵀ, residual) up to float rounding (the GEMM's partial sums start at the residual).
template <class S>
void linear_forward_add(MatT<S>& out, const MatT<S>& x, const MatT<S>& w, const MatT<S>& residual);

// dx: (N, in) += (skipped when null; overwritten instead when accumulate_dx is false, which saves zeroing it);
// dw: (out, in) +=; dout: (N, out); x: (N, in); w: (out, in).
template <class S>
void linear_backward(MatT<S>* dx, MatT<S>& dw, const MatT<S>& dout, const MatT<S>& x, const MatT<S>& w,
                     bool accumulate_dx = true);

}  // namespace tw
