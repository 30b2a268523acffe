// Softmax saturation experiment: Var(q·k) = d_k, the worked table of seed 000, and the sweep against a numpy
// Monte Carlo reference (script /tmp/opsattn/sat_ref.py: 50000 queries with explicit 64-dim vectors, output
// pasted with its standard errors; tolerances are about 5 combined standard errors).
#include "core/experiments/softmax_saturation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace tw {
namespace {

TEST(SoftmaxSaturation, WorkedTableMatchesNumpy) {
  // The seed note prints [0.47, 0.29, 0.11] for the first row, which does not sum to 1; numpy gives:
  const WorkedSoftmax small = worked_softmax({1.0f, 0.5f, -0.5f});
  EXPECT_NEAR(small.probs[0], 0.546549387, 1e-6);
  EXPECT_NEAR(small.probs[1], 0.33149896, 1e-6);
  EXPECT_NEAR(small.probs[2], 0.121951652, 1e-6);
  EXPECT_EQ(small.top, 0);
  EXPECT_NEAR(small.top_grad, 0.247833155, 1e-6);
  const WorkedSoftmax big = worked_softmax({30.0f, 15.0f, -15.0f});
  EXPECT_NEAR(big.probs[0], 0.999999694, 1e-6);
  EXPECT_NEAR(big.probs[1], 3.05902227e-07, 1e-12);
  EXPECT_NEAR(big.top_grad, 3.05902133e-07, 1e-10);  // needs 1 − S_top from the small terms, not 1 − float
  EXPECT_EQ(worked_softmax({}).top, -1);
}

TEST(SoftmaxSaturation, HistogramVarianceIsDk) {
  for (int d_k : {1, 16, 256}) {
    const ScoreHistogram h = score_histogram(d_k, 20000, 40, 11);
    // SE of a sample variance of q·k: sqrt((2d² + 6d) / N) (E[(q·k)^4] = 3d² + 6d).
    const double se = std::sqrt((2.0 * d_k * d_k + 6.0 * d_k) / 20000.0);
    EXPECT_NEAR(h.variance, d_k, 5 * se) << d_k;
    EXPECT_NEAR(h.mean, 0.0, 5 * std::sqrt(d_k / 20000.0)) << d_k;
    double area = 0.0, pdf_area = 0.0;
    for (size_t b = 0; b < h.density.size(); ++b) {
      area += h.density[b] * (h.edges[b + 1] - h.edges[b]);
      pdf_area += h.normal_pdf[b] * (h.edges[b + 1] - h.edges[b]);
    }
    EXPECT_NEAR(pdf_area, 0.99994, 2e-3);  // mass of N(0,1) within ±4σ, midpoint rule
    EXPECT_GT(area, 0.99);                 // almost every sample falls within ±4σ
    EXPECT_LE(area, 1.0 + 1e-9);
  }
}

TEST(SoftmaxSaturation, ChiSquareIdentityMatchesDirectSampling) {
  // Second moments of scores from the identity and from explicit vectors agree (E[s²] = d, E[s_1² s_2²] = d² + 2d).
  const int d = 32, n = 2, N = 20000;
  std::mt19937_64 a(1), b(2);
  std::vector<float> s;
  double m2a = 0, m2b = 0, cross_a = 0, cross_b = 0;
  for (int t = 0; t < N; ++t) {
    sample_scores(s, a, d, n);
    m2a += s[0] * s[0];
    cross_a += double(s[0]) * s[0] * s[1] * s[1];
    sample_scores_direct(s, b, d, n);
    m2b += s[0] * s[0];
    cross_b += double(s[0]) * s[0] * s[1] * s[1];
  }
  EXPECT_NEAR(m2a / N, d, 1.5);
  EXPECT_NEAR(m2b / N, d, 1.5);
  // Keys sharing one query are correlated in magnitude: E[s1² s2²] = d² + 2d = 1088, not d² = 1024.
  EXPECT_NEAR(cross_a / N, 1088, 60);
  EXPECT_NEAR(cross_b / N, 1088, 60);
}

TEST(SoftmaxSaturation, SweepMatchesNumpyMonteCarloAtDk64) {
  const auto pts = saturation_sweep({64}, 16, 20000, ScaleMode::InvSqrtDk, 1.0f, 1.0f, 5);
  ASSERT_EQ(pts.size(), 1u);
  const SaturationPoint& p = pts[0];
  EXPECT_NEAR(p.max_p_scaled, 0.24605, 0.004);
  EXPECT_NEAR(p.entropy_bits_scaled, 3.40294, 0.012);
  EXPECT_NEAR(p.grad_scaled, 0.17675, 0.0015);
  EXPECT_NEAR(p.max_p_unscaled, 0.84581, 0.0075);
  EXPECT_NEAR(p.entropy_bits_unscaled, 0.58728, 0.025);
  EXPECT_NEAR(p.grad_unscaled, 0.09789, 0.004);
}

TEST(SoftmaxSaturation, UnscaledSaturatesWithDkWhileScaledStaysFlat) {
  const auto pts = saturation_sweep({1, 16, 256, 4096}, 32, 2000, ScaleMode::InvSqrtDk, 1.0f, 1.0f, 3);
  // d_k = 1: 1/√1 = 1, so both columns are the same computation on the same samples.
  EXPECT_DOUBLE_EQ(pts[0].max_p_scaled, pts[0].max_p_unscaled);
  for (size_t i = 1; i < pts.size(); ++i) {
    EXPECT_GT(pts[i].max_p_unscaled, pts[i - 1].max_p_unscaled);
    EXPECT_LT(pts[i].entropy_bits_unscaled, pts[i - 1].entropy_bits_unscaled);
    EXPECT_NEAR(pts[i].max_p_scaled, pts[1].max_p_scaled, 0.03);
  }
  EXPECT_GT(pts[3].max_p_unscaled, 0.95);                     // saturated: the top key takes almost everything
  EXPECT_LT(pts[3].grad_unscaled, pts[3].grad_scaled / 5.0);  // and its gradient signal is mostly gone
  EXPECT_LE(pts[3].entropy_bits_scaled, 5.0);                 // log2(32) bounds the entropy
}

// The panel draws the samples once and reuses them when the scale or τ changes: the two steps must give exactly
// the one-call sweep for every mode and τ, whatever was computed from the same samples before.
TEST(SoftmaxSaturation, ReusedSamplesGiveTheOneCallSweep) {
  const std::vector<int> d_ks = {1, 64, 1024};
  const SaturationSamples samples = saturation_samples(d_ks, 16, 300, 7);
  ASSERT_EQ(samples.scores.size(), d_ks.size());
  ASSERT_EQ(samples.scores[1].size(), 300u * 16u);
  for (ScaleMode mode : {ScaleMode::InvSqrtDk, ScaleMode::None, ScaleMode::InvDk, ScaleMode::Custom})
    for (float tau : {1.0f, 0.5f}) {
      const auto two_steps = saturation_sweep(samples, mode, 0.3f, tau);
      const auto one_call = saturation_sweep(d_ks, 16, 300, mode, 0.3f, tau, 7);
      ASSERT_EQ(two_steps.size(), one_call.size());
      for (size_t i = 0; i < one_call.size(); ++i) {
        EXPECT_EQ(two_steps[i].d_k, one_call[i].d_k);
        EXPECT_EQ(two_steps[i].max_p_scaled, one_call[i].max_p_scaled);
        EXPECT_EQ(two_steps[i].max_p_unscaled, one_call[i].max_p_unscaled);
        EXPECT_EQ(two_steps[i].entropy_bits_scaled, one_call[i].entropy_bits_scaled);
        EXPECT_EQ(two_steps[i].entropy_bits_unscaled, one_call[i].entropy_bits_unscaled);
        EXPECT_EQ(two_steps[i].grad_scaled, one_call[i].grad_scaled);
        EXPECT_EQ(two_steps[i].grad_unscaled, one_call[i].grad_unscaled);
      }
    }
  // Raw scores at d_k = 64 have variance d_k (4,800 samples: within 10%).
  double sum_sq = 0;
  for (float x : samples.scores[1]) sum_sq += double(x) * x;
  EXPECT_NEAR(sum_sq / samples.scores[1].size(), 64.0, 6.4);
}

// The sweep's statistics against the definitions evaluated in double precision on the same scaled scores
// x = scale · s (floats, as the sweep and the attention ops hold them): S = softmax(x / τ) with every exponential,
// max_j S_j, −Σ S_j log2 S_j and S_top · Σ_{j≠top} S_j. From flat to fully saturated rows (τ from 20 down to 0.05,
// scale 1/√d_k up to 10) and a row length that is not a multiple of any vector width. Tolerance: 1e-5 of each value,
// what float exponents (x_j − max) / τ of size up to ~50 (the keys that still count) leave of e^{(x_j − max) / τ}.
TEST(SoftmaxSaturation, SweepMatchesDoublePrecisionDefinitions) {
  const std::vector<int> d_ks = {1, 64, 4096};
  for (int n : {16, 37}) {
    const SaturationSamples samples = saturation_samples(d_ks, n, 200, 13);
    for (ScaleMode mode : {ScaleMode::InvSqrtDk, ScaleMode::None, ScaleMode::Custom})
      for (float tau : {1.0f, 0.05f, 20.0f}) {
        const auto pts = saturation_sweep(samples, mode, 10.0f, tau);
        ASSERT_EQ(pts.size(), d_ks.size());
        for (size_t i = 0; i < d_ks.size(); ++i) {
          double ref[2][3] = {};  // [scaled, unscaled][max p, entropy bits, gradient], summed over queries
          for (int col = 0; col < 2; ++col) {
            const float scale = col == 0 ? attention_scale(mode, d_ks[i], 10.0f) : 1.0f;
            for (int t = 0; t < samples.queries; ++t) {
              const float* s = samples.scores[i].data() + size_t(t) * n;
              std::vector<double> x(n), p(n);
              for (int j = 0; j < n; ++j) x[j] = double(scale * s[j]) / tau;
              const int top = int(std::max_element(x.begin(), x.end()) - x.begin());
              double z = 0;
              for (int j = 0; j < n; ++j) z += p[j] = std::exp(x[j] - x[top]);
              double h = 0, others = 0;
              for (int j = 0; j < n; ++j) {
                p[j] /= z;
                if (p[j] > 0) h -= p[j] * std::log2(p[j]);
                if (j != top) others += p[j];
              }
              ref[col][0] += p[top] / samples.queries;
              ref[col][1] += h / samples.queries;
              ref[col][2] += p[top] * others / samples.queries;
            }
          }
          const double got[2][3] = {{pts[i].max_p_scaled, pts[i].entropy_bits_scaled, pts[i].grad_scaled},
                                    {pts[i].max_p_unscaled, pts[i].entropy_bits_unscaled, pts[i].grad_unscaled}};
          for (int col = 0; col < 2; ++col)
            for (int k = 0; k < 3; ++k)
              EXPECT_NEAR(got[col][k], ref[col][k], 1e-5 * std::abs(ref[col][k]) + 1e-30)
                  << "n " << n << " mode " << int(mode) << " tau " << tau << " d_k " << d_ks[i] << " column " << col
                  << " statistic " << k;
        }
      }
  }
}

// A set cancel flag stops both steps before the next d_k: nothing complete comes back, so the panel keeps nothing.
TEST(SoftmaxSaturation, CancelledStepsReturnIncomplete) {
  const std::vector<int> d_ks = {1, 64, 1024};
  std::atomic<bool> cancel{true};
  const SaturationSamples cut = saturation_samples(d_ks, 16, 50, 7, &cancel);
  EXPECT_FALSE(cut.complete());
  EXPECT_TRUE(cut.scores.empty());
  const SaturationSamples whole = saturation_samples(d_ks, 16, 50, 7);
  EXPECT_TRUE(whole.complete());
  EXPECT_TRUE(saturation_sweep(whole, ScaleMode::InvSqrtDk, 1.0f, 1.0f, &cancel).empty());
  EXPECT_TRUE(saturation_sweep(cut, ScaleMode::InvSqrtDk, 1.0f, 1.0f).empty());
  cancel = false;
  EXPECT_EQ(saturation_sweep(whole, ScaleMode::InvSqrtDk, 1.0f, 1.0f, &cancel).size(), d_ks.size());
}

TEST(SoftmaxSaturation, OneQuerySortedAndDeterministic) {
  const QuerySoftmax a = one_query_softmax(64, 10, ScaleMode::InvSqrtDk, 1.0f, 1.0f, 9);
  const QuerySoftmax b = one_query_softmax(64, 10, ScaleMode::InvSqrtDk, 1.0f, 1.0f, 9);
  EXPECT_EQ(a.raw_scores, b.raw_scores);
  EXPECT_FLOAT_EQ(a.scale, 0.125f);
  double sum = 0;
  for (int j = 0; j < 10; ++j) {
    sum += a.probs_scaled[j];
    if (j) {
      EXPECT_GE(a.probs_scaled[j - 1], a.probs_scaled[j]);
    }
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
  // Scaling by 1/8 flattens the distribution: more entropy than unscaled.
  EXPECT_GT(a.entropy_scaled, a.entropy_unscaled);
  // Neither exceeds the uniform distribution's log2(10) = 3.321928... bits, the maximum shown beside them.
  EXPECT_NEAR(a.entropy_max, 3.321928094887362, 1e-12);
  EXPECT_LE(a.entropy_scaled, a.entropy_max + 1e-9);
  // Exact check of one bar: probs_unscaled[0] = 1 / Σ exp(s_j − s_0).
  double z = 0;
  for (float s : a.raw_scores) z += std::exp(double(s) - a.raw_scores[0]);
  EXPECT_NEAR(a.probs_unscaled[0], 1.0 / z, 1e-6);
}

TEST(SoftmaxSaturation, LogGrid) {
  EXPECT_EQ(log_dk_grid(1, 16), (std::vector<int>{1, 2, 3, 4, 6, 8, 11, 16}));
  const auto g = log_dk_grid(1, 4096);
  EXPECT_EQ(g.front(), 1);
  EXPECT_EQ(g.back(), 4096);
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

// The worked example's text is parsed in core: a list of decimal numbers or one line saying what is wrong.
TEST(ParseLogits, ReadsListsAndRejectsEverythingElse) {
  std::vector<float> v;
  EXPECT_EQ(parse_logits("1.0, 0.5, -0.5", &v), "");
  EXPECT_EQ(v, (std::vector<float>{1.0f, 0.5f, -0.5f}));
  EXPECT_EQ(parse_logits("[30 15 -15]", &v), "");
  EXPECT_EQ(v, (std::vector<float>{30, 15, -15}));
  EXPECT_EQ(parse_logits("+2,1e1", &v), "");
  EXPECT_EQ(v, (std::vector<float>{2, 10}));
  const struct {
    const char* text;
    const char* error;
  } bad[] = {
      {"1, abc", "cannot read a number at \"abc\""},
      {"1, 2x, 3", "cannot read a number at \"2x, 3\""},   // trailing junk is not silently cut off
      {"0x10, 1", "cannot read a number at \"0x10, 1\""},  // no hex floats
      {"nan, 1", "logits must be finite"},
      {"1, -inf", "logits must be finite"},
      {"1, 1e60", "logit \"1e60\" is too large for a float"},
      {"5", "enter at least two logits, e.g. 1.0, 0.5, -0.5"},
      {"", "enter at least two logits, e.g. 1.0, 0.5, -0.5"},
  };
  for (const auto& b : bad) {
    EXPECT_EQ(parse_logits(b.text, &v), b.error) << b.text;
    EXPECT_TRUE(v.empty()) << b.text;
  }
  std::string many;
  for (int i = 0; i <= kMaxWorkedLogits; ++i) many += "1,";
  EXPECT_EQ(parse_logits(many, &v), "at most 32 logits");
}

}  // namespace
}  // namespace tw
