#include "core/ops/alibi.h"

#include <cassert>
#include <cmath>

namespace tw {

namespace {
// Slopes for a power-of-two head count p: start = 2^(−8/p), m_k = start^k, k = 1..p.
std::vector<double> power_of_two_slopes(int p) {
  const double start = std::pow(2.0, -8.0 / p);
  std::vector<double> s(p);
  double m = start;
  for (int k = 0; k < p; ++k, m *= start) s[k] = m;
  return s;
}
}  // namespace

std::vector<double> alibi_slopes(int n_heads) {
  assert(n_heads >= 1);
  int p = 1;
  while (p * 2 <= n_heads) p *= 2;  // closest power of two ≤ n_heads
  std::vector<double> s = power_of_two_slopes(p);
  if (p == n_heads) return s;
  // Not a power of two: take every other slope of 2p (these interleave between the p slopes above).
  const std::vector<double> extra = power_of_two_slopes(2 * p);
  for (int k = 0; static_cast<int>(s.size()) < n_heads; k += 2) s.push_back(extra[k]);
  return s;
}

void alibi_bias(Mat& out, double slope, int T_q, int T_k, int q_offset, bool symmetric) {
  // out: (T_q, T_k)
  out.resize(T_q, T_k);
  for (int r = 0; r < T_q; ++r) {  // one query per work item
    const int i = q_offset + r;
    for (int j = 0; j < T_k; ++j) out(r, j) = alibi_bias_at(slope, i, j, symmetric);
  }
}

}  // namespace tw
