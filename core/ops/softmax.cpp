#include "core/ops/softmax.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace tw {

bool softmax_inplace(float* row, int n, float temperature) {
  // row: (n)
  float mx = kNegInf;
  for (int j = 0; j < n; ++j) mx = row[j] > mx ? row[j] : mx;
  if (mx == kNegInf) {  // every entry blocked: no distribution exists, report instead of dividing 0 by 0
    // ...unless the row holds NaN (no comparison sees it): NaN in, NaN out, never a quiet row of zeros.
    bool nan = false;
    for (int j = 0; j < n; ++j) nan = nan || std::isnan(row[j]);
    for (int j = 0; j < n; ++j) row[j] = nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    return nan;
  }
  const float inv_t = 1.0f / temperature;
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    const float e = std::exp((row[j] - mx) * inv_t);  // exp(−∞) = 0 for blocked entries
    row[j] = e;
    sum += e;
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int j = 0; j < n; ++j) row[j] *= inv;
  return true;
}

int softmax_rows(Mat& out, const Mat& logits, float temperature, std::vector<char>* empty_rows) {
  // logits, out: (rows, n); empty_rows: (rows)
  assert(temperature > 0.0f);
  const int rows = static_cast<int>(logits.rows());
  const int n = static_cast<int>(logits.cols());
  if (&out != &logits) out = logits;
  if (empty_rows) empty_rows->assign(rows, 0);
  int n_empty = 0;
  for (int r = 0; r < rows; ++r) {  // one row per work item
    const bool ok = softmax_inplace(out.data() + static_cast<Eigen::Index>(r) * n, n, temperature);
    if (!ok) {
      ++n_empty;
      if (empty_rows) (*empty_rows)[r] = 1;
    }
  }
  return n_empty;
}

namespace {

template <class S>
double log_sum_exp_of(const S* x, int n) {
  if (n <= 0) return -std::numeric_limits<double>::infinity();
  S mx = x[0];
  for (int j = 1; j < n; ++j) mx = x[j] > mx ? x[j] : mx;
  const double m = static_cast<double>(mx);
  if (std::isinf(m) && m < 0) return m;  // every entry −∞: the sum is 0
  double z = 0.0;
  for (int j = 0; j < n; ++j) z += std::exp(static_cast<double>(x[j]) - m);
  return m + std::log(z);
}

}  // namespace

double log_sum_exp(const float* x, int n) { return log_sum_exp_of(x, n); }
double log_sum_exp(const double* x, int n) { return log_sum_exp_of(x, n); }

std::vector<double> log_softmax(const float* x, int n) {
  const double lse = log_sum_exp(x, n);
  std::vector<double> out(static_cast<size_t>(std::max(n, 0)));
  for (int j = 0; j < n; ++j) out[size_t(j)] = static_cast<double>(x[j]) - lse;
  return out;
}

std::vector<double> softmax(const std::vector<double>& x, double temperature) {
  assert(temperature > 0.0);
  std::vector<double> p(x.size());
  if (x.empty()) return p;
  double mx = x[0];
  for (double v : x) mx = v > mx ? v : mx;
  double sum = 0.0;
  for (size_t i = 0; i < x.size(); ++i) sum += p[i] = std::exp((x[i] - mx) / temperature);
  for (double& v : p) v /= sum;
  return p;
}

double entropy_bits(const float* p, int n) {
  double h = 0.0;
  for (int j = 0; j < n; ++j)
    if (p[j] > 0.0f) h -= p[j] * std::log2(static_cast<double>(p[j]));  // 0·log 0 = 0 by continuity
  return h;
}

int argmax(const float* p, int n) {
  int best = n > 0 ? 0 : -1;
  for (int j = 1; j < n; ++j)
    if (p[j] > p[best]) best = j;
  return best;
}

}  // namespace tw
