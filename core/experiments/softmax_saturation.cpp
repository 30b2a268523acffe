#include "core/experiments/softmax_saturation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <numbers>

#include "core/base/i18n.h"
#include "core/ops/exp_kernel.h"
#include "core/ops/softmax.h"

namespace tw {

void sample_scores(std::vector<float>& out, std::mt19937_64& rng, int d_k, int n) {
  std::chi_squared_distribution<double> chi2(d_k);
  std::normal_distribution<double> z;
  const double norm_q = std::sqrt(chi2(rng));
  out.resize(n);
  for (int j = 0; j < n; ++j) out[j] = static_cast<float>(norm_q * z(rng));
}

void sample_scores_direct(std::vector<float>& out, std::mt19937_64& rng, int d_k, int n) {
  std::normal_distribution<double> z;
  std::vector<double> q(d_k);
  for (double& x : q) x = z(rng);
  out.resize(n);
  for (int j = 0; j < n; ++j) {
    double dot = 0.0;
    for (int d = 0; d < d_k; ++d) dot += q[d] * z(rng);
    out[j] = static_cast<float>(dot);
  }
}

ScoreHistogram score_histogram(int d_k, int samples, int bins, std::uint64_t seed) {
  ScoreHistogram h;
  h.d_k = d_k;
  h.samples = samples;
  const double sigma = std::sqrt(static_cast<double>(d_k));
  const double lo = -4.0 * sigma, width = 8.0 * sigma / bins;
  h.edges.resize(bins + 1);
  for (int b = 0; b <= bins; ++b) h.edges[b] = lo + b * width;
  std::vector<long long> counts(bins, 0);
  std::mt19937_64 rng(seed);
  std::vector<float> s;
  double sum = 0.0, sum_sq = 0.0;
  for (int t = 0; t < samples; ++t) {
    sample_scores(s, rng, d_k, 1);  // one fresh (q, k) pair per sample
    const double x = s[0];
    sum += x;
    sum_sq += x * x;
    const int b = static_cast<int>(std::floor((x - lo) / width));
    if (b >= 0 && b < bins) ++counts[b];
  }
  h.mean = samples > 0 ? sum / samples : 0.0;
  h.variance = samples > 1 ? (sum_sq - samples * h.mean * h.mean) / (samples - 1) : 0.0;
  h.density.resize(bins);
  h.normal_pdf.resize(bins);
  for (int b = 0; b < bins; ++b) {
    h.density[b] = samples > 0 ? counts[b] / (static_cast<double>(samples) * width) : 0.0;
    const double c = lo + (b + 0.5) * width;
    h.normal_pdf[b] = std::exp(-0.5 * c * c / d_k) / (sigma * std::sqrt(2.0 * std::numbers::pi));
  }
  return h;
}

namespace {
// S_top(1 − S_top) with 1 − S_top taken as the sum of the other probabilities: when S_top rounds to 1 in float,
// 1 − S_top would lose every digit, while the sum of the small ones keeps them.
double top_gradient(const float* p, int n, int top) {
  double rest = 0.0;
  for (int j = 0; j < n; ++j)
    if (j != top) rest += p[j];
  return p[top] * rest;
}

// softmax(scale · scores / τ) into p (same length); returns false if the row is empty (never for finite scores).
void scaled_softmax(std::vector<float>& p, const std::vector<float>& scores, float scale, float temperature) {
  p.resize(scores.size());
  for (size_t j = 0; j < scores.size(); ++j) p[j] = scores[j] * scale;
  softmax_inplace(p.data(), static_cast<int>(p.size()), temperature);
}
}  // namespace

QuerySoftmax one_query_softmax(int d_k, int n_keys, ScaleMode mode, float custom_scale, float temperature,
                               std::uint64_t seed) {
  QuerySoftmax r;
  r.scale = attention_scale(mode, d_k, custom_scale);
  std::mt19937_64 rng(seed);
  sample_scores(r.raw_scores, rng, d_k, n_keys);
  scaled_softmax(r.probs_scaled, r.raw_scores, r.scale, temperature);
  scaled_softmax(r.probs_unscaled, r.raw_scores, 1.0f, temperature);
  r.entropy_scaled = entropy_bits(r.probs_scaled.data(), n_keys);
  r.entropy_unscaled = entropy_bits(r.probs_unscaled.data(), n_keys);
  r.entropy_max = std::log2(static_cast<double>(n_keys));
  // softmax is monotone, so sorting each vector descending keeps key j at the same rank in all three.
  for (auto* v : {&r.raw_scores, &r.probs_scaled, &r.probs_unscaled}) std::sort(v->begin(), v->end(), std::greater<>());
  return r;
}

std::vector<int> log_dk_grid(int lo, int hi) {
  std::vector<int> g;
  for (double x = lo; x <= hi * 1.0000001; x *= std::sqrt(2.0)) {
    const int d = static_cast<int>(std::lround(x));
    if (g.empty() || d != g.back()) g.push_back(d);
  }
  if (g.empty() || g.back() != hi) g.push_back(hi);
  return g;
}

SaturationSamples saturation_samples(const std::vector<int>& d_ks, int n_keys, int queries, std::uint64_t seed,
                                     const std::atomic<bool>* cancel) {
  SaturationSamples out;
  out.d_ks = d_ks;
  out.n_keys = n_keys;
  out.queries = queries;
  out.scores.reserve(d_ks.size());
  std::vector<float> s;
  for (size_t idx = 0; idx < d_ks.size(); ++idx) {  // each d_k is an independent work item with its own stream
    if (cancel && cancel->load(std::memory_order_relaxed)) break;
    std::mt19937_64 rng(seed + 0x9E3779B97F4A7C15ull * (idx + 1));
    std::vector<float>& scores = out.scores.emplace_back();
    scores.resize(size_t(std::max(queries, 0)) * size_t(std::max(n_keys, 0)));
    for (int t = 0; t < queries; ++t) {
      sample_scores(s, rng, d_ks[idx], n_keys);
      std::copy(s.begin(), s.end(), scores.begin() + ptrdiff_t(t) * n_keys);
    }
  }
  return out;
}

namespace {
// Sums of the softmax statistics over rows: Σ max_j S_j, Σ H(S) in bits, Σ S_top(1 − S_top).
struct SoftmaxSums {
  double max_p = 0, entropy_bits = 0, grad = 0;
};

// Adds the statistics of S = softmax(scale · s / τ) of `rows` rows of n raw scores s (row-major) to *sums. The
// exponentials of all rows run as one vectorised exp_row (core/ops/exp_kernel.h) over y_j = (x_j − max x) / τ ≤ 0,
// x = scale · s; each row then needs only sums. With c keys at the maximum (y = 0, e^y = 1; c = 1 unless scores tie),
// R = Σ_{y_j < 0} e^{y_j} and Z = c + R:
//   max_j S_j = 1 / Z;   S_top(1 − S_top) = (1 / Z) · (c − 1 + R) / Z, 1 − S_top taken as the sum of the others
//   (never 1 − S_top in floating point, which loses every digit when S_top rounds to 1);
//   H = −Σ S_j log S_j = log Z − Σ S_j y_j (as log S_j = y_j − log Z): one logarithm per row instead of n.
// exp_row clamps y below −87 to e^−87 ≈ 1.6e-38 (a float's normal range): such a key adds at most 1.6e-38 · |y| to H,
// where the exact e^y would add less; below any number the figures show. y, e: scratch of rows · n floats.
void add_softmax_stats(SoftmaxSums* sums, const float* s, int rows, int n, float scale, float temperature,
                       std::vector<float>& y, std::vector<float>& e) {
  // s: (rows, n)   y, e: (rows · n) scratch
  const float inv_t = 1.0f / temperature;
  const size_t size = size_t(rows) * size_t(n);
  y.resize(size);
  e.resize(size);
  using Row = Eigen::Map<Eigen::ArrayXf>;
  using ConstRow = Eigen::Map<const Eigen::ArrayXf>;
  for (int r = 0; r < rows; ++r) {  // one row per work item
    const ConstRow in(s + ptrdiff_t(r) * n, n);
    // max_j (scale · s_j) = scale · max_j s_j exactly: rounding a product by a positive scale keeps the order.
    const float mx = in.maxCoeff() * scale;
    Row(y.data() + ptrdiff_t(r) * n, n) = (in * scale - mx) * inv_t;  // the exponents of S, ≤ 0
  }
  exp_row(e.data(), y.data(), 0.0f, static_cast<int>(size));
  for (int r = 0; r < rows; ++r) {
    const ConstRow yr(y.data() + ptrdiff_t(r) * n, n), er(e.data() + ptrdiff_t(r) * n, n);
    const double rest = (yr < 0.0f).select(er, 0.0f).sum();  // the keys below the maximum
    const double c = (yr == 0.0f).count();                   // the keys at it (e^0 = 1)
    const double ey = (er * yr).sum();
    const double inv_z = 1.0 / (c + rest);
    sums->max_p += inv_z;
    sums->grad += inv_z * ((c - 1.0 + rest) * inv_z);
    sums->entropy_bits += (std::log(c + rest) - ey * inv_z) * std::numbers::log2e;
  }
}
}  // namespace

std::vector<SaturationPoint> saturation_sweep(const SaturationSamples& samples, ScaleMode mode, float custom_scale,
                                              float temperature, const std::atomic<bool>* cancel) {
  const int n_keys = samples.n_keys, queries = samples.queries;
  std::vector<SaturationPoint> out;
  out.reserve(samples.d_ks.size());
  // Rows in blocks of about 4,096 scores, so the scratch stays in the cache whatever the query count.
  const int block = n_keys > 0 ? std::max(1, 4096 / n_keys) : 1;
  std::vector<float> y, e;
  for (size_t idx = 0; idx < samples.scores.size(); ++idx) {
    if (cancel && cancel->load(std::memory_order_relaxed)) break;
    const int d_k = samples.d_ks[idx];
    const float scale = attention_scale(mode, d_k, custom_scale);
    SoftmaxSums scaled, unscaled;
    for (int t = 0; t < queries && n_keys > 0; t += block) {
      const int rows = std::min(block, queries - t);
      const float* s = samples.scores[idx].data() + ptrdiff_t(t) * n_keys;
      add_softmax_stats(&scaled, s, rows, n_keys, scale, temperature, y, e);
      add_softmax_stats(&unscaled, s, rows, n_keys, 1.0f, temperature, y, e);
    }
    const double inv = queries > 0 ? 1.0 / queries : 0.0;
    SaturationPoint pt;
    pt.d_k = d_k;
    pt.max_p_scaled = scaled.max_p * inv;
    pt.max_p_unscaled = unscaled.max_p * inv;
    pt.entropy_bits_scaled = scaled.entropy_bits * inv;
    pt.entropy_bits_unscaled = unscaled.entropy_bits * inv;
    pt.grad_scaled = scaled.grad * inv;
    pt.grad_unscaled = unscaled.grad * inv;
    out.push_back(pt);
  }
  return out;
}

std::vector<SaturationPoint> saturation_sweep(const std::vector<int>& d_ks, int n_keys, int queries, ScaleMode mode,
                                              float custom_scale, float temperature, std::uint64_t seed) {
  return saturation_sweep(saturation_samples(d_ks, n_keys, queries, seed), mode, custom_scale, temperature);
}

WorkedSoftmax worked_softmax(const std::vector<float>& logits, float temperature) {
  WorkedSoftmax w;
  w.logits = logits;
  w.probs = logits;
  if (logits.empty()) return w;
  softmax_inplace(w.probs.data(), static_cast<int>(w.probs.size()), temperature);
  w.top = argmax(w.probs.data(), static_cast<int>(w.probs.size()));
  w.top_grad = top_gradient(w.probs.data(), static_cast<int>(w.probs.size()), w.top);
  return w;
}

std::string parse_logits(std::string_view text, std::vector<float>* out) {
  out->clear();
  auto fail = [&](std::string message) {
    out->clear();
    return message;
  };
  auto quote = [](std::string_view s) {
    std::string q(s.substr(0, 24));
    return "\"" + q + (s.size() > 24 ? "...\"" : "\"");
  };
  size_t i = 0;
  while (i < text.size()) {
    const char ch = text[i];
    if (ch == ' ' || ch == '\t' || ch == ',' || ch == '[' || ch == ']') {
      ++i;
      continue;
    }
    // from_chars: decimal only and independent of the C locale (strtof would read "1,5" as 1 in a German locale
    // and accept hex floats and "nan").
    const char* begin = text.data() + i;
    const char* end = text.data() + text.size();
    if (*begin == '+') ++begin;  // "+2" is a number to a person typing logits
    float v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v, std::chars_format::general);
    const bool ends_token = ptr == end || *ptr == ' ' || *ptr == '\t' || *ptr == ',' || *ptr == ']';
    if (ec == std::errc::result_out_of_range)
      return fail(subst(tr("logit {0} is too large for a float"), {quote(text.substr(i))}));
    if (ec != std::errc() || !ends_token)
      return fail(subst(tr("cannot read a number at {0}"), {quote(text.substr(i))}));
    if (!std::isfinite(v)) return fail(tr("logits must be finite"));
    if (static_cast<int>(out->size()) == kMaxWorkedLogits)
      return fail(subst(tr("at most {0} logits"), {std::to_string(kMaxWorkedLogits)}));
    out->push_back(v);
    i = static_cast<size_t>(ptr - text.data());
  }
  if (out->size() < 2) return fail("enter at least two logits, e.g. 1.0, 0.5, -0.5");
  return "";
}

}  // namespace tw
