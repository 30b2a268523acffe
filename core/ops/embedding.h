#pragma once
// Embedding lookup: row i of the output is row ids[i] of the table (token embeddings, learned positions).
//   forward:  out[i] = table[ids[i]]
//   backward: dtable[ids[i]] += dout[i]     (scatter-add: a token used twice collects both gradients)

#include "core/tensor.h"

namespace tw {

// out: (N, C); table: (V, C); ids: (N), each in 0..V-1.
template <class S>
void embedding_forward(MatT<S>& out, const MatT<S>& table, const int* ids, int N);

// dtable: (V, C) +=; dout: (N, C); ids: (N). Rows are added in order i = 0..N-1, so the sum is deterministic.
template <class S>
void embedding_backward(MatT<S>& dtable, const MatT<S>& dout, const int* ids, int N);

}  // namespace tw
