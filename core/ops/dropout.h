#pragma once
// Dropout (Srivastava et al. 2014, "inverted" as PyTorch's nn.Dropout): during training each element of x is
// zeroed with probability p and the survivors are scaled by 1/(1 − p), so E[out] = x and evaluation needs no
// rescaling (it simply skips the op). The backward multiplies the gradient by the same mask.
//
// The mask is a pure function of (seed, element index): a counter-based hash (SplitMix64's finaliser) decides each
// element, so a step's masks are reproducible on any machine, thread count or summation order, and a
// finite-difference check sees the same network on every evaluation.

#include <cstdint>

#include "core/tensor.h"

namespace tw {

// mask: (N, C) resized; each entry 0 with probability p, else 1/(1 − p). p in [0, 1); p = 0 gives all ones.
template <class S>
void dropout_mask(MatT<S>& mask, int rows, int cols, double p, uint64_t seed);

// x: (N, C) ← x ⊙ mask (in place: the branch output the residual then adds).
template <class S>
void dropout_forward(MatT<S>& x, const MatT<S>& mask);

// dx: (N, C) ← dout ⊙ mask (overwritten).
template <class S>
void dropout_backward(MatT<S>& dx, const MatT<S>& dout, const MatT<S>& mask);

// The seed of one dropout site: mixes the step's seed with the site's number (layer · 2 + branch), so every site
// of every step draws its own mask.
uint64_t dropout_site_seed(uint64_t step_seed, int site);

}  // namespace tw
