#include "core/experiments/moe_routing.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/base/i18n.h"
#include "core/ops/moe_ffn.h"
#include "core/ops/softmax.h"

namespace tw {

std::string validate(const MoeParams& p) {
  if (p.tokens < 1 || p.tokens > 4096) return tr("tokens must be between 1 and 4096");
  if (p.dim < 1 || p.dim > 1024) return tr("dim must be between 1 and 1024");
  if (p.experts < 1 || p.experts > 256) return tr("experts must be between 1 and 256");
  if (p.top_k < 1 || p.top_k > p.experts) return tr("top_k must be between 1 and the number of experts");
  if (!(p.capacity_factor > 0.0) || !std::isfinite(p.capacity_factor)) return tr("capacity factor must be positive");
  if (p.hidden < 1) return tr("hidden must be at least 1");
  if (!std::isfinite(p.router_bias)) return tr("router bias must be a finite number");
  return "";
}

MoeRouting route_tokens(const Mat& x, const Mat& router, const MoeParams& p) {
  // x: (N, C), router: (E, C)
  const int N = static_cast<int>(x.rows()), E = static_cast<int>(router.rows()), k = p.top_k;
  MoeRouting r;
  Mat logits = x * router.transpose();  // (N, E)
  logits.col(0).array() += static_cast<float>(p.router_bias);
  softmax_rows(r.probs, logits);

  // Top-k and capacity: the same routing the training model's MoE layer uses (core/ops/moe_ffn.h).
  MoeRoute route;
  moe_route<float>(route, r.probs, k, p.capacity_factor);
  r.choice = std::move(route.choice);
  r.dropped = std::move(route.dropped);
  r.wanted = std::move(route.wanted);
  r.load = std::move(route.load);
  r.capacity = route.capacity;
  r.n_dropped = route.n_dropped;

  // Gates: the chosen probabilities renormalised over the k chosen; dropped assignments contribute nothing.
  r.gates = Mat::Zero(N, E);
  for (int t = 0; t < N; ++t) {
    double sum = 0.0;
    for (int j = 0; j < k; ++j) sum += r.probs(t, r.choice[static_cast<size_t>(t) * k + j]);
    for (int j = 0; j < k; ++j) {
      const size_t a = static_cast<size_t>(t) * k + j;
      if (!r.dropped[a]) r.gates(t, r.choice[a]) = static_cast<float>(r.probs(t, r.choice[a]) / sum);
    }
  }

  // Balance loss: E · Σ_e (wanted_e / N) · mean_t P_t,e.
  double loss = 0.0;
  for (int e = 0; e < E; ++e) {
    const double mean_p = r.probs.col(e).cast<double>().mean();
    loss += (static_cast<double>(r.wanted[static_cast<size_t>(e)]) / N) * mean_p;
  }
  r.balance_loss = E * loss;

  const int64_t C = x.cols();
  const int64_t expert = (p.gated ? 3 : 2) * C * p.hidden, router_params = int64_t(E) * C;
  r.total_params = E * expert + router_params;
  r.active_params = k * expert + router_params;
  return r;
}

MoeRouting moe_experiment(const MoeParams& p) {
  std::mt19937_64 rng(p.seed);
  // Box–Muller from 53-bit uniforms: the same numbers on every platform (std::normal_distribution is not).
  auto gauss = [&]() {
    const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  };
  Mat x(p.tokens, p.dim), w(p.experts, p.dim);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(gauss());
  const double scale = 1.0 / std::sqrt(double(p.dim));
  for (Eigen::Index i = 0; i < w.size(); ++i) w.data()[i] = static_cast<float>(scale * gauss());
  return route_tokens(x, w, p);
}

double moe_experiment_work(const MoeParams& params) { return double(params.tokens) * params.dim * params.experts; }

}  // namespace tw
