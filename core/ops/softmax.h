#pragma once
// Row-wise softmax and the small distribution helpers the panels read (entropy, top-p gradient signal).
//
// softmax(x / τ)_j = exp((x_j − max) / τ) / Σ_k exp((x_k − max) / τ). Subtracting the row maximum keeps
// every exponent ≤ 0, so nothing overflows. A row whose every entry is −∞ has no valid distribution: it
// becomes all zeros and is reported, never NaN.

#include <limits>
#include <type_traits>
#include <vector>

#include "core/tensor.h"

namespace tw {

// out = softmax(logits / temperature) row by row; out may alias logits. temperature > 0.
// empty_rows (optional): resized to rows, 1 where the row was entirely −∞. Returns the number of such rows.
int softmax_rows(Mat& out, const Mat& logits, float temperature = 1.0f, std::vector<char>* empty_rows = nullptr);

// In-place softmax of one row of n values (the kernel the attention ops share). Returns false when every
// value is −∞ (the row is then zeroed).
bool softmax_inplace(float* row, int n, float temperature = 1.0f);

// Softmax of one float or double Eigen row (or column) in place, with Eigen's packet exp: entries at −∞ become
// exactly 0, and a row whose every entry is −∞ becomes zeros and returns false. Training's batched attention and
// the MoE router (both instantiated in double for the gradient checks) use it.
template <class Row>
bool softmax_row_inplace(Row&& row) {
  using S = typename std::decay_t<Row>::Scalar;
  constexpr S kInf = std::numeric_limits<S>::infinity();
  auto&& a = row.array();  // an ArrayWrapper of a matrix row, or the array itself
  const S mx = a.maxCoeff();
  if (mx == -kInf) {
    a.setZero();
    return false;
  }
  a = (a == -kInf).select(S(0), (a - mx).exp());
  a *= S(1) / a.sum();
  return true;
}

// log Σ_j exp(x_j) of one row of n values, in double with the maximum taken out first (every exponent ≤ 0):
// the normaliser of log softmax, of cross-entropy and of z-loss. −∞ when every value is −∞ (or n == 0).
double log_sum_exp(const float* x, int n);
double log_sum_exp(const double* x, int n);
// log softmax(x)_j = x_j − log Σ_k exp(x_k), in double.  x: (n)  returns (n)
std::vector<double> log_softmax(const float* x, int n);
// softmax(x / τ) of a vector of doubles (τ > 0), for the panels' small distributions; empty in, empty out.
std::vector<double> softmax(const std::vector<double>& x, double temperature = 1.0);

// Shannon entropy in bits, −Σ p log2 p, skipping zero entries. p is assumed to sum to 1.
double entropy_bits(const float* p, int n);
inline double entropy_bits(const RowVec& p) { return entropy_bits(p.data(), static_cast<int>(p.size())); }

// Index of the largest entry (first one on ties); −1 for n == 0.
int argmax(const float* p, int n);

// The diagonal of the softmax Jacobian, ∂S_i/∂x_i = S_i(1 − S_i): the gradient signal that vanishes when
// softmax saturates (S_i → 0 or 1).
inline double softmax_self_gradient(double s) { return s * (1.0 - s); }

}  // namespace tw
