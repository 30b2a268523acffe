#pragma once
// Rotary position embedding (RoPE, Su et al. 2021).
//
// Each head vector of size D is split into D/2 pairs; pair k is rotated by the angle m·θ_k at position m,
// with θ_k = base^(−2k/D), k = 0 … D/2−1. Because a rotation by m·θ followed by the inverse of n·θ is a
// rotation by (m−n)·θ, the score q_m·k_n depends only on the relative distance m − n.
//
// Which dimensions form a pair is a convention:
//   HalfSplit   (Hugging Face "rotate_half", the default): pair k = (x[k], x[k + D/2]).
//   Interleaved (Meta LLaMA reference, complex multiply):  pair k = (x[2k], x[2k+1]).
// Both rotate (a, b) to (a·cos − b·sin, a·sin + b·cos); they differ only by a fixed permutation of
// dimensions (rope_interleaved_to_half_split), which is how HF's conversion script permutes q/k weights.
//
// Context-extension scalings change the frequencies θ_k (never the rotation itself):
//   Linear      position interpolation: θ_k / factor (same as dividing positions by factor).
//   NtkAware    base' = base · factor^(D/(D−2)) ("NTK-aware" scaling, bloc97 2023).
//   DynamicNtk  HF _compute_dynamic_ntk_parameters: with L = trained length and s = max(seq_len, L),
//               base' = base · (factor·s/L − (factor − 1))^(D/(D−2)); equal to base while seq_len ≤ L.
//   Llama3      HF _compute_llama3_parameters: wavelengths 2π/θ_k shorter than L/high_freq_factor are
//               kept, longer than L/low_freq_factor are divided by factor (θ_k / factor), and in between
//               θ is interpolated with smooth = (L/wavelen − low)/(high − low):
//               θ' = (1 − smooth)·θ/factor + smooth·θ.

#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

enum class RopeConvention {
  HalfSplit,    // Hugging Face rotate_half: pair k = (x[k], x[k + D/2])
  Interleaved,  // Meta LLaMA: pair k = (x[2k], x[2k+1])
};

enum class RopeScaling {
  None,
  Linear,      // position interpolation: θ_k / factor
  NtkAware,    // base · factor^(D/(D−2))
  DynamicNtk,  // NTK base recomputed from the sequence length once it exceeds the trained length
  Llama3,      // per-frequency: keep high, divide low by factor, interpolate the middle
};

struct RopeConfig {
  int head_dim = 64;      // D, even, ≥ 2
  double base = 10000.0;  // rope_theta
  RopeConvention convention = RopeConvention::HalfSplit;
  RopeScaling scaling = RopeScaling::None;
  double factor = 1.0;            // scaling factor (≥ 1 in practice; > 0 required)
  int original_context = 2048;    // trained context length L (DynamicNtk, Llama3)
  double low_freq_factor = 1.0;   // Llama3 only
  double high_freq_factor = 4.0;  // Llama3 only, must exceed low_freq_factor
};

// Empty string when the config is usable; otherwise one sentence naming the bad field.
std::string validate(const RopeConfig& cfg);

const char* to_string(RopeConvention c);
const char* to_string(RopeScaling s);

// Unscaled frequencies θ_k = base^(−2k/D), k = 0 … D/2−1 (double precision).
std::vector<double> rope_frequencies(int head_dim, double base);

// Frequencies after the config's scaling. seq_len is the number of positions in use (only DynamicNtk
// reads it). Assumes validate(cfg) is empty.
std::vector<double> rope_scaled_frequencies(const RopeConfig& cfg, int seq_len);

// Base actually used by the NTK scalings (cfg.base for the others).
double rope_effective_base(const RopeConfig& cfg, int seq_len);

// cos/sin tables for positions pos_offset … pos_offset+T−1: cos(i, k) = cos((pos_offset+i)·θ_k).
// Angles are formed in double precision, then rounded to float.
void rope_cos_sin(Mat& cos, Mat& sin, const std::vector<double>& theta, int pos_offset, int T);

// Rotates every head of x in place of out (out may alias x).
//   x, out: (T, H*D)   cos, sin: (T, D/2)
void rope_apply(Mat& out, const Mat& x, const Mat& cos, const Mat& sin, RopeConvention convention, int T, int H, int D);

// Convenience for the forward pass: builds the tables for positions pos_offset … pos_offset+T−1 (pos_offset
// is the number of tokens already in the KV cache) and applies them. DynamicNtk sees seq_len = pos_offset + T.
void rope_apply(Mat& out, const Mat& x, const RopeConfig& cfg, int n_heads, int pos_offset);

// Permutation between the conventions, per head: half_split[i] = interleaved[perm[i]], i.e.
// perm[k] = 2k and perm[k + D/2] = 2k + 1. Applying it to a Meta (interleaved) vector gives the HF vector
// whose HalfSplit rotation equals the permuted Interleaved rotation.
std::vector<int> rope_interleaved_to_half_split(int D);

// out[:, h*D + i] = x[:, h*D + perm[i]] for every head h (activations, (T, H*D)). out must not alias x.
void permute_head_columns(Mat& out, const Mat& x, const std::vector<int>& perm, int H, int D);
// out[h*D + i, :] = w[h*D + perm[i], :] for every head h (projection weights stored (H*D, C), as HF
// q_proj/k_proj). out must not alias w.
void permute_head_rows(Mat& out, const Mat& w, const std::vector<int>& perm, int H, int D);

}  // namespace tw

// [SECTION] training kernels (float and double)
namespace tw {

// Same rotation as rope_apply, for any scalar; rows may hold several sequences (row r uses table row r, so a
// batch of B sequences of T tokens passes tables tiled B times).
//   x, out: (N, H*D)   cos, sin: (N, D/2). out may alias x.
// Partial rotary (Phi-3's partial_rotary_factor): R < D rotates the first R dims of each head (pairs (k, k + R/2),
// tables (N, R/2)) and copies the other D − R; R = -1 means R = D.
template <class S>
void rope_forward(MatT<S>& out, const MatT<S>& x, const MatT<S>& cos, const MatT<S>& sin, RopeConvention convention,
                  int N, int H, int D, int R = -1);
// The rotation is linear, so its backward is its transpose: each pair's gradient is rotated by −angle,
// (da, db) += (dy_a·cos + dy_b·sin, −dy_a·sin + dy_b·cos); partial rotary's unturned dims pass their gradient
// through. dx: (N, H*D) +=; dout: (N, H*D); cos, sin: (N, R/2).
template <class S>
void rope_backward(MatT<S>& dx, const MatT<S>& dout, const MatT<S>& cos, const MatT<S>& sin, RopeConvention convention,
                   int N, int H, int D, int R = -1);

}  // namespace tw
