#include "core/ops/moe_ffn.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/ops/linear.h"
#include "core/ops/softmax.h"

namespace tw {

// [SECTION] routing

template <class S>
void moe_route(MoeRoute& r, const MatT<S>& probs, int k, double capacity_factor) {
  // probs: (N, E); r.choice, r.dropped: (N*k); r.wanted, r.load: (E)
  const int N = static_cast<int>(probs.rows()), E = static_cast<int>(probs.cols());
  assert(k >= 1 && k <= E);
  r.k = k;
  r.choice.assign(static_cast<size_t>(N) * k, 0);
  // Top-k per token by repeated arg-max: a strict > keeps the lower index on ties, the deterministic rule.
  for (int t = 0; t < N; ++t) {
    int* chosen = r.choice.data() + static_cast<size_t>(t) * k;
    for (int j = 0; j < k; ++j) {
      int best = -1;
      for (int e = 0; e < E; ++e) {
        if (std::find(chosen, chosen + j, e) != chosen + j) continue;
        if (best < 0 || probs(t, e) > probs(t, best)) best = e;
      }
      chosen[j] = best;
    }
  }
  // Capacity, served rank by rank so first choices win over second choices.
  r.capacity = capacity_factor > 0 ? static_cast<int>(std::ceil(capacity_factor * N * k / E)) : 0;
  r.wanted.assign(static_cast<size_t>(E), 0);
  r.load.assign(static_cast<size_t>(E), 0);
  r.dropped.assign(r.choice.size(), 0);
  for (int j = 0; j < k; ++j)
    for (int t = 0; t < N; ++t) {
      const size_t a = static_cast<size_t>(t) * k + j;
      const size_t e = static_cast<size_t>(r.choice[a]);
      ++r.wanted[e];
      if (r.capacity == 0 || r.load[e] < r.capacity)
        ++r.load[e];
      else
        r.dropped[a] = 1;
    }
  r.n_dropped = static_cast<int>(std::count(r.dropped.begin(), r.dropped.end(), 1));
}

// [SECTION] forward

template <class S>
void moe_ffn_forward(MatT<S>& y, MoeActs<S>& a, const MatT<S>& x, const MatT<S>& router,
                     const std::vector<ExpertRef<S>>& experts, MlpKind kind, Activation act, int k,
                     double capacity_factor) {
  // x, y: (N, C); router: (E, C); probs: (N, E); per expert e: xin (n_e, C), gate/up/hid (n_e, F), out (n_e, C)
  const int N = static_cast<int>(x.rows()), C = static_cast<int>(x.cols()), E = static_cast<int>(router.rows());
  assert(static_cast<int>(experts.size()) == E);

  // Router: logits, then a max-subtracted softmax per token.
  linear_forward<S>(a.probs, x, router);
  for (int t = 0; t < N; ++t) softmax_row_inplace(a.probs.row(t));

  moe_route<S>(a.route, a.probs, k, capacity_factor);

  // Gates: the chosen probabilities renormalised over the k chosen; a dropped assignment's gate is 0.
  a.gates.assign(static_cast<size_t>(N) * k, S(0));
  a.gate_sum.assign(static_cast<size_t>(N), S(0));
  for (int t = 0; t < N; ++t) {
    const size_t a0 = static_cast<size_t>(t) * k;
    S sum = 0;
    for (int j = 0; j < k; ++j) sum += a.probs(t, a.route.choice[a0 + j]);
    a.gate_sum[static_cast<size_t>(t)] = sum;
    for (int j = 0; j < k; ++j)
      if (!a.route.dropped[a0 + j]) a.gates[a0 + j] = a.probs(t, a.route.choice[a0 + j]) / sum;
  }

  // Balance loss: E · Σ_e (wanted_e / N) · mean_t P_t,e.
  double balance = 0;
  for (int e = 0; e < E; ++e)
    balance += static_cast<double>(a.route.wanted[static_cast<size_t>(e)]) / N * (a.probs.col(e).sum() / S(N));
  a.balance = E * balance;

  // Each expert's rows, in token order (so E = 1, k = 1 runs the dense MLP on the same matrix).
  a.slots.resize(static_cast<size_t>(E));
  for (auto& s : a.slots) s.clear();
  for (int t = 0; t < N; ++t)
    for (int j = 0; j < k; ++j) {
      const size_t as = static_cast<size_t>(t) * k + j;
      if (!a.route.dropped[as]) a.slots[static_cast<size_t>(a.route.choice[as])].push_back(static_cast<int>(as));
    }

  // Experts: one independent work item each (gather → MLP → weighted scatter-add).
  a.xin.resize(static_cast<size_t>(E));
  a.gate.resize(static_cast<size_t>(E));
  a.up.resize(static_cast<size_t>(E));
  a.hid.resize(static_cast<size_t>(E));
  a.out.resize(static_cast<size_t>(E));
  y.setZero(N, C);
  for (int e = 0; e < E; ++e) {
    const size_t ei = static_cast<size_t>(e);
    const std::vector<int>& rows = a.slots[ei];
    const int n = static_cast<int>(rows.size());
    MatT<S>& xin = a.xin[ei];
    xin.resize(n, C);
    for (int i = 0; i < n; ++i) xin.row(i) = x.row(rows[static_cast<size_t>(i)] / k);
    const ExpertRef<S>& w = experts[ei];
    linear_forward<S>(a.up[ei], xin, *w.up);
    if (kind != MlpKind::Plain) {
      linear_forward<S>(a.gate[ei], xin, *w.gate);
      glu_forward<S>(a.hid[ei], a.gate[ei], a.up[ei], act);
    } else {
      activation_forward_t<S>(a.hid[ei], a.up[ei], act);
    }
    linear_forward<S>(a.out[ei], a.hid[ei], *w.down);
    for (int i = 0; i < n; ++i) {
      const int as = rows[static_cast<size_t>(i)];
      y.row(as / k) += a.gates[static_cast<size_t>(as)] * a.out[ei].row(i);
    }
  }
}

// [SECTION] backward

template <class S>
void moe_ffn_backward(MatT<S>& dx, MatT<S>& drouter, const std::vector<ExpertGradRef<S>>& dexperts, MoeActs<S>& a,
                      const MatT<S>& dy, const MatT<S>& x, const MatT<S>& router,
                      const std::vector<ExpertRef<S>>& experts, MlpKind kind, Activation act, double balance_grad) {
  // dx, dy, x: (N, C); drouter, router: (E, C); dprobs: (N, E)
  const int N = static_cast<int>(x.rows()), C = static_cast<int>(x.cols()), E = static_cast<int>(router.rows());
  const int k = a.route.k;
  std::vector<S>& dg = a.dgates;
  dg.assign(static_cast<size_t>(N) * k, S(0));  // dropped assignments keep 0: their gate is a constant

  // Experts: y_t += g · out_i, so ∂/∂out_i = g · dy_t and ∂/∂g = dy_t · out_i.
  for (int e = 0; e < E; ++e) {
    const size_t ei = static_cast<size_t>(e);
    const std::vector<int>& rows = a.slots[ei];
    const int n = static_cast<int>(rows.size());
    if (n == 0) continue;
    a.dout.resize(n, C);
    for (int i = 0; i < n; ++i) {
      const int as = rows[static_cast<size_t>(i)];
      a.dout.row(i) = a.gates[static_cast<size_t>(as)] * dy.row(as / k);
      dg[static_cast<size_t>(as)] = dy.row(as / k).dot(a.out[ei].row(i));
    }
    const ExpertRef<S>& w = experts[ei];
    const ExpertGradRef<S>& g = dexperts[ei];
    a.dhid.resize(n, w.down->cols());
    linear_backward<S>(&a.dhid, *g.down, a.dout, a.hid[ei], *w.down, false);
    a.dup.resize(n, w.up->rows());
    a.dxin.resize(n, C);
    bool accumulate = false;
    if (kind != MlpKind::Plain) {
      a.dgate.resize(n, w.gate->rows());
      glu_backward<S>(a.dgate, a.dup, a.dhid, a.gate[ei], a.up[ei], act, false);
      linear_backward<S>(&a.dxin, *g.gate, a.dgate, a.xin[ei], *w.gate, false);
      accumulate = true;
    } else {
      activation_backward<S>(a.dup, a.dhid, a.up[ei], act, false);
    }
    linear_backward<S>(&a.dxin, *g.up, a.dup, a.xin[ei], *w.up, accumulate);
    for (int i = 0; i < n; ++i) dx.row(rows[static_cast<size_t>(i)] / k) += a.dxin.row(i);
  }

  // Gates → router probabilities. g_j = P_j / s with s = Σ_chosen P, so for every chosen m (dropped ones too,
  // they are in s): ∂L/∂P_m = (dg_m − Σ_j dg_j g_j) / s.
  a.dprobs.setZero(N, E);
  for (int t = 0; t < N; ++t) {
    const size_t a0 = static_cast<size_t>(t) * k;
    S dot = 0;
    for (int j = 0; j < k; ++j) dot += dg[a0 + j] * a.gates[a0 + j];
    const S s = a.gate_sum[static_cast<size_t>(t)];
    for (int j = 0; j < k; ++j) a.dprobs(t, a.route.choice[a0 + j]) += (dg[a0 + j] - dot) / s;
  }
  // Balance loss: ∂/∂P_t,e of E · Σ_e f_e · mean_t P_t,e is E · f_e / N (f_e a count, held constant).
  if (balance_grad != 0)
    for (int e = 0; e < E; ++e) {
      const S d =
          static_cast<S>(balance_grad * E * (static_cast<double>(a.route.wanted[static_cast<size_t>(e)]) / N) / N);
      a.dprobs.col(e).array() += d;
    }

  // Softmax backward in place (dz = P ⊙ (dP − Σ P·dP)), then the router's linear backward.
  for (int t = 0; t < N; ++t) {
    const S dot = a.probs.row(t).dot(a.dprobs.row(t));
    a.dprobs.row(t) = (a.probs.row(t).array() * (a.dprobs.row(t).array() - dot)).matrix();
  }
  linear_backward<S>(&dx, drouter, a.dprobs, x, router, true);
}

// [SECTION] instantiations

#define TW_MOE_INSTANTIATE(S)                                                                                         \
  template void moe_route<S>(MoeRoute&, const MatT<S>&, int, double);                                                 \
  template void moe_ffn_forward<S>(MatT<S>&, MoeActs<S>&, const MatT<S>&, const MatT<S>&,                             \
                                   const std::vector<ExpertRef<S>>&, MlpKind, Activation, int, double);               \
  template void moe_ffn_backward<S>(MatT<S>&, MatT<S>&, const std::vector<ExpertGradRef<S>>&, MoeActs<S>&,            \
                                    const MatT<S>&, const MatT<S>&, const MatT<S>&, const std::vector<ExpertRef<S>>&, \
                                    MlpKind, Activation, double);
TW_MOE_INSTANTIATE(float)
TW_MOE_INSTANTIATE(double)
#undef TW_MOE_INSTANTIATE

}  // namespace tw
