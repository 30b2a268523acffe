#include "core/ops/softmax.h"

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
