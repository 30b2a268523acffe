#pragma once
// Residual connection: out = a + b. Its backward hands the same gradient to both branches (da += dout,
// db += dout), which is why gradients flow unchanged down the residual stream of a deep pre-norm model.

#include "core/tensor.h"

namespace tw {

// out, a, b: (N, C). out may alias a or b.
template <class S>
void residual_forward(MatT<S>& out, const MatT<S>& a, const MatT<S>& b);

// da, db: (N, C) += (either may be null); dout: (N, C).
template <class S>
void residual_backward(MatT<S>* da, MatT<S>* db, const MatT<S>& dout);

}  // namespace tw
