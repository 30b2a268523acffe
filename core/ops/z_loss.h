#pragma once
// z-loss (PaLM, Chowdhery et al. 2022): an auxiliary term coef · mean(log² Z) added to the training loss, where
// Z = Σ_v exp(logit_v) is the softmax normaliser of each predicted row. It pulls log Z toward 0 so the logits
// cannot drift to huge values that make bf16/float softmax unstable; PaLM used coef = 1e-4.
//   term   = coef · (1/n) Σ_{i: target_i ≥ 0} (log Z_i)²
//   dterm/dlogit_iv = coef · 2 · log Z_i · softmax(logits_i)_v / n        (because ∂ log Z / ∂ logit_v = p_v)

#include "core/tensor.h"

namespace tw {

// logz: (N) log Z of each row with a target (others 0); logits: (N, V); targets: (N), −1 = no loss.
// Returns coef · mean(log² Z) over rows with a target (0 when none).
template <class S>
double z_loss_forward(VecT<S>& logz, const MatT<S>& logits, const int* targets, int N, double coef);

// dlogits: (N, V) +=; probs: (N, V) softmax of the logits (the cross-entropy forward's); logz from the forward.
template <class S>
void z_loss_backward(MatT<S>& dlogits, const MatT<S>& probs, const VecT<S>& logz, const int* targets, int N,
                     double coef);

}  // namespace tw
