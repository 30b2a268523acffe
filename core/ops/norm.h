#pragma once
// Normalisation layers, applied to each token row independently.
//
//   RMSNorm:   y = x / sqrt(mean(x²) + ε) · γ                  (Zhang & Sennrich 2019; LLaMA)
//   LayerNorm: y = (x − mean(x)) / sqrt(var(x) + ε) · γ + β     (biased variance, as torch.nn.LayerNorm)

#include "core/tensor.h"

namespace tw {

// out, x: (T, C); weight γ: (C). out may alias x. rstd (optional): (T), the 1/sqrt(mean(x²)+ε) of each row.
void rmsnorm_forward(Mat& out, const Mat& x, const Vec& weight, float eps, Vec* rstd = nullptr);

// Same without a learned scale (γ = 1), over rows of length n; used for QK-norm on head slices.
void rmsnorm_row(float* out, const float* x, const float* weight, int n, float eps);

// out, x: (T, C); weight γ, bias β: (C). out may alias x. mean, rstd (optional): (T) per-row statistics.
void layernorm_forward(Mat& out, const Mat& x, const Vec& weight, const Vec& bias, float eps, Vec* mean = nullptr,
                       Vec* rstd = nullptr);

}  // namespace tw
