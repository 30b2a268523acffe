#include "core/ops/norm.h"

#include <cassert>
#include <cmath>

namespace tw {

void rmsnorm_row(float* out, const float* x, const float* weight, int n, float eps) {
  // x, out: (n); weight: (n) or nullptr for γ = 1
  double ss = 0.0;  // accumulate in double: C can be thousands and the mean of squares must be exact-ish
  for (int c = 0; c < n; ++c) ss += static_cast<double>(x[c]) * x[c];
  const float rstd = static_cast<float>(1.0 / std::sqrt(ss / n + eps));
  for (int c = 0; c < n; ++c) out[c] = x[c] * rstd * (weight ? weight[c] : 1.0f);
}

void rmsnorm_forward(Mat& out, const Mat& x, const Vec& weight, float eps, Vec* rstd) {
  // x, out: (T, C); weight: (C); rstd: (T)
  const int T = static_cast<int>(x.rows());
  const int C = static_cast<int>(x.cols());
  assert(weight.size() == C);
  if (&out != &x) out.resize(T, C);
  if (rstd) rstd->resize(T);
  for (int t = 0; t < T; ++t) {  // one token per work item
    const float* xr = x.data() + static_cast<Eigen::Index>(t) * C;
    float* yr = out.data() + static_cast<Eigen::Index>(t) * C;
    double ss = 0.0;
    for (int c = 0; c < C; ++c) ss += static_cast<double>(xr[c]) * xr[c];
    const float r = static_cast<float>(1.0 / std::sqrt(ss / C + eps));
    for (int c = 0; c < C; ++c) yr[c] = xr[c] * r * weight[c];
    if (rstd) (*rstd)[t] = r;
  }
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
