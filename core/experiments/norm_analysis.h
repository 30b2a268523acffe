#pragma once
// The math behind the norms panel: what LayerNorm, RMSNorm and BatchNorm each remove from the same numbers,
// and the 2/3 hidden-size rule that keeps a gated MLP's parameter count equal to a plain one's.
//
//   LayerNorm  normalises each token's row over its C features: subtracts the row mean, divides by the row std
//              → invariant to adding a constant to the row and to scaling it.
//   RMSNorm    divides each row by its root mean square, without centring → invariant to scaling only.
//   BatchNorm  (training mode) normalises each feature's column over the B tokens of the batch → the result of
//              one token depends on the others in its batch; it is LayerNorm applied to the transposed batch.
//   γ = 1 and β = 0 throughout: the statistics alone.
//
//   2/3 rule   a plain MLP with F = 4C has 2·C·4C = 8C² weights; a gated one (SwiGLU, GeGLU) has three C×F
//              matrices, so F = 8C/3 = (2/3)·4C keeps 8C²; LLaMA then rounds F up to a multiple of multiple_of.

#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

struct NormComparison {
  std::vector<double> x;                   // (C) the vector the user edits
  double mean = 0, var = 0, rms = 0;       // row statistics of x (biased variance, as torch)
  std::vector<double> layernorm, rmsnorm;  // (C) LN(x), RMSNorm(x)
  Mat batch;                               // (B, C) x in row 0, the other rows seeded
  Mat batchnorm;                           // (B, C) BatchNorm of the batch (per-feature statistics)
  std::vector<double> batchnorm_row0;      // (C) row 0 of batchnorm: what BatchNorm makes of x in this batch
  // Invariance checks on x: max |N(a·x + c) − N(x)| for a = 3, c = 10 (0 when the statistic removes it).
  double layernorm_shift_change = 0, layernorm_scale_change = 0;
  double rmsnorm_shift_change = 0, rmsnorm_scale_change = 0;
};

// "" when usable: 2 ≤ C ≤ 64 finite values, 2 ≤ batch ≤ 64, eps > 0.
std::string check_norm_input(const std::vector<double>& x, int batch, double eps);
NormComparison compare_norms(const std::vector<double>& x, int batch, double eps, uint64_t seed);

struct HiddenSizeRow {
  int dim = 0;                 // C
  long long plain_params = 0;  // 2 · C · 4C
  double exact_hidden = 0;     // 8C/3
  int llama_hidden = 0;        // int(8C/3) rounded up to multiple_of
  long long gated_params = 0;  // 3 · C · llama_hidden
  double ratio = 0;            // gated / plain
};
std::vector<HiddenSizeRow> hidden_size_table(const std::vector<int>& dims, int multiple_of);

}  // namespace tw
