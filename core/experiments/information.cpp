#include "core/experiments/information.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/i18n.h"
#include "core/ops/softmax.h"

namespace tw {

namespace {

// −Σ p_i log2 q_i over p's support; +∞ when q_i = 0 there.
double cross_entropy_bits(const std::vector<double>& p, const std::vector<double>& q) {
  double h = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0.0) continue;
    if (q[i] <= 0.0) return std::numeric_limits<double>::infinity();
    h -= p[i] * std::log2(q[i]);
  }
  return h;
}

// Σ p_i log2(p_i / q_i), summed term by term (not H(p,q) − H(p)) so it is never a tiny negative rounding error.
double kl_bits(const std::vector<double>& p, const std::vector<double>& q) {
  double kl = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0.0) continue;
    if (q[i] <= 0.0) return std::numeric_limits<double>::infinity();
    kl += p[i] * std::log2(p[i] / q[i]);
  }
  return std::max(kl, 0.0);
}

}  // namespace

std::string check_distribution(const std::vector<double>& p) {
  if (p.empty()) return tr("the distribution is empty");
  double sum = 0.0;
  for (double v : p) {
    if (!std::isfinite(v) || v < 0.0) return tr("probabilities must be finite and non-negative");
    sum += v;
  }
  if (std::abs(sum - 1.0) > 1e-6)
    return subst(tr("probabilities must sum to 1 (they sum to {0})"), {std::to_string(sum)});
  return "";
}

InformationMeasures information_measures(const std::vector<double>& p, const std::vector<double>& q) {
  InformationMeasures m;
  m.entropy_p = cross_entropy_bits(p, p);
  m.entropy_q = cross_entropy_bits(q, q);
  m.cross_entropy = cross_entropy_bits(p, q);
  m.kl_pq = kl_bits(p, q);
  m.kl_qp = kl_bits(q, p);
  m.perplexity = std::exp2(m.cross_entropy);
  return m;
}

double perplexity_from_loss(double mean_loss_nats) { return std::exp(mean_loss_nats); }
double uniform_loss_nats(int vocab) { return std::log(static_cast<double>(vocab)); }

// [SECTION] the loss of a training run

RunLoss latest_run_loss(const std::vector<MetricsRow>& history) {
  for (auto it = history.rbegin(); it != history.rend(); ++it)
    if (std::isfinite(it->val_loss)) return {true, it->val_loss, true, it->step};
  for (auto it = history.rbegin(); it != history.rend(); ++it)
    if (std::isfinite(it->train_loss)) return {true, it->train_loss, false, it->step};
  return {};
}

}  // namespace tw
