#pragma once
// The geometry of high dimensions behind attention scores, measured on random vectors.
//
// For x ~ N(0, I_d): ‖x‖² ~ χ²(d), so E‖x‖² = d and ‖x‖ concentrates at √d (relative spread about 1/√(2d)); two
// independent vectors are almost orthogonal (cos θ has mean 0 and variance 1/d, so angles gather at 90°) while their
// dot product spreads like √d; and the nearest and farthest of many random points end up at almost the same
// distance. Attention scores are dot products, not cosines: a key with a large norm wins the softmax even when
// another key points closer to the query. A weight matrix's singular values say how much of it a rank-r matrix keeps:
// by Eckart–Young the best rank-r approximation (the truncated SVD) leaves an error ‖W − W_r‖²_F = Σ_{i>r} σ_i², the
// budget LoRA's rank buys.
//
// Everything is seeded: the same parameters give the same numbers.

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tw {

// Where the matrix of the spectrum comes from.
enum class GeometryMatrix {
  Random,            // i.i.d. N(0, 1/cols) entries: no structure, a spread-out spectrum (Marchenko–Pastur)
  LowRankPlusNoise,  // a planted rank-k part plus the random matrix: k singular values stand out
  ShippedModel,      // a projection of the shipped sort model (assets/models/sort)
};

// The shipped model's projections the spectrum can show (layer 0 or 1 of the sort model, whose MLP is ReLU: no gate).
enum class GeometryTensor { Q, K, V, O, Up, Down };

struct GeometryParams {
  int d = 64;             // dimension of the random vectors, 2 … 4096
  int samples = 1000;     // vectors drawn for the norm/angle histograms, 20 … 20000
  int points = 200;       // points in the nearest/farthest-neighbour ratio, 10 … 2000
  int n_keys = 8;         // keys in the dot-vs-cosine example, 2 … 64
  double big_norm = 4.0;  // key 0's norm as a multiple of the others', 1 … 20
  GeometryMatrix matrix = GeometryMatrix::LowRankPlusNoise;
  int size = 128;              // rows = cols of the random matrices, 8 … 512
  int planted_rank = 4;        // rank of the planted part, 1 … size
  double planted_scale = 3.0;  // its singular values relative to the noise's largest (about 2), 0 … 20
  GeometryTensor tensor = GeometryTensor::Q;
  int layer = 0;   // layer of the shipped model
  int rank_r = 8;  // rank of the approximation shown, 0 … min(rows, cols)
  uint64_t seed = 0;
};

// "" when usable, else one sentence naming the field.
std::string validate(const GeometryParams& p);

struct DimensionPoint {  // statistics at one dimension d of the sweep
  int d = 0;
  double norm_over_sqrt_d = 0;  // mean ‖x‖ / √d (→ 1)
  double norm_rel_std = 0;      // std(‖x‖) / mean(‖x‖) (≈ 1/√(2d))
  double cos_std = 0;           // std of cos θ between independent pairs (≈ 1/√d)
  double angle_std_deg = 0;     // std of the angle in degrees
  double far_near_ratio = 0;    // farthest / nearest distance from one point to `points` others (→ 1)
};

struct KeyComparison {             // one query against n keys: dot products vs cosines
  std::vector<double> key_norms;   // (n) ‖k_j‖
  std::vector<double> cosines;     // (n) cos(q, k_j)
  std::vector<double> dots;        // (n) q·k_j / √d, the attention score
  std::vector<double> p_dot;       // (n) softmax of the scores
  std::vector<double> cos_scores;  // (n) the same with every key at the mean norm: ‖q‖·mean‖k‖·cos / √d
  std::vector<double> p_cos;       // (n) softmax of those
};

struct Spectrum {
  std::string source;  // what the matrix is, e.g. "sort model layers.0 q_proj (64 × 64)"
  int rows = 0, cols = 0;
  std::vector<double> singular;    // σ_1 ≥ σ_2 ≥ … (min(rows, cols) values)
  std::vector<double> energy;      // (min + 1) Σ_{i≤r} σ_i² / Σ σ_i² for r = 0 … min
  std::vector<double> tail_error;  // (min + 1) Σ_{i>r} σ_i² for r = 0 … min (Eckart–Young)
  int rank_r = 0;
  double reconstructed_error = 0;  // ‖W − U_r Σ_r V_rᵀ‖²_F computed from the reconstruction (equals tail_error[r])
  double frobenius2 = 0;           // ‖W‖²_F
};

struct GeometryAnalysis {
  int d = 0;
  std::vector<double> norms;          // (samples) ‖x‖ at dimension d
  std::vector<double> angles_deg;     // (samples / 2) angle between disjoint pairs
  std::vector<double> dots;           // (samples / 2) x·y
  std::vector<double> cosines;        // (samples / 2) cos(x, y)
  double mean_norm_sq = 0;            // mean ‖x‖² (E = d)
  double cos_variance = 0;            // variance of cos (≈ 1/d)
  std::vector<DimensionPoint> sweep;  // ascending d; fewer than geometry_dimensions() while sweep_pending
  bool sweep_pending = false;         // analyze_geometry_first left the larger dimensions out
  KeyComparison keys;
  Spectrum spectrum;
  std::string error;  // a shipped model that could not be read; the rest is still computed
};

// The sweep's dimensions: powers of two from 2 to 4096.
std::vector<int> geometry_dimensions();

// The sweep's statistics at one dimension: a function of (seed, points, d) only (each d has its own random stream).
DimensionPoint geometry_sweep_point(uint64_t seed, int d, int points);

// What analyze_geometry computed that a change of another control leaves as it is (issue 27, "cached sweeps"):
// sweep points for one (seed, points) at a time (a new one drops the old), and the last spectrum (its matrix and
// rank r; a change of d, samples, points or the keys reuses it). Each is a deterministic function of its key, so a
// kept one equals a recomputed one bit for bit. Safe to share between threads.
class GeometryMemo {
 public:
  bool find(uint64_t seed, int points, int d, DimensionPoint* out) const;
  void keep(uint64_t seed, int points, const DimensionPoint& pt);
  // The spectrum and the shipped model's read error of a matrix as p names it.
  bool find_spectrum(const GeometryParams& p, Spectrum* out, std::string* error) const;
  void keep_spectrum(const GeometryParams& p, const Spectrum& s, const std::string& error);

 private:
  bool has_spectrum_ = false;
  GeometryParams spectrum_params_;
  Spectrum spectrum_;
  std::string spectrum_error_;
  mutable std::mutex mutex_;
  bool has_setting_ = false;
  uint64_t seed_ = 0;
  int points_ = 0;
  std::map<int, DimensionPoint> by_d_;
};

// Polls `cancel` (may be null) between stages and returns early when it is set. `memo` (optional) supplies sweep
// points and the spectrum already computed and keeps the new ones. = analyze_geometry_first followed by
// complete_geometry_sweep.
GeometryAnalysis analyze_geometry(const GeometryParams& p, const std::atomic<bool>* cancel = nullptr,
                                  GeometryMemo* memo = nullptr);
// A first answer: everything but the sweep's dimensions above `first_max_d` that `memo` does not hold (sweep_pending
// says some are missing). The sweep's cost grows with d: up to d = 128 is about 3% of it.
constexpr int kGeometryFirstMaxD = 128;
GeometryAnalysis analyze_geometry_first(const GeometryParams& p, const std::atomic<bool>* cancel = nullptr,
                                        GeometryMemo* memo = nullptr, int first_max_d = kGeometryFirstMaxD);
// Adds the sweep points analyze_geometry_first left out (a must come from it with the same p).
void complete_geometry_sweep(GeometryAnalysis& a, const GeometryParams& p, const std::atomic<bool>* cancel = nullptr,
                             GeometryMemo* memo = nullptr);

// The singular values, energy and Eckart–Young errors of `w` (row-major rows × cols), with the rank-r reconstruction
// error computed directly for comparison.
Spectrum matrix_spectrum(const std::vector<float>& w, int rows, int cols, int rank_r);

}  // namespace tw
