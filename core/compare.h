#pragma once
// Comparing tensors: the measure every "fast kernel vs reference" check and every test uses.

#include "core/tensor.h"

namespace tw {

// Largest |a − b| over all entries; +∞ when the shapes differ (so a shape bug never passes as "close").
float max_abs_diff(const Mat& a, const Mat& b);
// True when every entry is finite (no NaN, no ±∞).
bool all_finite(const Mat& a);

}  // namespace tw
