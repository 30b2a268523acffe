#pragma once
// Next-token cross-entropy, as F.cross_entropy(logits, targets, ignore_index=-1):
//   loss = (1/n) Σ_{i: target_i ≥ 0} −log softmax(logits_i)[target_i],   n = number of such rows
//   dlogits_i = (softmax(logits_i) − onehot(target_i)) / n   for those rows, 0 for ignored rows.
// The softmax subtracts the row maximum and the loss uses log-sum-exp, so large logits never overflow.

#include "core/tensor.h"

namespace tw {

// probs: (N, V) softmax of each row with a target (ignored rows are left as they were); logits: (N, V);
// targets: (N), −1 = no loss. Returns the mean loss (double), or 0 when no row has a target.
template <class S>
double cross_entropy_forward(MatT<S>& probs, const MatT<S>& logits, const int* targets, int N);

// dlogits: (N, V) += (overwritten instead when accumulate is false: rows without a target become 0, which saves
// zeroing the vocabulary-wide buffer first); probs: (N, V) from the forward; targets: (N).
template <class S>
void cross_entropy_backward(MatT<S>& dlogits, const MatT<S>& probs, const int* targets, int N, bool accumulate = true);

}  // namespace tw
