#pragma once
// ALiBi panel math: slopes per head, the bias matrices, how fast each head's attention decays with distance
// (the last query's distribution at an evaluation length that may exceed the training length), and the check
// that the reference implementation's shortcut — adding m·j instead of −m·(i − j) — gives the same softmax.
//
// The shortcut works because −m·(i − j) = m·j − m·i and m·i is constant along a query row, and softmax ignores
// a constant added to a whole row. It only holds where the row's keys are j ≤ i with no other change — the
// causal variant; for the symmetric variant −m·|i − j| is not m·j plus a row constant, and the check says so.

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

struct AlibiParams {
  int n_heads = 8;             // H, 1..64, any count
  int T = 32;                  // size of the bias matrices (T, T)
  int head = 0;                // selected head (0-based)
  bool symmetric = false;      // −m·|i − j| (bidirectional) instead of causal −m·(i − j)
  bool random_scores = false;  // last-query scores: 0 (uniform) or q·k/√d_k with q, k ~ N(0, I)
  int d_k = 64;                // head dim for random scores
  int train_len = 64;          // context length seen in training: distances ≥ train_len never occurred
  int eval_len = 256;          // the last query sits at position eval_len − 1 and sees eval_len keys
  int thumb_T = 16;            // size of the small-multiple bias matrices
  std::uint64_t seed = 0;
};

struct AlibiAnalysis {
  std::string error;                      // non-empty when a parameter is out of range; nothing else is filled
  std::vector<double> slopes;             // (H)
  Mat bias;                               // (T, T) the selected head's bias (row = query)
  std::vector<Mat> thumbs;                // H × (t, t), t = min(T, thumb_T)
  Mat last_query_probs;                   // (H, eval_len) column = key position j
  std::vector<double> mean_distance;      // (H) Σ_j p_j·(i − j) for the last query i
  std::vector<double> mass_beyond_train;  // (H) probability on keys at distance ≥ train_len
  std::vector<int> half_mass_distance;    // (H) smallest d such that keys at distance ≤ d hold ≥ half the mass
  bool equivalence_applies = true;        // false for the symmetric variant
  double equivalence_max_diff = 0.0;  // max |softmax(S − m(i−j)) − softmax(S + m·j)| over heads and causal rows
  int equivalence_T = 0;              // size of the rows checked (min(T, 128))
};

AlibiAnalysis analyze_alibi(const AlibiParams& p);

// Work of analyze_alibi in score evaluations (bias matrices, the equivalence check on at most 128 rows, the last
// query's distribution): the panel waits for a result only when this is small (5e5 is about a millisecond).
inline double alibi_work(int n_heads, int T, int eval_len) {
  const double check_T = T < 128 ? T : 128;
  return double(n_heads) * (eval_len + check_T * check_T + double(T) * T);
}

}  // namespace tw
