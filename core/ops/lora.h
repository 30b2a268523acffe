#pragma once
// LoRA: low-rank adaptation of a frozen linear layer (Hu et al. 2021), following the peft library.
//
//   W' = W₀ + s · B A        A: (R, d_in), B: (d_out, R), s = α / R (or α / √R with rsLoRA)
//   forward(x) = x W₀ᵀ + s · (x Aᵀ) Bᵀ      (weights stored (out_features, in_features), as in HF)
// peft initialises A with kaiming_uniform_(a = √5): bound = gain·√(3/fan_in), gain = √(2/(1 + a²)) = √(1/3),
// so bound = √(1/3)·√(3/d_in) = 1/√d_in, i.e. A ~ U(−1/√d_in, 1/√d_in); B starts at zero so the adapted
// layer equals the base layer at step 0. Merging adds s·B A into W₀; unmerging subtracts it again.
//
// The truncated SVD gives the best rank-R approximation of any matrix in Frobenius norm (Eckart–Young):
// error = √(Σ_{i ≥ R} σ_i²). It is the floor no rank-R LoRA can beat.

#include <cstdint>
#include <random>
#include <string>

#include "core/random.h"
#include "core/tensor.h"

namespace tw {

// s = α / r, or α / √r with rsLoRA (Kalajdzievski 2023).
float lora_scale(float alpha, int r, bool rslora);

// Empty when the sizes are usable; otherwise one sentence naming the problem.
std::string check_lora(int d_in, int d_out, int r);

struct LoraAdapter {
  Mat A;                // (R, d_in)   down projection
  Mat B;                // (d_out, R)  up projection
  float alpha = 16.0f;  // lora_alpha
  bool rslora = false;  // scale α/√R instead of α/R
  int rank() const { return static_cast<int>(A.rows()); }
  float scale() const { return lora_scale(alpha, rank(), rslora); }
};

// A uniform in ±1/√d_in from rng (deterministic for a given seed), B = 0.
void lora_init(LoraAdapter& ad, int d_in, int d_out, int r, float alpha, bool rslora, std::mt19937_64& rng);

// out = x W₀ᵀ + s·(x Aᵀ) Bᵀ; xa keeps the rank-R bottleneck activations.
//   x: (T, d_in)   W0: (d_out, d_in)   xa: (T, R)   out: (T, d_out)
void lora_forward(Mat& out, Mat& xa, const Mat& x, const Mat& W0, const LoraAdapter& ad, int T, int d_in, int d_out,
                  int R);

// delta = s·B A   (d_out, d_in)
void lora_delta(Mat& delta, const LoraAdapter& ad);
// W ← W + s·B A  and  W ← W − s·B A, in place.  W: (d_out, d_in)
void lora_merge(Mat& W, const LoraAdapter& ad);
void lora_unmerge(Mat& W, const LoraAdapter& ad);

// Thin SVD in double precision: M = U diag(σ) Vᵀ, σ descending.
struct Svd {
  MatD U;      // (m, k), k = min(m, n)
  VecD sigma;  // (k)
  MatD V;      // (n, k)
};
Svd svd_decompose(const Mat& M);
// σ of M alone, descending (k): the same decomposition without forming U and V, for spectra drawn every step.
VecD singular_values(const Mat& M);
// Best rank-r approximation U_r diag(σ_r) V_rᵀ (r clamped to [0, k]).  out: (m, n)
void svd_truncate(Mat& out, const Svd& s, int r);
// Eckart–Young error of the rank-r truncation: √(Σ_{i ≥ r} σ_i²).
double svd_tail_error(const VecD& sigma, int r);

}  // namespace tw
