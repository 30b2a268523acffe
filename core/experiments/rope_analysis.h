#pragma once
// The math behind the RoPE panel: frequencies and wavelengths before/after scaling, the rotation angles over
// positions × pairs, the rotated pair of one (m, n), q_m·k_n against relative distance, the expected decay of
// a vector's similarity with itself, and the three live invariant checks.
//
// Expected self-similarity: for x with i.i.d. zero-mean components, E[R_m x · R_n x] / E‖x‖² =
// (2/D) Σ_k cos((m − n)·θ_k), the long-range decay RoPE is known for (it starts at 1 and oscillates down).

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/rope.h"
#include "core/tensor.h"

namespace tw {

struct RopeAnalysisParams {
  RopeConfig rope;         // head_dim, base, convention, scaling, factor, trained context
  int seq_len = 4096;      // sequence length the scaled frequencies are built for (dynamic NTK reads it)
  int positions = 128;     // rows of the angle heatmap: positions 0 … positions−1
  int query_pos = 12;      // m
  int key_pos = 4;         // n
  int pair = 0;            // k, the pair drawn in the plane figure
  int max_distance = 512;  // the score and self-similarity curves run over m − n = 0 … max_distance
  int shift = 37;          // the shift-invariance check compares (m, n) with (m + shift, n + shift)
  uint64_t seed = 1;       // random q and k
};

struct RopeAnalysis {
  // Per pair k = 0 … D/2−1.
  std::vector<double> theta;              // (D/2) θ_k = base^(−2k/D)
  std::vector<double> theta_scaled;       // (D/2) after the scaling, at seq_len
  std::vector<double> wavelength;         // (D/2) 2π/θ_k
  std::vector<double> wavelength_scaled;  // (D/2) 2π/θ'_k
  double effective_base = 0;              // base used after NTK scaling (cfg.base otherwise)

  Mat cos_angle;  // (positions, D/2) cos(m·θ'_k): fast pairs flicker, slow pairs barely move

  // Plane of the selected pair (scaled frequencies), components in the chosen convention.
  double q_pair[2] = {0, 0}, k_pair[2] = {0, 0};        // unrotated (x[a], x[b]) of q and k
  double q_rotated[2] = {0, 0}, k_rotated[2] = {0, 0};  // after rotating by m·θ'_k and n·θ'_k
  double q_angle = 0, k_angle = 0;                      // m·θ'_k and n·θ'_k in radians (not wrapped)

  Mat q, k;  // (1, D) the random vectors (seeded)

  std::vector<int> distance;            // 0 … max_distance
  std::vector<double> score;            // q_{distance} · k_0 after RoPE (scaled frequencies)
  std::vector<double> self_similarity;  // (2/D) Σ_k cos(distance·θ'_k)

  // Live checks.
  double score_mn = 0;           // q_m · k_n
  double score_shifted = 0;      // q_{m+shift} · k_{n+shift}
  double shift_error = 0;        // |score_mn − score_shifted| / (|q||k|)
  double norm_error = 0;         // max over m of |‖R_m q‖ − ‖q‖| / ‖q‖
  double convention_error = 0;   // |score in this convention − score in the other after permuting| / (|q||k|)
  bool shift_invariant = false;  // each of the three below 1e-5
  bool norm_preserved = false;
  bool conventions_agree = false;
};

// Empty when usable; otherwise one sentence naming the bad field.
std::string validate(const RopeAnalysisParams& p);

// Assumes validate(p) is empty.
RopeAnalysis analyze_rope(const RopeAnalysisParams& p);

}  // namespace tw
