#pragma once
// Why attention divides by √d_k (seed 000 §1): for q, k ~ N(0, I_d), Var(q·k) = d, so raw scores grow like √d,
// softmax saturates (one key takes almost all the mass) and its gradient S(1 − S) vanishes.
//
// Sampling: given q, the scores q·k_1..q·k_n of independent keys k_j ~ N(0, I) are independent N(0, |q|²),
// i.e. |q|·z_j with z_j ~ N(0, 1), and |q|² ~ χ²(d). Sampling |q|² from χ²(d) and z_j from N(0, 1) therefore
// gives exactly the same joint distribution as drawing the d-dimensional vectors, at O(n) instead of O(n·d)
// per query — which is what keeps d_k = 4096 interactive. sample_scores_direct draws the vectors, for tests.
//
// Everything is seeded: the same arguments give the same numbers.

#include <atomic>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/ops/attention.h"

namespace tw {

// Scores q·k_j (unscaled) of one query against n keys, q, k ~ N(0, I_d), via the χ² identity above.
void sample_scores(std::vector<float>& out, std::mt19937_64& rng, int d_k, int n);
// The same by drawing q and every k explicitly (O(n·d)); the reference for the identity.
void sample_scores_direct(std::vector<float>& out, std::mt19937_64& rng, int d_k, int n);

// [SECTION] Figure 1: histogram of raw q·k
struct ScoreHistogram {
  int d_k = 0;
  int samples = 0;
  std::vector<double> edges;       // (bins + 1) bin edges, symmetric over ±4·√d_k
  std::vector<double> density;     // (bins) empirical density: count / (samples · bin width)
  std::vector<double> normal_pdf;  // (bins) N(0, d_k) density at each bin centre
  double mean = 0.0;               // empirical mean of q·k
  double variance = 0.0;           // empirical variance of q·k (≈ d_k)
};
ScoreHistogram score_histogram(int d_k, int samples, int bins, std::uint64_t seed);

// [SECTION] Figure 2: one query's softmax over n keys, scaled vs unscaled
struct QuerySoftmax {
  float scale = 1.0f;                                   // the factor the chosen mode applies to q·k
  std::vector<float> raw_scores;                        // (n) q·k, sorted descending
  std::vector<float> probs_scaled;                      // (n) softmax(scale · q·k / τ), sorted descending
  std::vector<float> probs_unscaled;                    // (n) softmax(q·k / τ), sorted descending
  double entropy_scaled = 0.0, entropy_unscaled = 0.0;  // bits
  double entropy_max = 0.0;                             // bits: log2 n, the entropy of a uniform softmax
};
QuerySoftmax one_query_softmax(int d_k, int n_keys, ScaleMode mode, float custom_scale, float temperature,
                               std::uint64_t seed);

// [SECTION] Figure 3: sweep over d_k
struct SaturationPoint {
  int d_k = 0;
  double max_p_scaled = 0, max_p_unscaled = 0;                // mean over queries of max_j S_j
  double entropy_bits_scaled = 0, entropy_bits_unscaled = 0;  // mean entropy of S, bits
  double grad_scaled = 0, grad_unscaled = 0;                  // mean S_top(1 − S_top) of the top key
                                                              // (1 − S_top computed as Σ of the others)
};
// d_k on a log grid: every power of two and the geometric midpoints (1, 1.41→1, 2, 3, 4, 6, 8, 11, 16, ...).
std::vector<int> log_dk_grid(int lo, int hi);
// `queries` samples per point; "scaled" uses mode/custom_scale, "unscaled" uses 1; both divide by τ.
// = saturation_sweep(saturation_samples(d_ks, n_keys, queries, seed), mode, custom_scale, temperature).
std::vector<SaturationPoint> saturation_sweep(const std::vector<int>& d_ks, int n_keys, int queries, ScaleMode mode,
                                              float custom_scale, float temperature, std::uint64_t seed);

// The sweep in two steps, so a change of scale or τ reuses the samples (drawing them is ~85% of the sweep):
// the raw scores q·k of every query at every d_k, then the softmax statistics of those scores.
// Both poll `cancel` (may be null) between d_k values and return early when it is set, with fewer entries than d_ks
// (complete() / size() say so; such a result is for nothing but discarding).
struct SaturationSamples {
  std::vector<int> d_ks;
  int n_keys = 0, queries = 0;
  std::vector<std::vector<float>> scores;  // (d_ks) × (queries · n_keys) raw q·k, query-major
  bool complete() const { return scores.size() == d_ks.size(); }
};
SaturationSamples saturation_samples(const std::vector<int>& d_ks, int n_keys, int queries, std::uint64_t seed,
                                     const std::atomic<bool>* cancel = nullptr);
// One point per d_k of samples.scores (all of samples.d_ks when complete and not cancelled).
std::vector<SaturationPoint> saturation_sweep(const SaturationSamples& samples, ScaleMode mode, float custom_scale,
                                              float temperature, const std::atomic<bool>* cancel = nullptr);

// [SECTION] Figure 4: the seed's worked table
struct WorkedSoftmax {
  std::vector<float> logits;  // as given
  std::vector<float> probs;   // softmax(logits / τ)
  int top = -1;               // index of the largest probability
  double top_grad = 0.0;      // S_top(1 − S_top)
};
WorkedSoftmax worked_softmax(const std::vector<float>& logits, float temperature = 1.0f);
// The worked example's logits as typed: "1.0, 0.5, -0.5" (commas and/or spaces, optional [ ]). Returns "" and fills
// *out with 2 to kMaxWorkedLogits finite decimal numbers, or one line saying what is wrong (*out is then empty).
// Any text that is not such a list is an error; nothing is skipped or guessed.
constexpr int kMaxWorkedLogits = 32;
std::string parse_logits(std::string_view text, std::vector<float>* out);

// Work of the panel's recompute (histogram samples plus a sweep of 26 d_k values × samples/4 queries over n_keys),
// in score evaluations: the panel waits for a result only when this is small (about 1e5 is a millisecond).
inline double saturation_work(int samples, int n_keys) { return double(samples) * (1.0 + 26.0 * (n_keys + 2) / 4.0); }

}  // namespace tw
