#include "core/eigen_decompositions.h"  // first: Eigen's QR read under its warning pragma

#include "core/experiments/lora_experiment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/base/i18n.h"
#include "core/random.h"

namespace tw {

std::string validate(const LoraExperimentParams& p) {
  if (p.d_in < 1 || p.d_in > 1024 || p.d_out < 1 || p.d_out > 1024)
    return tr("d_in and d_out must be between 1 and 1024");
  if (std::string e = check_lora(p.d_in, p.d_out, p.rank); !e.empty()) return e;
  if (p.true_rank < 1 || p.true_rank > std::min(p.d_in, p.d_out))
    return subst(tr("true rank must be between 1 and $\\min(d_{in}, d_{out})$ = {0}"),
                 {std::to_string(std::min(p.d_in, p.d_out))});
  if (!(p.decay > 0.0 && p.decay <= 1.0)) return tr("singular-value decay must be in (0, 1]");
  if (!(p.noise >= 0.0) || !std::isfinite(p.noise)) return tr("noise must be ≥ 0");
  if (p.steps < 0 || p.steps > 100000) return tr("steps must be between 0 and 100000");
  if (!(p.lr > 0.0) || !std::isfinite(p.lr)) return tr("learning rate must be > 0");
  if (!(p.alpha > 0.0f) || !std::isfinite(p.alpha)) return tr("alpha must be > 0");
  if (p.max_sweep_rank < 1) return tr("max sweep rank must be at least 1");
  return "";
}

double lora_param_percent(int d_in, int d_out, int r) {
  return 100.0 * static_cast<double>(r) * (d_in + d_out) / (static_cast<double>(d_in) * d_out);
}

namespace {

MatD gaussian(int rows, int cols, std::mt19937_64& rng) {
  MatD m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = standard_normal(rng);
  return m;
}

Eigen::MatrixXd orthonormal_columns(int rows, int cols, std::mt19937_64& rng) {
  const Eigen::MatrixXd g = gaussian(rows, cols, rng);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  return qr.householderQ() * Eigen::MatrixXd::Identity(rows, cols);
}

double max_abs_diff_double(const Mat& a, const Mat& b) {
  return (a.cast<double>() - b.cast<double>()).cwiseAbs().maxCoeff();
}

}  // namespace

Mat lora_target_update(int d_in, int d_out, int true_rank, double decay, double noise, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const Eigen::MatrixXd U = orthonormal_columns(d_out, true_rank, rng);
  const Eigen::MatrixXd V = orthonormal_columns(d_in, true_rank, rng);
  Eigen::VectorXd sigma(true_rank);
  for (int i = 0; i < true_rank; ++i) sigma[i] = std::pow(decay, i);
  MatD target = U * sigma.asDiagonal() * V.transpose();
  if (noise > 0.0) target += (noise / std::sqrt(static_cast<double>(d_in))) * gaussian(d_out, d_in, rng);
  return target.cast<float>();
}

FitStatus train_lora_fit(LoraAdapter& ad, std::vector<double>& loss, const Mat& target, int r, float alpha, bool rslora,
                         int steps, double lr, LoraOptimizer opt, uint64_t seed,
                         const std::function<bool(float)>& progress) {
  // target, R: (d_out, d_in)   A, gA, mA, vA: (r, d_in)   B, gB, mB, vB: (d_out, r)
  const int d_out = static_cast<int>(target.rows()), d_in = static_cast<int>(target.cols());
  std::mt19937_64 rng(seed);
  lora_init(ad, d_in, d_out, r, alpha, rslora, rng);
  const float s = ad.scale();
  const double norm2 = std::max(static_cast<double>(target.squaredNorm()), 1e-30);
  Mat R(d_out, d_in), gA(r, d_in), gB(d_out, r);
  Mat mA = Mat::Zero(r, d_in), vA = Mat::Zero(r, d_in), mB = Mat::Zero(d_out, r), vB = Mat::Zero(d_out, r);
  const float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  const float g_scale = static_cast<float>(2.0 * s / norm2);
  loss.assign(1, 1.0);  // B = 0: the residual is ΔW itself
  for (int step = 1; step <= steps; ++step) {
    // The residual of the current weights is both this step's gradient input and the previous step's loss.
    R.noalias() = s * (ad.B * ad.A);
    R -= target;
    if (step > 1) {
      loss.push_back(static_cast<double>(R.squaredNorm()) / norm2);
      if (!(loss.back() < 1e6)) return FitStatus::Diverged;  // also catches NaN
    }
    gB.noalias() = g_scale * (R * ad.A.transpose());
    gA.noalias() = g_scale * (ad.B.transpose() * R);
    if (opt == LoraOptimizer::Sgd) {
      ad.A -= static_cast<float>(lr) * gA;
      ad.B -= static_cast<float>(lr) * gB;
    } else {
      const float c1 = 1.0f - std::pow(beta1, static_cast<float>(step));
      const float c2 = 1.0f - std::pow(beta2, static_cast<float>(step));
      const float step_size = static_cast<float>(lr) / c1;
      mA = beta1 * mA + (1.0f - beta1) * gA;
      vA = beta2 * vA + (1.0f - beta2) * gA.cwiseAbs2();
      mB = beta1 * mB + (1.0f - beta1) * gB;
      vB = beta2 * vB + (1.0f - beta2) * gB.cwiseAbs2();
      ad.A.array() -= step_size * mA.array() / ((vA.array() / c2).sqrt() + eps);
      ad.B.array() -= step_size * mB.array() / ((vB.array() / c2).sqrt() + eps);
    }
    if (progress && !progress(static_cast<float>(step) / static_cast<float>(steps))) return FitStatus::Cancelled;
  }
  if (steps > 0) {
    R.noalias() = s * (ad.B * ad.A);
    R -= target;
    loss.push_back(static_cast<double>(R.squaredNorm()) / norm2);
    if (!(loss.back() < 1e6)) return FitStatus::Diverged;
  }
  return FitStatus::Done;
}

namespace {
// Everything a fit reads besides its rank.
bool same_fit_setting(const LoraExperimentParams& a, const LoraExperimentParams& b) {
  return a.d_in == b.d_in && a.d_out == b.d_out && a.alpha == b.alpha && a.rslora == b.rslora &&
         a.true_rank == b.true_rank && a.decay == b.decay && a.noise == b.noise && a.steps == b.steps && a.lr == b.lr &&
         a.optimizer == b.optimizer && a.seed == b.seed;
}

// The fit of rank r for e.target: memo's, or trained (and kept unless cancelled).
std::shared_ptr<const LoraFit> fit_of(const LoraExperiment& e, const LoraExperimentParams& p, int r,
                                      const std::function<bool(float)>& progress, LoraFitMemo* memo) {
  if (memo)
    if (auto kept = memo->find(p, r)) return kept;
  auto fit = std::make_shared<LoraFit>();
  fit->status = train_lora_fit(fit->adapter, fit->loss, e.target, r, p.alpha, p.rslora, p.steps, p.lr, p.optimizer,
                               p.seed, progress);
  if (memo && fit->status != FitStatus::Cancelled) memo->keep(p, r, fit);
  return fit;
}

// A sweep rank's fit into e: its error, or the diverged flag.
void take_sweep_fit(LoraExperiment& e, size_t i, const LoraFit& fit) {
  if (fit.status == FitStatus::Diverged)
    e.diverged = true;
  else
    e.lora_error[i] = std::sqrt(fit.loss.back());
}
}  // namespace

std::shared_ptr<const LoraFit> LoraFitMemo::find(const LoraExperimentParams& p, int r) const {
  std::lock_guard lock(mutex_);
  if (!has_setting_ || !same_fit_setting(setting_, p)) return nullptr;
  const auto it = fits_.find(r);
  return it == fits_.end() ? nullptr : it->second;
}

void LoraFitMemo::keep(const LoraExperimentParams& p, int r, std::shared_ptr<const LoraFit> fit) {
  std::lock_guard lock(mutex_);
  if (!has_setting_ || !same_fit_setting(setting_, p)) {
    fits_.clear();
    setting_ = p;
    has_setting_ = true;
  }
  fits_[r] = std::move(fit);
}

bool LoraFitMemo::holds_all(const LoraExperimentParams& p, const std::vector<int>& ranks) const {
  std::lock_guard lock(mutex_);
  if (!has_setting_ || !same_fit_setting(setting_, p) || !fits_.count(p.rank)) return false;
  if (p.train_sweep)
    for (int r : ranks)
      if (!fits_.count(r)) return false;
  return true;
}

std::vector<int> lora_sweep_ranks(const LoraExperimentParams& p) {
  const int k = std::min(p.d_in, p.d_out);
  std::vector<int> ranks;
  for (int r : {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024})
    if (r <= k && r <= p.max_sweep_rank) ranks.push_back(r);
  if (std::find(ranks.begin(), ranks.end(), p.rank) == ranks.end()) {
    ranks.push_back(p.rank);
    std::sort(ranks.begin(), ranks.end());
  }
  return ranks;
}

LoraExperiment run_lora_experiment(const LoraExperimentParams& p, const std::function<bool(float)>& progress,
                                   LoraFitMemo* memo) {
  // Progress in units of trained steps: the chosen rank first, then the other sweep ranks.
  const double fits = p.train_sweep ? static_cast<double>(lora_sweep_ranks(p).size()) : 1.0;
  const float first_share = static_cast<float>(1.0 / fits);
  auto scaled = [&](float from, float share) {
    return std::function<bool(float)>(
        [&progress, from, share](float f) { return !progress || progress(from + share * f); });
  };
  LoraExperiment e = run_lora_experiment_first(p, scaled(0.0f, first_share), memo);
  complete_lora_sweep(e, p, scaled(first_share, 1.0f - first_share), memo);
  return e;
}

LoraExperiment run_lora_experiment_first(const LoraExperimentParams& p, const std::function<bool(float)>& progress,
                                         LoraFitMemo* memo) {
  LoraExperiment e;
  e.target = lora_target_update(p.d_in, p.d_out, p.true_rank, p.decay, p.noise, p.seed);
  e.target_norm = e.target.cast<double>().norm();
  e.target_rms = e.target.size() > 0 ? e.target_norm / std::sqrt(static_cast<double>(e.target.size())) : 0.0;
  const Svd svd = svd_decompose(e.target);
  e.sigma = svd.sigma;

  e.ranks = lora_sweep_ranks(p);
  e.full_params = int64_t{p.d_in} * p.d_out;
  e.param_percent = lora_param_percent(p.d_in, p.d_out, p.rank);
  const double tn = std::max(e.target_norm, 1e-30);
  for (int r : e.ranks) {
    e.svd_error.push_back(svd_tail_error(e.sigma, r) / tn);
    e.params.push_back(lora_trainable_params(p.d_in, p.d_out, r));
  }
  e.svd_error_at_rank = svd_tail_error(e.sigma, p.rank) / tn;
  e.lora_error.assign(e.ranks.size(), std::numeric_limits<double>::quiet_NaN());

  // The chosen rank first, so the panel's main figures are ready even if the sweep is cancelled.
  const std::shared_ptr<const LoraFit> main_fit = fit_of(e, p, p.rank, progress, memo);
  if (main_fit->status == FitStatus::Cancelled) {
    e.cancelled = true;
    return e;
  }
  e.adapter = main_fit->adapter;
  e.loss = main_fit->loss;
  e.diverged = main_fit->status == FitStatus::Diverged;
  lora_delta(e.delta, e.adapter);
  e.residual = e.target - e.delta;
  e.final_error = e.diverged ? std::numeric_limits<double>::quiet_NaN() : e.residual.cast<double>().norm() / tn;
  for (size_t i = 0; i < e.ranks.size(); ++i) {
    if (e.ranks[i] == p.rank)
      e.lora_error[i] = e.final_error;
    else if (p.train_sweep) {
      if (const auto kept = memo ? memo->find(p, e.ranks[i]) : nullptr)
        take_sweep_fit(e, i, *kept);
      else
        e.sweep_pending = true;
    }
  }

  // Checks on a small random base layer and batch.
  {
    std::mt19937_64 rng(p.seed + 1000);
    const Mat W0 = gaussian(p.d_out, p.d_in, rng).cast<float>();
    const Mat x = gaussian(4, p.d_in, rng).cast<float>();
    LoraAdapter fresh;
    std::mt19937_64 init_rng(p.seed);
    lora_init(fresh, p.d_in, p.d_out, p.rank, p.alpha, p.rslora, init_rng);
    Mat out, xa;
    lora_forward(out, xa, x, W0, fresh, 4, p.d_in, p.d_out, p.rank);
    const Mat base = x * W0.transpose();
    e.step0_error = max_abs_diff_double(out, base);
    e.step0_equals_base = e.step0_error == 0.0;

    lora_forward(out, xa, x, W0, e.adapter, 4, p.d_in, p.d_out, p.rank);
    Mat merged_w = W0;
    lora_merge(merged_w, e.adapter);
    const Mat merged = x * merged_w.transpose();
    const double scale = std::max(1.0, static_cast<double>(out.cwiseAbs().maxCoeff()));
    e.merge_error = max_abs_diff_double(merged, out) / scale;
    e.merged_equals_unmerged = e.merge_error < 1e-5;
  }

  // Update size against r for both scalings: ‖B A‖²_F = trace((BᵀB)(A Aᵀ)) costs r²·d, not r·d².
  {
    std::mt19937_64 rng(p.seed + 2000);
    const int max_r = 64;
    LoraAdapter big;
    lora_init(big, p.d_in, p.d_out, max_r, p.alpha, false, rng);
    // B of the same per-entry scale as A's init (uniform ±1/√d_out): a stand-in for a trained B.
    big.B.resize(p.d_out, max_r);
    const double bound = 1.0 / std::sqrt(static_cast<double>(p.d_out));
    for (Eigen::Index i = 0; i < big.B.size(); ++i)
      big.B.data()[i] = static_cast<float>(bound * (2.0 * uniform01(rng) - 1.0));
    const MatD gram_a = big.A.cast<double>() * big.A.cast<double>().transpose();  // (64, 64)
    const MatD gram_b = big.B.cast<double>().transpose() * big.B.cast<double>();  // (64, 64)
    for (int r = 1; r <= max_r; ++r) {
      const double ba2 = (gram_b.topLeftCorner(r, r).cwiseProduct(gram_a.topLeftCorner(r, r))).sum();
      const double ba = std::sqrt(std::max(ba2, 0.0));
      e.scale_ranks.push_back(r);
      e.update_norm_alpha_r.push_back(lora_scale(p.alpha, r, false) * ba);
      e.update_norm_alpha_sqrt_r.push_back(lora_scale(p.alpha, r, true) * ba);
    }
  }
  return e;
}

void complete_lora_sweep(LoraExperiment& e, const LoraExperimentParams& p, const std::function<bool(float)>& progress,
                         LoraFitMemo* memo) {
  if (e.cancelled || !e.sweep_pending) return;
  int missing = 0;
  for (size_t i = 0; i < e.ranks.size(); ++i)
    if (e.ranks[i] != p.rank && std::isnan(e.lora_error[i])) ++missing;
  int done = 0;
  for (size_t i = 0; i < e.ranks.size(); ++i) {
    if (e.ranks[i] == p.rank || !std::isnan(e.lora_error[i])) continue;
    const auto sub = [&](float f) { return !progress || progress((static_cast<float>(done) + f) / missing); };
    const std::shared_ptr<const LoraFit> fit = fit_of(e, p, e.ranks[i], sub, memo);
    if (fit->status == FitStatus::Cancelled) {
      e.cancelled = true;
      return;
    }
    ++done;
    take_sweep_fit(e, i, *fit);
  }
  e.sweep_pending = false;
}

double lora_experiment_work(const LoraExperimentParams& p) {
  const double sweep = p.train_sweep ? 220.0 : p.rank;  // Σ r over the sweep ladder up to 64
  return 3.0 * p.d_in * p.d_out * sweep * std::max(1, p.steps) + 10.0 * p.d_in * p.d_out * std::min(p.d_in, p.d_out);
}

}  // namespace tw
