#include "core/ops/norm.h"

#include <cassert>
#include <cmath>
#include <cstddef>

namespace tw {

void rmsnorm_row(float* out, const float* x, const float* weight, int n, float eps) {
  // x, out: (n); weight: (n) or nullptr for γ = 1
  double ss = 0.0;  // accumulate in double: C can be thousands and the mean of squares must be exact-ish
  for (int c = 0; c < n; ++c) ss += static_cast<double>(x[c]) * x[c];
  const float rstd = static_cast<float>(1.0 / std::sqrt(ss / n + eps));
  for (int c = 0; c < n; ++c) out[c] = x[c] * rstd * (weight ? weight[c] : 1.0f);
}

namespace {
// The rows of rmsnorm_forward, cloned for AVX-512 / AVX2 / the baseline: Σx² in 8 double lanes added in a fixed
// order (a sum in element order does not vectorise), then y = x·r·γ. out may alias x (each row is read first).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void rmsnorm_rows(float* out, const float* x, const float* weight, float* rstd, int T, int C, float eps) {
  constexpr int kLanes = 8;
  for (int t = 0; t < T; ++t) {  // one token per work item
    const float* xr = x + static_cast<std::ptrdiff_t>(t) * C;
    float* yr = out + static_cast<std::ptrdiff_t>(t) * C;
    double acc[kLanes] = {};
    int c = 0;
    for (; c + kLanes <= C; c += kLanes)
      for (int j = 0; j < kLanes; ++j) acc[j] += static_cast<double>(xr[c + j]) * xr[c + j];
    for (int j = 0; c < C; ++c, ++j) acc[j] += static_cast<double>(xr[c]) * xr[c];
    for (int w = kLanes / 2; w > 0; w /= 2)
      for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
    const float r = static_cast<float>(1.0 / std::sqrt(acc[0] / C + eps));
    for (int k = 0; k < C; ++k) yr[k] = xr[k] * r * weight[k];
    if (rstd) rstd[t] = r;
  }
}
}  // namespace

void rmsnorm_forward(Mat& out, const Mat& x, const Vec& weight, float eps, Vec* rstd) {
  // x, out: (T, C); weight: (C); rstd: (T)
  const int T = static_cast<int>(x.rows());
  const int C = static_cast<int>(x.cols());
  assert(weight.size() == C);
  if (&out != &x) out.resize(T, C);
  if (rstd) rstd->resize(T);
  rmsnorm_rows(out.data(), x.data(), weight.data(), rstd ? rstd->data() : nullptr, T, C, eps);
}

void layernorm_forward(Mat& out, const Mat& x, const Vec& weight, const Vec& bias, float eps, Vec* mean, Vec* rstd) {
  // x, out: (T, C); weight, bias: (C); mean, rstd: (T)
  const int T = static_cast<int>(x.rows());
  const int C = static_cast<int>(x.cols());
  assert(weight.size() == C && bias.size() == C);
  if (&out != &x) out.resize(T, C);
  if (mean) mean->resize(T);
  if (rstd) rstd->resize(T);
  for (int t = 0; t < T; ++t) {  // one token per work item
    const float* xr = x.data() + static_cast<Eigen::Index>(t) * C;
    float* yr = out.data() + static_cast<Eigen::Index>(t) * C;
    double s = 0.0;
    for (int c = 0; c < C; ++c) s += xr[c];
    const double mu = s / C;
    double v = 0.0;  // two-pass variance: no catastrophic cancellation for rows with a large mean
    for (int c = 0; c < C; ++c) v += (xr[c] - mu) * (xr[c] - mu);
    const double r = 1.0 / std::sqrt(v / C + eps);
    for (int c = 0; c < C; ++c) yr[c] = static_cast<float>((xr[c] - mu) * r) * weight[c] + bias[c];
    if (mean) (*mean)[t] = static_cast<float>(mu);
    if (rstd) (*rstd)[t] = static_cast<float>(r);
  }
}

}  // namespace tw

// [SECTION] training kernels
namespace tw {

template <class S>
void rmsnorm_rows_forward(S* out, S* rstd, const S* x, const S* weight, int N, int C, float eps) {
  // x, out: (N, C); weight: (C) or nullptr; rstd: (N)
  for (int n = 0; n < N; ++n) {  // one row per work item
    const S* xr = x + static_cast<std::ptrdiff_t>(n) * C;
    S* yr = out + static_cast<std::ptrdiff_t>(n) * C;
    double ss = 0.0;
    for (int c = 0; c < C; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const S r = static_cast<S>(1.0 / std::sqrt(ss / C + eps));
    for (int c = 0; c < C; ++c) yr[c] = xr[c] * r * (weight ? weight[c] : S(1));
    rstd[n] = r;
  }
}

template <class S>
void rmsnorm_rows_backward(S* dx, S* dweight, const S* dout, const S* x, const S* weight, const S* rstd, int N, int C) {
  // dx, dout, x: (N, C); weight, dweight: (C); rstd: (N)
  for (int n = 0; n < N; ++n) {  // rows are independent; dweight sums over them in row order (deterministic)
    const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(n) * C;
    const S* xr = x + off;
    const S* dy = dout + off;
    const S r = rstd[n];
    S dot = 0;  // Σ γ·dy·x
    for (int c = 0; c < C; ++c) dot += (weight ? weight[c] : S(1)) * dy[c] * xr[c];
    const S k = r * r * r * dot / static_cast<S>(C);
    S* dxr = dx + off;
    for (int c = 0; c < C; ++c) dxr[c] += r * (weight ? weight[c] : S(1)) * dy[c] - k * xr[c];
    if (weight && dweight)
      for (int c = 0; c < C; ++c) dweight[c] += dy[c] * xr[c] * r;
  }
}

template <class S>
void layernorm_rows_forward(S* out, S* mean, S* rstd, const S* x, const S* weight, const S* bias, int N, int C,
                            float eps) {
  // x, out: (N, C); weight, bias: (C); mean, rstd: (N)
  for (int n = 0; n < N; ++n) {  // one row per work item
    const S* xr = x + static_cast<std::ptrdiff_t>(n) * C;
    S* yr = out + static_cast<std::ptrdiff_t>(n) * C;
    double s = 0.0;
    for (int c = 0; c < C; ++c) s += xr[c];
    const double mu = s / C;
    double v = 0.0;  // two-pass variance, as layernorm_forward
    for (int c = 0; c < C; ++c) v += (xr[c] - mu) * (xr[c] - mu);
    const double r = 1.0 / std::sqrt(v / C + eps);
    for (int c = 0; c < C; ++c) yr[c] = static_cast<S>((xr[c] - mu) * r) * weight[c] + bias[c];
    mean[n] = static_cast<S>(mu);
    rstd[n] = static_cast<S>(r);
  }
}

template <class S>
void layernorm_rows_backward(S* dx, S* dweight, S* dbias, const S* dout, const S* x, const S* weight, const S* mean,
                             const S* rstd, int N, int C) {
  // dx, dout, x: (N, C); weight, dweight, dbias: (C); mean, rstd: (N)
  for (int n = 0; n < N; ++n) {
    const std::ptrdiff_t off = static_cast<std::ptrdiff_t>(n) * C;
    const S* xr = x + off;
    const S* dy = dout + off;
    const S mu = mean[n], r = rstd[n];
    S g_mean = 0, gx_mean = 0;  // mean(γ·dy), mean(γ·dy·x̂)
    for (int c = 0; c < C; ++c) {
      const S g = weight[c] * dy[c];
      g_mean += g;
      gx_mean += g * (xr[c] - mu) * r;
    }
    g_mean /= static_cast<S>(C);
    gx_mean /= static_cast<S>(C);
    S* dxr = dx + off;
    for (int c = 0; c < C; ++c) {
      const S xhat = (xr[c] - mu) * r;
      dxr[c] += r * (weight[c] * dy[c] - g_mean - xhat * gx_mean);
      dweight[c] += dy[c] * xhat;
      dbias[c] += dy[c];
    }
  }
}

#define TW_NORM_INSTANTIATE(S)                                                                        \
  template void rmsnorm_rows_forward<S>(S*, S*, const S*, const S*, int, int, float);                 \
  template void rmsnorm_rows_backward<S>(S*, S*, const S*, const S*, const S*, const S*, int, int);   \
  template void layernorm_rows_forward<S>(S*, S*, S*, const S*, const S*, const S*, int, int, float); \
  template void layernorm_rows_backward<S>(S*, S*, S*, const S*, const S*, const S*, const S*, const S*, int, int);
TW_NORM_INSTANTIATE(float)
TW_NORM_INSTANTIATE(double)
#undef TW_NORM_INSTANTIATE

}  // namespace tw
