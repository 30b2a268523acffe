// The MoE feed-forward op: its backward against central differences in double (inputs chosen with a clear margin
// between each token's k-th and (k+1)-th router probability, so ±h never changes the routing), E = 1, k = 1 against
// the dense MLP chain, loads and drops, the balance loss and the tie rule on hand-worked cases.
#include "core/ops/moe_ffn.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/ops/linear.h"

namespace tw {
namespace {

// Deterministic values in [−amp, amp).
MatD noise(int rows, int cols, uint64_t seed, double amp) {
  MatD m(rows, cols);
  uint64_t s = seed;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    m.data()[i] = amp * (2.0 * (static_cast<double>(s >> 11) / 9007199254740992.0) - 1.0);
  }
  return m;
}

struct Layer {
  int N, C, E, k, F;
  MlpKind kind;
  Activation act;
  double cf;
  MatD x, router, readout;  // readout R: the test's loss is Σ R ⊙ y + β · balance
  std::vector<MatD> gate, up, down;
  std::vector<ExpertRef<double>> refs() const {
    std::vector<ExpertRef<double>> r;
    for (int e = 0; e < E; ++e)
      r.push_back({&gate[static_cast<size_t>(e)], &up[static_cast<size_t>(e)], &down[static_cast<size_t>(e)]});
    return r;
  }
};

Layer make_layer(MlpKind kind, Activation act, double cf, uint64_t seed) {
  Layer L{12, 6, 4, 2, 5, kind, act, cf, {}, {}, {}, {}, {}, {}};
  L.x = noise(L.N, L.C, seed, 1.0);
  L.router = noise(L.E, L.C, seed + 1, 1.5);
  L.readout = noise(L.N, L.C, seed + 2, 1.0);
  for (int e = 0; e < L.E; ++e) {
    L.gate.push_back(noise(L.F, L.C, seed + 10 + e, 0.6));
    L.up.push_back(noise(L.F, L.C, seed + 20 + e, 0.6));
    L.down.push_back(noise(L.C, L.F, seed + 30 + e, 0.6));
  }
  return L;
}

constexpr double kBeta = 0.37;  // weight of the balance loss in the test's loss

double loss_of(const Layer& L, MoeActs<double>* keep = nullptr) {
  MoeActs<double> a;
  MatD y;
  moe_ffn_forward<double>(y, a, L.x, L.router, L.refs(), L.kind, L.act, L.k, L.cf);
  const double l = (y.array() * L.readout.array()).sum() + kBeta * a.balance;
  if (keep) *keep = std::move(a);
  return l;
}

// Smallest gap between a token's k-th and (k+1)-th probability: the margin a perturbation must not cross (a step
// h = 1e-6 of one input moves a probability by about 1e-6, so 1e-4 leaves a factor of 100).
double routing_margin(const MoeActs<double>& a, int k) {
  double margin = 1;
  for (int t = 0; t < a.probs.rows(); ++t) {
    std::vector<double> p(a.probs.row(t).data(), a.probs.row(t).data() + a.probs.cols());
    std::sort(p.begin(), p.end(), std::greater<>());
    margin = std::min(margin, p[static_cast<size_t>(k - 1)] - p[static_cast<size_t>(k)]);
  }
  return margin;
}

double rel_err(const MatD& analytic, const MatD& numeric) {
  return (analytic - numeric).cwiseAbs().maxCoeff() / std::max(analytic.cwiseAbs().maxCoeff(), 1e-30);
}

// Central differences of loss_of over every entry of m.
MatD numeric_grad(Layer& L, MatD& m) {
  const double h = 1e-6;
  MatD g(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const double keep = m.data()[i];
    m.data()[i] = keep + h;
    const double lp = loss_of(L);
    m.data()[i] = keep - h;
    const double lm = loss_of(L);
    m.data()[i] = keep;
    g.data()[i] = (lp - lm) / (2 * h);
  }
  return g;
}

void expect_backward_matches(MlpKind kind, Activation act, double cf) {
  Layer L = make_layer(kind, act, cf, 5);
  MoeActs<double> a;
  loss_of(L, &a);
  ASSERT_GT(routing_margin(a, L.k), 1e-4) << "inputs too close to a routing tie for a finite-difference check";
  if (cf > 0) {
    EXPECT_GT(a.route.n_dropped, 0) << "the capacity case should drop something";
  }
  // Analytic: dy = R.
  MatD dx = MatD::Zero(L.N, L.C), drouter = MatD::Zero(L.E, L.C);
  std::vector<MatD> dgate, dup, ddown;
  for (int e = 0; e < L.E; ++e) {
    dgate.push_back(MatD::Zero(L.F, L.C));
    dup.push_back(MatD::Zero(L.F, L.C));
    ddown.push_back(MatD::Zero(L.C, L.F));
  }
  std::vector<ExpertGradRef<double>> grefs;
  for (int e = 0; e < L.E; ++e)
    grefs.push_back({&dgate[static_cast<size_t>(e)], &dup[static_cast<size_t>(e)], &ddown[static_cast<size_t>(e)]});
  moe_ffn_backward<double>(dx, drouter, grefs, a, L.readout, L.x, L.router, L.refs(), kind, act, kBeta);

  EXPECT_LT(rel_err(dx, numeric_grad(L, L.x)), 1e-7) << "dx";
  EXPECT_LT(rel_err(drouter, numeric_grad(L, L.router)), 1e-7) << "drouter";
  for (int e = 0; e < L.E; ++e) {
    const size_t ei = static_cast<size_t>(e);
    if (a.route.load[ei] == 0) continue;  // an idle expert has a zero gradient, which differences also give
    if (kind != MlpKind::Plain) {
      EXPECT_LT(rel_err(dgate[ei], numeric_grad(L, L.gate[ei])), 1e-7) << "gate " << e;
    }
    EXPECT_LT(rel_err(dup[ei], numeric_grad(L, L.up[ei])), 1e-7) << "up " << e;
    EXPECT_LT(rel_err(ddown[ei], numeric_grad(L, L.down[ei])), 1e-7) << "down " << e;
  }
  // The router must actually receive gradient from both the gates and the balance term.
  EXPECT_GT(drouter.cwiseAbs().maxCoeff(), 1e-3);
}

TEST(MoeFfnGrad, SwiGLUNoCapacity) { expect_backward_matches(MlpKind::SwiGLU, Activation::SiLU, 0.0); }
TEST(MoeFfnGrad, SwiGLUWithDrops) { expect_backward_matches(MlpKind::SwiGLU, Activation::SiLU, 0.75); }
TEST(MoeFfnGrad, GeluWithDrops) { expect_backward_matches(MlpKind::Plain, Activation::GeluExact, 0.75); }

// One expert, top-1: every gate is P/P = 1 and every token reaches the expert in token order, so the layer is the
// dense MLP chain the training model runs, bit for bit.
TEST(MoeFfn, OneExpertTopOneIsTheDenseMlp) {
  for (MlpKind kind : {MlpKind::SwiGLU, MlpKind::Plain}) {
    const Activation act = kind == MlpKind::SwiGLU ? Activation::SiLU : Activation::GeluExact;
    const Mat x = noise(9, 8, 3, 1.0).cast<float>(), router = noise(1, 8, 4, 1.0).cast<float>();
    const Mat gate = noise(16, 8, 5, 0.5).cast<float>(), up = noise(16, 8, 6, 0.5).cast<float>(),
              down = noise(8, 16, 7, 0.5).cast<float>();
    MoeActs<float> a;
    Mat y;
    moe_ffn_forward<float>(y, a, x, router, {{&gate, &up, &down}}, kind, act, 1, 0.0);
    Mat u, g, hid, dense;
    linear_forward<float>(u, x, up);
    if (kind == MlpKind::SwiGLU) {
      linear_forward<float>(g, x, gate);
      glu_forward<float>(hid, g, u, act);
    } else {
      activation_forward_t<float>(hid, u, act);
    }
    linear_forward<float>(dense, hid, down);
    ASSERT_EQ(y.rows(), dense.rows());
    EXPECT_TRUE(y == dense) << "max |diff| " << (y - dense).cwiseAbs().maxCoeff();
    EXPECT_EQ(a.balance, 1.0);  // E · f · P̄ = 1 · 1 · 1
  }
}

TEST(MoeFfn, LoadsSumToTokensTimesKMinusDrops) {
  for (double cf : {0.0, 0.5, 0.75, 1.0, 2.0}) {
    for (int k : {1, 2, 3}) {
      Layer L = make_layer(MlpKind::SwiGLU, Activation::SiLU, cf, 11);
      L.k = k;
      L.router.row(0).array() += 0.8;  // a popular expert, so small capacities drop
      MoeActs<double> a;
      loss_of(L, &a);
      const MoeRoute& r = a.route;
      const int load = std::accumulate(r.load.begin(), r.load.end(), 0);
      EXPECT_EQ(load, L.N * k - r.n_dropped) << "cf " << cf << " k " << k;
      EXPECT_EQ(std::accumulate(r.wanted.begin(), r.wanted.end(), 0), L.N * k);
      if (cf == 0) {
        EXPECT_EQ(r.n_dropped, 0);
      }
      if (cf > 0) {
        EXPECT_EQ(r.capacity, static_cast<int>(std::ceil(cf * L.N * k / L.E)));
        for (int e : r.load) EXPECT_LE(e, r.capacity);
      }
      int rows = 0;
      for (const auto& s : a.slots) rows += static_cast<int>(s.size());
      EXPECT_EQ(rows, load);  // the experts processed exactly the accepted assignments
    }
  }
}

// Two tokens, two experts, top-1, router logits (ln 3, 0) for token 0 and (0, 0) for token 1:
// P = [[3/4, 1/4], [1/2, 1/2]]. Token 1 is a tie and goes to expert 0 (the lower index). f = (2/2, 0),
// P̄ = (5/8, 3/8), balance = E · Σ f P̄ = 2 · 5/8 = 1.25.
TEST(MoeFfn, BalanceLossAndTieRuleByHand) {
  MatD x(2, 2), router(2, 2);
  x << 1, 0, 0, 1;
  router << std::log(3.0), 0, 0, 0;
  const MatD w = MatD::Identity(2, 2);
  MoeActs<double> a;
  MatD y;
  moe_ffn_forward<double>(y, a, x, router, {{&w, &w, &w}, {&w, &w, &w}}, MlpKind::Plain, Activation::ReLU, 1, 0.0);
  EXPECT_NEAR(a.probs(0, 0), 0.75, 1e-15);
  EXPECT_EQ(a.route.choice, (std::vector<int>{0, 0}));
  EXPECT_EQ(a.route.wanted, (std::vector<int>{2, 0}));
  EXPECT_NEAR(a.balance, 1.25, 1e-15);
  // Top-2 of the same: f = (2/2, 2/2), balance = 2 · (5/8 + 3/8) = 2 = k, as for any router when k = E.
  moe_ffn_forward<double>(y, a, x, router, {{&w, &w, &w}, {&w, &w, &w}}, MlpKind::Plain, Activation::ReLU, 2, 0.0);
  EXPECT_NEAR(a.balance, 2.0, 1e-15);
  EXPECT_EQ(a.route.choice, (std::vector<int>{0, 1, 0, 1}));
}

// The numbers bench/pytorch_moe_ref.py prints (PyTorch autograd in float64 over Mixtral's topk + renormalisation,
// Switch's capacity and transformers' load_balancing_loss_func), for tensors filled by the same formula:
// amp · sin(0.7·i + 1.1·t + 0.3). 10 tokens, C 6, 4 SwiGLU experts of F 5, top-2, capacity factor 0.75 (6 drops).
TEST(MoeFfn, MatchesPyTorchReference) {
  const int N = 10, C = 6, E = 4, k = 2, F = 5;
  auto filled = [](int rows, int cols, int t, double amp) {
    MatD m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = amp * std::sin(0.7 * double(i) + 1.1 * t + 0.3);
    return m;
  };
  Layer L{N,
          C,
          E,
          k,
          F,
          MlpKind::SwiGLU,
          Activation::SiLU,
          0.75,
          filled(N, C, 0, 1.0),
          filled(E, C, 1, 1.5),
          filled(N, C, 2, 1.0),
          {},
          {},
          {}};
  for (int e = 0; e < E; ++e) {
    L.gate.push_back(filled(F, C, 3 + 3 * e, 0.6));
    L.up.push_back(filled(F, C, 4 + 3 * e, 0.6));
    L.down.push_back(filled(C, F, 5 + 3 * e, 0.6));
  }
  MoeActs<double> a;
  const double loss = loss_of(L, &a);
  EXPECT_EQ(a.route.load, (std::vector<int>{4, 3, 3, 4}));
  EXPECT_EQ(a.route.n_dropped, 6);
  auto near = [](double ours, double torch) { EXPECT_NEAR(ours, torch, 1e-12 * std::max(1.0, std::abs(torch))); };
  near(loss, 1.2975877671383005);
  near(a.balance, 2.2038068879220059);
  MatD dx = MatD::Zero(N, C), drouter = MatD::Zero(E, C);
  std::vector<MatD> dgate(E, MatD::Zero(F, C)), dup(E, MatD::Zero(F, C)), ddown(E, MatD::Zero(C, F));
  std::vector<ExpertGradRef<double>> grefs;
  for (int e = 0; e < E; ++e)
    grefs.push_back({&dgate[static_cast<size_t>(e)], &dup[static_cast<size_t>(e)], &ddown[static_cast<size_t>(e)]});
  moe_ffn_backward<double>(dx, drouter, grefs, a, L.readout, L.x, L.router, L.refs(), L.kind, L.act, kBeta);
  near(dx(3, 2), 0.025746761674688902);
  near(dx.norm(), 0.76469784321249312);
  near(drouter(1, 4), -0.22630440175031738);
  near(drouter.norm(), 0.71809395361930672);
  const double w1[E] = {0.93753883648928094, 0.34701588477793682, 2.0755136480053564, 0.6132207588216384};
  const double w3[E] = {0.6647459739973397, 1.541356852018164, 1.5643392301485901, 0.54235905390052819};
  const double w2[E] = {3.6951491284298101, 2.9264736200399755, 12.000369263369748, 2.763440449891748};
  for (int e = 0; e < E; ++e) {
    near(dgate[static_cast<size_t>(e)].norm(), w1[e]);
    near(dup[static_cast<size_t>(e)].norm(), w3[e]);
    near(ddown[static_cast<size_t>(e)].norm(), w2[e]);
  }
}

}  // namespace
}  // namespace tw
