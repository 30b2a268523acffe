#include "core/experiments/rope_analysis.h"

#include <cmath>
#include <numbers>
#include <random>

#include "core/base/i18n.h"

namespace tw {

std::string validate(const RopeAnalysisParams& p) {
  if (std::string e = validate(p.rope); !e.empty()) return e;
  if (p.seq_len < 1) return tr("sequence length must be at least 1");
  if (p.positions < 1 || p.positions > 65536) return tr("positions must be between 1 and 65536");
  if (p.query_pos < 0 || p.key_pos < 0) return tr("positions $m$ and $n$ must be ≥ 0");
  if (p.pair < 0 || p.pair >= p.rope.head_dim / 2)
    return subst(tr("pair index must be between 0 and head_dim/2 − 1 ({0})"),
                 {std::to_string(p.rope.head_dim / 2 - 1)});
  if (p.max_distance < 0 || p.max_distance > 1000000) return tr("max distance must be between 0 and 1000000");
  if (p.shift < 0) return tr("shift must be ≥ 0");
  return "";
}

namespace {

// q · k of two single-head vectors rotated to positions m and n with the given tables' convention.
double rotated_score(const Mat& q, const Mat& k, const RopeConfig& cfg, const std::vector<double>& theta, int m,
                     int n) {
  Mat cq, sq, ck, sk, qr, kr;
  rope_cos_sin(cq, sq, theta, m, 1);
  rope_cos_sin(ck, sk, theta, n, 1);
  const int D = cfg.head_dim;
  rope_apply(qr, q, cq, sq, cfg.convention, 1, 1, D);
  rope_apply(kr, k, ck, sk, cfg.convention, 1, 1, D);
  return qr.row(0).cast<double>().dot(kr.row(0).cast<double>());
}

}  // namespace

RopeAnalysis analyze_rope(const RopeAnalysisParams& p) {
  const RopeConfig& cfg = p.rope;
  const int D = cfg.head_dim, half = D / 2;
  const double two_pi = 2.0 * std::numbers::pi;
  RopeAnalysis r;

  // Frequencies and wavelengths.
  r.theta = rope_frequencies(D, cfg.base);
  r.theta_scaled = rope_scaled_frequencies(cfg, p.seq_len);
  r.effective_base = rope_effective_base(cfg, p.seq_len);
  r.wavelength.resize(static_cast<size_t>(half));
  r.wavelength_scaled.resize(static_cast<size_t>(half));
  for (int k = 0; k < half; ++k) {
    r.wavelength[static_cast<size_t>(k)] = two_pi / r.theta[static_cast<size_t>(k)];
    r.wavelength_scaled[static_cast<size_t>(k)] = two_pi / r.theta_scaled[static_cast<size_t>(k)];
  }

  // Angle heatmap.
  Mat sin_unused;
  rope_cos_sin(r.cos_angle, sin_unused, r.theta_scaled, 0, p.positions);

  // Random q, k (Gaussian from a seeded engine; Box–Muller keeps it identical across platforms).
  std::mt19937_64 rng(p.seed);
  auto gauss = [&rng] {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  };
  r.q.resize(1, D);
  r.k.resize(1, D);
  for (int i = 0; i < D; ++i) r.q(0, i) = static_cast<float>(gauss());
  for (int i = 0; i < D; ++i) r.k(0, i) = static_cast<float>(gauss());

  // Plane of the selected pair.
  const bool inter = cfg.convention == RopeConvention::Interleaved;
  const int ia = inter ? 2 * p.pair : p.pair, ib = inter ? 2 * p.pair + 1 : p.pair + half;
  const double th = r.theta_scaled[static_cast<size_t>(p.pair)];
  r.q_angle = p.query_pos * th;
  r.k_angle = p.key_pos * th;
  r.q_pair[0] = r.q(0, ia);
  r.q_pair[1] = r.q(0, ib);
  r.k_pair[0] = r.k(0, ia);
  r.k_pair[1] = r.k(0, ib);
  auto rotate = [](const double in[2], double angle, double out[2]) {
    out[0] = in[0] * std::cos(angle) - in[1] * std::sin(angle);
    out[1] = in[0] * std::sin(angle) + in[1] * std::cos(angle);
  };
  rotate(r.q_pair, r.q_angle, r.q_rotated);
  rotate(r.k_pair, r.k_angle, r.k_rotated);

  // Score and expected self-similarity against distance: rotate q once for every distance (one table).
  const int n_dist = p.max_distance + 1;
  r.distance.resize(static_cast<size_t>(n_dist));
  r.score.resize(static_cast<size_t>(n_dist));
  r.self_similarity.resize(static_cast<size_t>(n_dist));
  {
    Mat cos, sin, q_rep(n_dist, D), q_rot;
    rope_cos_sin(cos, sin, r.theta_scaled, 0, n_dist);
    for (int t = 0; t < n_dist; ++t) q_rep.row(t) = r.q.row(0);
    rope_apply(q_rot, q_rep, cos, sin, cfg.convention, n_dist, 1, D);
    const Eigen::VectorXd k0 = r.k.row(0).cast<double>().transpose();  // key at position 0: unrotated
    for (int t = 0; t < n_dist; ++t) {
      r.distance[static_cast<size_t>(t)] = t;
      r.score[static_cast<size_t>(t)] = q_rot.row(t).cast<double>().dot(k0.transpose());
      double s = 0.0;
      for (int k = 0; k < half; ++k) s += std::cos(t * r.theta_scaled[static_cast<size_t>(k)]);
      r.self_similarity[static_cast<size_t>(t)] = s / half;
    }
  }

  // Live checks, each relative to |q||k| so the tolerance does not depend on the random draw.
  const double qn = r.q.norm(), kn = r.k.norm();
  r.score_mn = rotated_score(r.q, r.k, cfg, r.theta_scaled, p.query_pos, p.key_pos);
  r.score_shifted = rotated_score(r.q, r.k, cfg, r.theta_scaled, p.query_pos + p.shift, p.key_pos + p.shift);
  r.shift_error = std::abs(r.score_mn - r.score_shifted) / (qn * kn);

  {
    const int T = std::max({p.query_pos, p.key_pos, p.positions - 1}) + 1;
    Mat cos, sin, q_rep(T, D), q_rot;
    rope_cos_sin(cos, sin, r.theta_scaled, 0, T);
    for (int t = 0; t < T; ++t) q_rep.row(t) = r.q.row(0);
    rope_apply(q_rot, q_rep, cos, sin, cfg.convention, T, 1, D);
    double worst = 0.0;
    for (int t = 0; t < T; ++t) worst = std::max(worst, std::abs(q_rot.row(t).cast<double>().norm() - qn) / qn);
    r.norm_error = worst;
  }

  {
    // Move q, k into the other convention's layout, rotate there, and compare the scores.
    const auto perm = rope_interleaved_to_half_split(D);  // half_split[i] = interleaved[perm[i]]
    Mat q_other(1, D), k_other(1, D);
    for (int i = 0; i < D; ++i) {
      const int pi = perm[static_cast<size_t>(i)];
      if (inter) {  // this is Meta layout: HF vector = permuted
        q_other(0, i) = r.q(0, pi);
        k_other(0, i) = r.k(0, pi);
      } else {  // this is HF layout: Meta vector has interleaved[perm[i]] = half_split[i]
        q_other(0, pi) = r.q(0, i);
        k_other(0, pi) = r.k(0, i);
      }
    }
    RopeConfig other = cfg;
    other.convention = inter ? RopeConvention::HalfSplit : RopeConvention::Interleaved;
    const double s_other = rotated_score(q_other, k_other, other, r.theta_scaled, p.query_pos, p.key_pos);
    r.convention_error = std::abs(r.score_mn - s_other) / (qn * kn);
  }

  const double tol = 1e-5;
  r.shift_invariant = r.shift_error < tol;
  r.norm_preserved = r.norm_error < tol;
  r.conventions_agree = r.convention_error < tol;
  return r;
}

}  // namespace tw
