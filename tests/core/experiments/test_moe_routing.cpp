#include "core/experiments/moe_routing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace tw {
namespace {

// Two experts, four tokens in 1-D, router weights ±1: logits (x, −x), so token x prefers expert 0 when x > 0.
// x = [2, 1, −1, 0.5], k = 1, capacity factor 1 → capacity ⌈1 · 4 · 1 / 2⌉ = 2. Tokens 0, 1, 3 want expert 0;
// token 3 comes third and is dropped. P_t,0 = σ(2x): [σ(4), σ(2), σ(−2), σ(1)].
TEST(MoeRouting, HandWorkedTopOneWithCapacity) {
  Mat x(4, 1), w(2, 1);
  x << 2, 1, -1, 0.5;
  w << 1, -1;
  MoeParams p;
  p.top_k = 1;
  p.capacity_factor = 1.0;
  p.hidden = 3;
  p.gated = false;
  const MoeRouting r = route_tokens(x, w, p);
  EXPECT_EQ(r.capacity, 2);
  EXPECT_EQ(r.choice, (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(r.wanted, (std::vector<int>{3, 1}));
  EXPECT_EQ(r.load, (std::vector<int>{2, 1}));
  EXPECT_EQ(r.dropped, (std::vector<char>{0, 0, 0, 1}));
  EXPECT_EQ(r.gates(3, 0), 0.0f);        // dropped: passes by on the residual stream
  EXPECT_FLOAT_EQ(r.gates(0, 0), 1.0f);  // top-1 renormalised over one choice
  auto sig = [](double z) { return 1.0 / (1.0 + std::exp(-z)); };
  const double p0 = (sig(4) + sig(2) + sig(-2) + sig(1)) / 4;
  EXPECT_NEAR(r.balance_loss, 2 * (3.0 / 4 * p0 + 1.0 / 4 * (1 - p0)), 1e-6);
  EXPECT_EQ(r.total_params, 2 * 2 * 1 * 3 + 2);  // 2 experts · (2 · C · F) + router E · C
  EXPECT_EQ(r.active_params, 1 * 2 * 1 * 3 + 2);
}

TEST(MoeRouting, LoadsSumToTokensTimesKMinusDrops) {
  for (double bias : {0.0, 2.0, 6.0}) {
    for (double cf : {0.5, 1.0, 1.25, 4.0}) {
      MoeParams p;
      p.tokens = 40;
      p.experts = 6;
      p.top_k = 2;
      p.capacity_factor = cf;
      p.router_bias = bias;
      ASSERT_EQ(validate(p), "");
      const MoeRouting r = moe_experiment(p);
      const int load = std::accumulate(r.load.begin(), r.load.end(), 0);
      EXPECT_EQ(load, p.tokens * p.top_k - r.n_dropped) << "bias " << bias << " cf " << cf;
      EXPECT_EQ(std::accumulate(r.wanted.begin(), r.wanted.end(), 0), p.tokens * p.top_k);
      for (int e : r.load) EXPECT_LE(e, r.capacity);
      for (int t = 0; t < p.tokens; ++t) {  // a token's kept gates sum to 1 unless an assignment was dropped
        const bool any_drop = r.dropped[2 * t] || r.dropped[2 * t + 1];
        if (!any_drop) {
          EXPECT_NEAR(r.gates.row(t).sum(), 1.0f, 1e-6f);
        }
      }
    }
  }
}

TEST(MoeRouting, UniformRouterGivesBalanceLossK) {
  // Zero router weights: every probability is 1/E, so E · Σ f_e / E = Σ f_e = k whatever the choice.
  MoeParams p;
  p.top_k = 3;
  const MoeRouting r = route_tokens(Mat::Ones(10, 4), Mat::Zero(8, 4), p);
  EXPECT_NEAR(r.balance_loss, 3.0, 1e-6);
}

TEST(MoeRouting, APopularExpertRaisesTheLossAndDrops) {
  MoeParams p;
  p.tokens = 64;
  const MoeRouting fair = moe_experiment(p);
  p.router_bias = 5.0;
  const MoeRouting skewed = moe_experiment(p);
  EXPECT_GT(skewed.balance_loss, fair.balance_loss);
  EXPECT_GT(skewed.n_dropped, fair.n_dropped);
  EXPECT_EQ(skewed.load[0], skewed.capacity);
  MoeParams bad;
  bad.top_k = 9;
  EXPECT_NE(validate(bad).find("top_k"), std::string::npos);
}

}  // namespace
}  // namespace tw
