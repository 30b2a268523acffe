#pragma once
// Comparing tensors: the measure every "fast kernel vs reference" check and every test uses.

#include "core/tensor.h"

namespace tw {

// Largest |a − b| over all entries; +∞ when the shapes differ (so a shape bug never passes as "close").
float max_abs_diff(const Mat& a, const Mat& b);
// max |a − b| divided by the largest |b| (at least 1e-30): the error relative to the magnitude of the reference.
// Products summed in another order (another CPU's kernel, another thread count, another BLAS blocking) agree to a
// few float ulps of the magnitude of the result, not to an absolute bound, so compare those with this.
float max_rel_diff(const Mat& a, const Mat& b);
// True when every entry is finite (no NaN, no ±∞).
bool all_finite(const Mat& a);

}  // namespace tw
