#pragma once
// Absolute sinusoidal position vectors (Vaswani et al., 2017), added to the token embeddings:
//   PE(p, 2i) = sin(p / 10000^(2i/C)),   PE(p, 2i+1) = cos(p / 10000^(2i/C)),   i = 0 .. C/2 - 1.
// Each pair of channels is a clock at its own frequency, so nearby positions get similar vectors.

#include "core/tensor.h"

namespace tw {

// out: (T, C) vectors for positions pos_offset .. pos_offset+T-1. C must be even. Angles are formed in double.
void sinusoidal_positions(Mat& out, int pos_offset, int T, int C);

}  // namespace tw
