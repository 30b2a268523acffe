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

// [SECTION] training kernels (float and double)
// Row kernels over N independent rows of C values, the form both the model's norms (N = B*T tokens) and QK-norm
// (N = B*T*heads slices of D) use. The forward keeps the per-row statistics the backward needs. Every backward
// ACCUMULATES (+=) into its gradient outputs (llm.c's convention: a caller sums several uses by calling twice and
// zeroes the buffers once per step).
namespace tw {

// out, x: (N, C); weight: (C) or nullptr for γ = 1; rstd: (N). Same arithmetic as rmsnorm_forward above.
template <class S>
void rmsnorm_rows_forward(S* out, S* rstd, const S* x, const S* weight, int N, int C, float eps);
// dx: (N, C) +=; dweight: (C) += (ignored when weight is nullptr); dout, x: (N, C); rstd: (N).
// y = x·r·γ with r = (mean(x²) + ε)^(-1/2):  dx = r·(γ⊙dy) − r³/C · x · Σ(γ⊙dy⊙x),  dγ = Σ_rows dy⊙x·r.
template <class S>
void rmsnorm_rows_backward(S* dx, S* dweight, const S* dout, const S* x, const S* weight, const S* rstd, int N, int C);

// out, x: (N, C); weight, bias: (C); mean, rstd: (N). Same arithmetic as layernorm_forward above.
template <class S>
void layernorm_rows_forward(S* out, S* mean, S* rstd, const S* x, const S* weight, const S* bias, int N, int C,
                            float eps);
// dx: (N, C) +=; dweight, dbias: (C) +=. With x̂ = (x − μ)·r and g = γ⊙dy:
// dx = r·(g − mean(g) − x̂·mean(g⊙x̂)),  dγ = Σ_rows dy⊙x̂,  dβ = Σ_rows dy.
template <class S>
void layernorm_rows_backward(S* dx, S* dweight, S* dbias, const S* dout, const S* x, const S* weight, const S* mean,
                             const S* rstd, int N, int C);

}  // namespace tw
