#pragma once
// The math behind the positions panel: five ways a Transformer knows token order, compared on the same axes.
//
//   none        no position code: causal attention alone (a model can still count, a little, through the mask)
//   learned     a trained table of max_seq vectors added to the embeddings: no vector exists past max_seq
//   sinusoidal  fixed clocks added to the embeddings; PE(p)·PE(p+d) = Σ_i cos(ω_i d) depends on d only
//   RoPE        q and k rotated by angle p·θ_k: q_m·k_n depends on m − n only ("relative" inside the dot product)
//   ALiBi       no code at all; the score gets −m_h·(i − j): relative distance as a fixed linear penalty
//
// Extrapolation is measured, not asserted: the same tiny model is trained with each position type on sequences of
// length L of a task that needs relative position (a random block of `period` tokens repeated: token t equals token
// t − period), then its loss is measured at every position of sequences 4L long. A learned table has only L rows,
// so learned positions have no loss past L (reported as missing, never invented).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/config.h"

namespace tw {

// [SECTION] similarity vs distance
struct PositionSimilarity {
  std::vector<double> distance;        // (n) d = 0 … max_distance
  std::vector<double> none;            // (n) 1: every position gets the same (empty) code
  std::vector<double> learned;         // (n) cosine(P(p0), P(p0 + d)) of a learned table at initialisation (random)
  std::vector<double> sinusoidal;      // (n) cosine(PE(p0), PE(p0 + d))
  std::vector<double> sinusoidal_far;  // (n) the same from p0 + 100: identical, the code is relative in d
  std::vector<double> rope;            // (n) (R_{p0} q)·(R_{p0+d} q) / |q|², the RoPE score of a vector with itself
  std::vector<double> rope_far;        // (n) from p0 + 100: identical
  std::vector<double> alibi_slopes;    // (H) m_h
  std::vector<std::vector<double>> alibi;  // (H, n) −m_h·d, the bias added to the score
};
struct SimilarityParams {
  int dim = 64;              // C of the absolute codes, D of RoPE (even, 4 … 512)
  int max_distance = 64;     // 1 … 4096
  int start = 10;            // p0 ≥ 0
  int alibi_heads = 8;       // 1 … 64
  double rope_base = 10000;  // > 1
  uint64_t seed = 1;
};
std::string validate(const SimilarityParams& p);
PositionSimilarity position_similarity(const SimilarityParams& p);

// [SECTION] extrapolation
struct ExtrapolationParams {
  int train_length = 16;  // L: training sequence length (4 … 64); evaluated out to 4L
  int period = 3;         // the repeated block's length (2 … L/2)
  int vocab = 16;         // symbols of the random block (4 … 64)
  int dim = 32, layers = 2, heads = 4;
  int steps = 800;  // optimizer steps per position type (the shipped cached run)
  int batch = 16;
  float lr = 3e-3f;
  int eval_batch = 64;  // sequences of 4L averaged per position
  uint64_t seed = 1;
};
std::string validate(const ExtrapolationParams& p);
double extrapolation_work(const ExtrapolationParams& p);  // multiply-adds, roughly

inline constexpr PositionType kPositionTypes[] = {PositionType::None, PositionType::Learned, PositionType::Sinusoidal,
                                                  PositionType::RoPE, PositionType::ALiBi};

struct ExtrapolationCurve {
  PositionType type = PositionType::None;
  std::vector<double> loss;  // (4L) mean loss at each position (NaN where no loss is defined: positions
                             // before the first repeat, and learned positions ≥ L, which have no code)
  double final_train_loss = 0;
  double mean_in = 0, mean_out = 0;  // mean loss over positions < L and ≥ L that have a value (NaN if none)
  std::string error;                 // "" unless training stopped
};
struct Extrapolation {
  ExtrapolationParams params;
  std::vector<ExtrapolationCurve> curves;  // one per kPositionTypes entry, in that order
};

// The model of one position type (exposed for tests). max_seq = L for learned (no codes past L), 4L otherwise.
ModelConfig extrapolation_config(const ExtrapolationParams& p, PositionType type);
// Trains and evaluates every position type; keep_going(fraction) false stops (the curves done so far return).
Extrapolation run_extrapolation(const ExtrapolationParams& p, const std::function<bool(float)>& keep_going = {});

// [SECTION] cached results
// The panel opens on results computed once with the default ExtrapolationParams and shipped as
// assets/positions/extrapolation.csv (the panel's "extrapolation" figure exported; docs/panels.md says how to
// regenerate). Columns: position, then one per kPositionTypes entry (none, learned, sinusoidal, rope, alibi) holding
// the loss at that position; a cell that is not a number (empty, "no code") is a missing value.
inline constexpr const char* kExtrapolationColumns[] = {"position", "none", "learned", "sinusoidal", "rope", "alibi"};
// Parses that CSV for params p (4·L rows expected). On failure returns false and one line in *error.
bool parse_extrapolation_csv(const std::string& text, const ExtrapolationParams& p, Extrapolation* out,
                             std::string* error);

}  // namespace tw
