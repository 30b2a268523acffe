#include "core/experiments/high_dim_geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>

#include "core/assets.h"
#include "core/base/i18n.h"
#include "core/io/safetensors.h"
#include "core/ops/lora.h"
#include "core/ops/softmax.h"
#include "core/random.h"

namespace tw {

namespace {

bool stopped(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// (n, d) row-major standard normal vectors.
std::vector<double> gaussian_rows(std::mt19937_64& rng, int n, int d) {
  std::vector<double> v(static_cast<size_t>(n) * static_cast<size_t>(d));
  for (double& x : v) x = standard_normal(rng);
  return v;
}

double dot(const double* a, const double* b, int d) {
  double s = 0;
  for (int i = 0; i < d; ++i) s += a[i] * b[i];
  return s;
}

double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double std_of(const std::vector<double>& v) {
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return v.size() < 2 ? 0 : std::sqrt(s / static_cast<double>(v.size() - 1));
}

double angle_deg(double cosine) { return std::acos(std::clamp(cosine, -1.0, 1.0)) * 180.0 / std::numbers::pi; }

// Statistics of `n` random vectors at dimension d: norms, and cos/angle of disjoint pairs (0,1), (2,3), ...
struct Sample {
  std::vector<double> norms, dots, cosines;
};
Sample sample_at(std::mt19937_64& rng, int d, int n) {
  const std::vector<double> x = gaussian_rows(rng, n, d);
  Sample s;
  s.norms.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) s.norms[size_t(i)] = std::sqrt(dot(&x[size_t(i) * d], &x[size_t(i) * d], d));
  for (int i = 0; i + 1 < n; i += 2) {
    const double xy = dot(&x[size_t(i) * d], &x[size_t(i + 1) * d], d);
    s.dots.push_back(xy);
    s.cosines.push_back(xy / (s.norms[size_t(i)] * s.norms[size_t(i + 1)]));
  }
  return s;
}

// Farthest / nearest Euclidean distance from one random point to `points` others.
double far_near_ratio(std::mt19937_64& rng, int d, int points) {
  const std::vector<double> x = gaussian_rows(rng, points + 1, d);
  double lo = INFINITY, hi = 0;
  for (int j = 1; j <= points; ++j) {
    double s = 0;
    for (int i = 0; i < d; ++i) {
      const double diff = x[size_t(i)] - x[size_t(j) * d + i];
      s += diff * diff;
    }
    lo = std::min(lo, s);
    hi = std::max(hi, s);
  }
  return std::sqrt(hi / lo);
}

// Key 0 has a large norm and points only loosely towards q (cos 0.3); key 1 points closely (cos 0.8) at the common
// norm; the rest are random. Dot products crown key 0, cosines key 1: attention is not a similarity search.
KeyComparison compare_keys(std::mt19937_64& rng, int d, int n, double big_norm) {
  std::vector<double> q = gaussian_rows(rng, 1, d);
  const double qn = std::sqrt(dot(q.data(), q.data(), d));
  const double common = std::sqrt(static_cast<double>(d));  // the typical norm of a N(0, I_d) key
  KeyComparison k;
  std::vector<std::vector<double>> keys;
  for (int j = 0; j < n; ++j) {
    std::vector<double> v = gaussian_rows(rng, 1, d);
    if (j < 2) {
      // Exact cosine c with q: k = |k| (c q̂ + √(1 − c²) u), u the unit part of v orthogonal to q.
      const double c = j == 0 ? 0.3 : 0.8;
      const double along = dot(v.data(), q.data(), d) / (qn * qn);
      for (int i = 0; i < d; ++i) v[size_t(i)] -= along * q[size_t(i)];
      const double un = std::sqrt(dot(v.data(), v.data(), d));
      const double norm = common * (j == 0 ? big_norm : 1.0);
      for (int i = 0; i < d; ++i)
        v[size_t(i)] = norm * (c * q[size_t(i)] / qn + std::sqrt(1 - c * c) * (un > 0 ? v[size_t(i)] / un : 0));
    }
    keys.push_back(std::move(v));
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (const auto& v : keys) {
    const double kn = std::sqrt(dot(v.data(), v.data(), d));
    k.key_norms.push_back(kn);
    k.cosines.push_back(dot(q.data(), v.data(), d) / (qn * kn));
    k.dots.push_back(dot(q.data(), v.data(), d) * scale);
  }
  const double mean_norm = mean_of(k.key_norms);
  for (double c : k.cosines) k.cos_scores.push_back(qn * mean_norm * c * scale);
  k.p_dot = softmax(k.dots);
  k.p_cos = softmax(k.cos_scores);
  return k;
}

const char* tensor_path(GeometryTensor t) {
  switch (t) {
    case GeometryTensor::Q: return "self_attn.q_proj";
    case GeometryTensor::K: return "self_attn.k_proj";
    case GeometryTensor::V: return "self_attn.v_proj";
    case GeometryTensor::O: return "self_attn.o_proj";
    case GeometryTensor::Up: return "mlp.up_proj";
    case GeometryTensor::Down: return "mlp.down_proj";
  }
  return "";
}

}  // namespace

std::string validate(const GeometryParams& p) {
  if (p.d < 2 || p.d > 4096) return subst(tr("dimension $d$ is {0}; it must be 2 … 4096"), {std::to_string(p.d)});
  if (p.samples < 20 || p.samples > 20000) return tr("samples must be 20 … 20000");
  if (p.points < 10 || p.points > 2000) return tr("points must be 10 … 2000");
  if (p.n_keys < 2 || p.n_keys > 64) return tr("keys must be 2 … 64");
  if (!(p.big_norm >= 1 && p.big_norm <= 20)) return tr("the large key's norm must be 1 … 20 times the others'");
  if (p.size < 8 || p.size > 512) return tr("matrix size must be 8 … 512");
  if (p.planted_rank < 1 || p.planted_rank > p.size) return tr("the planted rank must be 1 … the matrix size");
  if (!(p.planted_scale >= 0 && p.planted_scale <= 20)) return tr("the planted scale must be 0 … 20");
  if (p.layer < 0 || p.layer > 1) return tr("the sort model has layers 0 and 1");
  if (p.rank_r < 0) return tr("rank $r$ must be 0 or more");
  return "";
}

std::vector<int> geometry_dimensions() {
  std::vector<int> d;
  for (int v = 2; v <= 4096; v *= 2) d.push_back(v);
  return d;
}

Spectrum matrix_spectrum(const std::vector<float>& w, int rows, int cols, int rank_r) {
  Spectrum s;
  s.rows = rows;
  s.cols = cols;
  // The one SVD of core (ops/lora): a second BDCSVD instantiation here cost about a minute of sanitizer build.
  const Mat mf = Eigen::Map<const Mat>(w.data(), rows, cols);
  const Svd svd = svd_decompose(mf);
  const MatD m = mf.cast<double>();
  const VecD& sv = svd.sigma;
  const int k = static_cast<int>(sv.size());
  s.singular.assign(sv.data(), sv.data() + k);
  s.frobenius2 = m.squaredNorm();
  double total = 0;
  for (double x : s.singular) total += x * x;
  s.energy.assign(size_t(k) + 1, 0);
  s.tail_error.assign(size_t(k) + 1, 0);
  double head = 0;
  for (int r = 0; r <= k; ++r) {
    s.energy[size_t(r)] = total > 0 ? head / total : 0;
    s.tail_error[size_t(r)] = std::max(0.0, total - head);
    if (r < k) head += s.singular[size_t(r)] * s.singular[size_t(r)];
  }
  // Recompute the tail from the small end so tiny errors are not differences of large sums.
  double tail = 0;
  for (int r = k; r >= 0; --r) {
    s.tail_error[size_t(r)] = tail;
    if (r > 0) tail += s.singular[size_t(r - 1)] * s.singular[size_t(r - 1)];
  }
  s.rank_r = std::clamp(rank_r, 0, k);
  const int r = s.rank_r;
  const MatD approx = svd.U.leftCols(r) * sv.head(r).asDiagonal() * svd.V.leftCols(r).transpose();
  s.reconstructed_error = (m - approx).squaredNorm();
  return s;
}

DimensionPoint geometry_sweep_point(uint64_t seed, int d, int points) {
  const int sweep_n = 200;
  std::mt19937_64 r(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(d));
  const Sample s = sample_at(r, d, sweep_n);
  DimensionPoint pt;
  pt.d = d;
  pt.norm_over_sqrt_d = mean_of(s.norms) / std::sqrt(static_cast<double>(d));
  pt.norm_rel_std = std_of(s.norms) / mean_of(s.norms);
  pt.cos_std = std_of(s.cosines);
  std::vector<double> angles;
  for (double c : s.cosines) angles.push_back(angle_deg(c));
  pt.angle_std_deg = std_of(angles);
  pt.far_near_ratio = far_near_ratio(r, d, points);
  return pt;
}

bool GeometryMemo::find(uint64_t seed, int points, int d, DimensionPoint* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!has_setting_ || seed_ != seed || points_ != points) return false;
  const auto it = by_d_.find(d);
  if (it == by_d_.end()) return false;
  *out = it->second;
  return true;
}

namespace {
// What the spectrum stage reads: everything but the vectors' d, samples, points, n_keys and big_norm.
auto spectrum_key(const GeometryParams& p) {
  return std::make_tuple(int(p.matrix), p.size, p.planted_rank, p.planted_scale, int(p.tensor), p.layer, p.rank_r,
                         p.seed);
}
}  // namespace

bool GeometryMemo::find_spectrum(const GeometryParams& p, Spectrum* out, std::string* error) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!has_spectrum_ || spectrum_key(spectrum_params_) != spectrum_key(p)) return false;
  *out = spectrum_;
  *error = spectrum_error_;
  return true;
}

void GeometryMemo::keep_spectrum(const GeometryParams& p, const Spectrum& s, const std::string& error) {
  std::lock_guard<std::mutex> lock(mutex_);
  has_spectrum_ = true;
  spectrum_params_ = p;
  spectrum_ = s;
  spectrum_error_ = error;
}

void GeometryMemo::keep(uint64_t seed, int points, const DimensionPoint& pt) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!has_setting_ || seed_ != seed || points_ != points) {
    by_d_.clear();
    has_setting_ = true, seed_ = seed, points_ = points;
  }
  by_d_[pt.d] = pt;
}

namespace {

// The spectrum stage: the matrix p names (the shipped model's weight, or a seeded random one) and its SVD. *error
// is set when the shipped model cannot be read (the random matrix is shown instead).
Spectrum spectrum_stage(const GeometryParams& p, std::string* error) {
  std::vector<float> w;
  int rows = p.size, cols = p.size;
  std::string source;
  if (p.matrix == GeometryMatrix::ShippedModel) {
    const std::string name = "model.layers." + std::to_string(p.layer) + "." + tensor_path(p.tensor) + ".weight";
    const std::string path = find_asset("models/sort/model.safetensors");
    SafeTensors st;
    std::string read_error;
    const NamedTensor* t = nullptr;
    if (path.empty())
      *error = tr("the shipped sort model (models/sort/model.safetensors) was not found");
    else if (!read_safetensors(path, &st, &read_error))
      *error = read_error;
    else if (!(t = st.find(name)) || t->shape.size() != 2)
      *error = subst(tr("the sort model has no matrix {0}"), {name});
    if (t && error->empty()) {
      rows = static_cast<int>(t->shape[0]);
      cols = static_cast<int>(t->shape[1]);
      w = t->data;
      source = subst(tr("sort model layers.{0} {1} ({2} × {3})"),
                     {std::to_string(p.layer), tensor_path(p.tensor), std::to_string(rows), std::to_string(cols)});
    }
  }
  if (w.empty()) {
    // N(0, 1/cols) noise: its largest singular value is about 2 for a square matrix (Marchenko–Pastur edge).
    std::mt19937_64 r(p.seed * 0x9E3779B97F4A7C15ull + 7777);
    w.resize(size_t(rows) * cols);
    const double sd = 1.0 / std::sqrt(static_cast<double>(cols));
    for (float& x : w) x = static_cast<float>(sd * standard_normal(r));
    source = subst(tr("random $\\mathcal{N}(0, 1/{0})$ ({1} × {2})"),
                   {std::to_string(cols), std::to_string(rows), std::to_string(cols)});
    if (p.matrix == GeometryMatrix::LowRankPlusNoise && error->empty()) {
      // Planted part: Σ_k s·u_k v_kᵀ with random unit u_k, v_k; nearly orthogonal in high dimension, so its singular
      // values are close to s = planted_scale · 2.
      const double strength = 2.0 * p.planted_scale;
      for (int k = 0; k < p.planted_rank; ++k) {
        std::vector<double> u = gaussian_rows(r, 1, rows), v = gaussian_rows(r, 1, cols);
        const double un = std::sqrt(dot(u.data(), u.data(), rows)), vn = std::sqrt(dot(v.data(), v.data(), cols));
        for (int i = 0; i < rows; ++i)
          for (int j = 0; j < cols; ++j)
            w[size_t(i) * cols + j] += static_cast<float>(strength * u[size_t(i)] / un * v[size_t(j)] / vn);
      }
      source = subst(tr("rank-{0} part + random noise ({1} × {2})"),
                     {std::to_string(p.planted_rank), std::to_string(rows), std::to_string(cols)});
    }
  }
  Spectrum s = matrix_spectrum(w, rows, cols, p.rank_r);
  s.source = source;
  return s;
}

// Fills a.sweep with every dimension (ascending): the point a.sweep already has, else the memo's, else computed when
// d ≤ max_d; sweep_pending when some were left out (above max_d, or cancelled).
void sweep_dimensions(GeometryAnalysis& a, const GeometryParams& p, const std::atomic<bool>* cancel, GeometryMemo* memo,
                      int max_d) {
  std::vector<DimensionPoint> sweep;
  bool missing = false;
  for (int d : geometry_dimensions()) {
    const auto kept = std::find_if(a.sweep.begin(), a.sweep.end(), [d](const DimensionPoint& q) { return q.d == d; });
    DimensionPoint pt;
    if (kept != a.sweep.end()) {
      pt = *kept;
    } else if (!(memo && memo->find(p.seed, p.points, d, &pt))) {
      if (d > max_d || stopped(cancel)) {
        missing = true;
        continue;
      }
      pt = geometry_sweep_point(p.seed, d, p.points);
      if (memo) memo->keep(p.seed, p.points, pt);
    }
    sweep.push_back(pt);
  }
  a.sweep = std::move(sweep);
  a.sweep_pending = missing;
}

}  // namespace

void complete_geometry_sweep(GeometryAnalysis& a, const GeometryParams& p, const std::atomic<bool>* cancel,
                             GeometryMemo* memo) {
  if (a.sweep_pending) sweep_dimensions(a, p, cancel, memo, std::numeric_limits<int>::max());
}

GeometryAnalysis analyze_geometry(const GeometryParams& p, const std::atomic<bool>* cancel, GeometryMemo* memo) {
  GeometryAnalysis a = analyze_geometry_first(p, cancel, memo, std::numeric_limits<int>::max());
  complete_geometry_sweep(a, p, cancel, memo);
  return a;
}

GeometryAnalysis analyze_geometry_first(const GeometryParams& p, const std::atomic<bool>* cancel, GeometryMemo* memo,
                                        int first_max_d) {
  GeometryAnalysis a;
  a.d = p.d;
  std::mt19937_64 rng(p.seed * 0x9E3779B97F4A7C15ull + 11);
  {
    Sample s = sample_at(rng, p.d, p.samples);
    a.norms = std::move(s.norms);
    a.dots = std::move(s.dots);
    a.cosines = std::move(s.cosines);
    for (double c : a.cosines) a.angles_deg.push_back(angle_deg(c));
    double sq = 0;
    for (double n : a.norms) sq += n * n;
    a.mean_norm_sq = sq / static_cast<double>(a.norms.size());
    const double cs = std_of(a.cosines);
    a.cos_variance = cs * cs;
  }
  if (stopped(cancel)) return a;
  // The sweep draws a fixed number of vectors per dimension, so its cost grows with d only linearly.
  sweep_dimensions(a, p, cancel, memo, first_max_d);
  if (stopped(cancel)) return a;
  a.keys = compare_keys(rng, p.d, p.n_keys, p.big_norm);

  if (!(memo && memo->find_spectrum(p, &a.spectrum, &a.error))) {
    a.spectrum = spectrum_stage(p, &a.error);
    if (memo) memo->keep_spectrum(p, a.spectrum, a.error);
  }
  return a;
}

}  // namespace tw
