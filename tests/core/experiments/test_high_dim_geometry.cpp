#include "core/experiments/high_dim_geometry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/random.h"

namespace tw {
namespace {

// E‖x‖² = d for x ~ N(0, I_d); Var ‖x‖² = 2d, so the sample mean of n draws has standard error √(2d/n).
TEST(HighDimGeometry, MeanSquaredNormIsTheDimension) {
  for (int d : {2, 64, 1024}) {
    GeometryParams p;
    p.d = d;
    p.samples = 4000;
    p.seed = 3;
    const GeometryAnalysis a = analyze_geometry(p);
    ASSERT_EQ(a.norms.size(), 4000u);
    const double se = std::sqrt(2.0 * d / 4000.0);
    EXPECT_NEAR(a.mean_norm_sq, d, 5 * se) << "d = " << d;
  }
}

// cos θ of independent Gaussian vectors has mean 0 and E cos² = 1/d exactly; the sample variance of m pairs has a
// standard error of about √(2/(m−1))/d (cos is nearly normal for these d).
TEST(HighDimGeometry, CosineVarianceIsOneOverD) {
  for (int d : {16, 256, 4096}) {
    GeometryParams p;
    p.d = d;
    p.samples = 8000;
    p.seed = 5;
    const GeometryAnalysis a = analyze_geometry(p);
    const double m = static_cast<double>(a.cosines.size());
    EXPECT_NEAR(a.cos_variance, 1.0 / d, 5 * std::sqrt(2 / (m - 1)) / d) << "d = " << d;
    // Angles gather at 90° with a spread of about (180/π)/√d degrees.
    double mean_angle = 0;
    for (double x : a.angles_deg) mean_angle += x / m;
    EXPECT_NEAR(mean_angle, 90.0, 5 * (180 / 3.14159265) / std::sqrt(d * m));
  }
}

TEST(HighDimGeometry, SweepConcentrates) {
  GeometryParams p;
  p.seed = 1;
  const GeometryAnalysis a = analyze_geometry(p);
  ASSERT_EQ(a.sweep.size(), geometry_dimensions().size());
  const DimensionPoint& lo = a.sweep.front();
  const DimensionPoint& hi = a.sweep.back();
  EXPECT_EQ(lo.d, 2);
  EXPECT_EQ(hi.d, 4096);
  // Mean ‖x‖/√d → 1 (E‖x‖ = √2 Γ((d+1)/2)/Γ(d/2) ≈ √d (1 − 1/(4d))), relative spread ≈ 1/√(2d).
  EXPECT_NEAR(hi.norm_over_sqrt_d, 1.0, 0.005);
  EXPECT_NEAR(hi.norm_rel_std * std::sqrt(2.0 * 4096), 1.0, 0.25);
  // std of cos ≈ 1/√d at d = 4096 (200 vectors, 100 pairs: about 7% sampling error).
  EXPECT_NEAR(hi.cos_std * std::sqrt(4096.0), 1.0, 0.35);
  // The farthest of 200 points is many times the nearest in 2-D, barely farther in 4096-D.
  EXPECT_GT(lo.far_near_ratio, 5.0);
  EXPECT_LT(hi.far_near_ratio, 1.2);
  EXPECT_GT(hi.far_near_ratio, 1.0);
}

TEST(HighDimGeometry, DotProductsFollowNormsCosinesDoNot) {
  GeometryParams p;
  p.d = 64;
  p.n_keys = 8;
  p.big_norm = 4;
  const KeyComparison k = analyze_geometry(p).keys;
  ASSERT_EQ(k.p_dot.size(), 8u);
  EXPECT_NEAR(k.cosines[0], 0.3, 1e-12);
  EXPECT_NEAR(k.cosines[1], 0.8, 1e-12);
  EXPECT_NEAR(k.key_norms[0] / k.key_norms[1], 4.0, 1e-12);
  EXPECT_EQ(std::max_element(k.p_dot.begin(), k.p_dot.end()) - k.p_dot.begin(), 0);
  EXPECT_EQ(std::max_element(k.p_cos.begin(), k.p_cos.end()) - k.p_cos.begin(), 1);
  double sum = 0;
  for (double x : k.p_dot) sum += x;
  EXPECT_NEAR(sum, 1.0, 1e-12);
}

// Eckart–Young: the truncated SVD's error is the sum of the discarded squared singular values; computed here from
// the reconstruction, independently of the singular values.
TEST(HighDimGeometry, EckartYoungErrorIsTheDiscardedEnergy) {
  std::mt19937_64 rng(9);
  const int rows = 40, cols = 30;
  std::vector<float> w(rows * cols);
  for (float& x : w) x = static_cast<float>(standard_normal(rng));
  for (int r : {0, 1, 5, 17, 30}) {
    const Spectrum s = matrix_spectrum(w, rows, cols, r);
    ASSERT_EQ(s.singular.size(), 30u);
    double discarded = 0;
    for (int i = r; i < 30; ++i) discarded += s.singular[size_t(i)] * s.singular[size_t(i)];
    EXPECT_NEAR(s.reconstructed_error, discarded, 1e-9 * s.frobenius2) << "r = " << r;
    EXPECT_NEAR(s.tail_error[size_t(r)], discarded, 1e-9 * s.frobenius2);
  }
  const Spectrum s = matrix_spectrum(w, rows, cols, 3);
  EXPECT_NEAR(s.tail_error[0], s.frobenius2, 1e-9 * s.frobenius2);  // rank 0 keeps nothing
  EXPECT_NEAR(s.energy.back(), 1.0, 1e-12);
  EXPECT_TRUE(std::is_sorted(s.singular.rbegin(), s.singular.rend()));
}

TEST(HighDimGeometry, PlantedRankStandsOutOfTheNoise) {
  GeometryParams p;
  p.matrix = GeometryMatrix::LowRankPlusNoise;
  p.size = 128;
  p.planted_rank = 4;
  p.planted_scale = 3;  // planted singular values near 6, noise edge near 2
  const Spectrum s = analyze_geometry(p).spectrum;
  ASSERT_EQ(s.singular.size(), 128u);
  EXPECT_GT(s.singular[3], 2 * s.singular[4]);
  EXPECT_LT(s.singular[4], 2.3);  // Marchenko–Pastur edge of N(0, 1/n) square noise: 2
}

TEST(HighDimGeometry, ShippedModelMatrix) {
  GeometryParams p;
  p.matrix = GeometryMatrix::ShippedModel;
  p.tensor = GeometryTensor::Up;
  p.layer = 1;
  const GeometryAnalysis a = analyze_geometry(p);
  ASSERT_EQ(a.error, "");
  EXPECT_EQ(a.spectrum.rows, 96);
  EXPECT_EQ(a.spectrum.cols, 48);
  EXPECT_EQ(a.spectrum.singular.size(), 48u);
}

void expect_same_sweep(const std::vector<DimensionPoint>& a, const std::vector<DimensionPoint>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].d, b[i].d);
    EXPECT_EQ(a[i].norm_over_sqrt_d, b[i].norm_over_sqrt_d) << "d = " << a[i].d;
    EXPECT_EQ(a[i].norm_rel_std, b[i].norm_rel_std) << "d = " << a[i].d;
    EXPECT_EQ(a[i].cos_std, b[i].cos_std) << "d = " << a[i].d;
    EXPECT_EQ(a[i].angle_std_deg, b[i].angle_std_deg) << "d = " << a[i].d;
    EXPECT_EQ(a[i].far_near_ratio, b[i].far_near_ratio) << "d = " << a[i].d;
  }
}

// The panel's staged path (a first answer with the sweep up to d = 128, then the rest; the memo serving the sweep
// when only another control changed) gives the one-call analysis bit for bit: every point has its own stream.
TEST(HighDimGeometry, StagedAndMemoisedSweepEqualsOneCall) {
  GeometryParams p;
  p.seed = 5;
  p.points = 60;
  const GeometryAnalysis whole = analyze_geometry(p);
  ASSERT_EQ(whole.sweep.size(), geometry_dimensions().size());
  EXPECT_FALSE(whole.sweep_pending);

  GeometryMemo memo;
  GeometryAnalysis staged = analyze_geometry_first(p, nullptr, &memo);
  EXPECT_TRUE(staged.sweep_pending);
  ASSERT_EQ(staged.sweep.size(), 7u);  // d = 2, 4, …, 128
  EXPECT_EQ(staged.sweep.back().d, 128);
  EXPECT_EQ(staged.norms, whole.norms);
  EXPECT_EQ(staged.keys.p_dot, whole.keys.p_dot);
  EXPECT_EQ(staged.spectrum.singular, whole.spectrum.singular);
  complete_geometry_sweep(staged, p, nullptr, &memo);
  EXPECT_FALSE(staged.sweep_pending);
  expect_same_sweep(staged.sweep, whole.sweep);

  // A control of the vectors changed: the sweep and the spectrum come from the memo.
  GeometryParams v = p;
  v.d = 100;
  v.n_keys = 5;
  const GeometryAnalysis vectors = analyze_geometry_first(v, nullptr, &memo);
  EXPECT_FALSE(vectors.sweep_pending);
  EXPECT_EQ(vectors.spectrum.singular, whole.spectrum.singular);
  EXPECT_EQ(vectors.spectrum.reconstructed_error, whole.spectrum.reconstructed_error);
  EXPECT_EQ(vectors.spectrum.source, whole.spectrum.source);
  EXPECT_EQ(vectors.keys.p_dot, analyze_geometry(v).keys.p_dot);

  // The rank changed: the spectrum is computed again (its reconstruction error is at the new rank).
  GeometryParams q = p;
  q.rank_r = 3;
  q.d = 100;
  const GeometryAnalysis cached = analyze_geometry_first(q, nullptr, &memo);
  EXPECT_FALSE(cached.sweep_pending);
  expect_same_sweep(cached.sweep, whole.sweep);
  EXPECT_EQ(cached.spectrum.rank_r, 3);
  EXPECT_EQ(cached.spectrum.reconstructed_error, analyze_geometry(q).spectrum.reconstructed_error);
  EXPECT_NE(cached.spectrum.reconstructed_error, whole.spectrum.reconstructed_error);

  // The points the sweep compares changed: the memo does not answer for them.
  q.points = 30;
  const GeometryAnalysis other = analyze_geometry_first(q, nullptr, &memo);
  EXPECT_TRUE(other.sweep_pending);
  ASSERT_EQ(other.sweep.size(), 7u);
  for (const DimensionPoint& pt : other.sweep)
    EXPECT_EQ(pt.far_near_ratio, geometry_sweep_point(5, pt.d, 30).far_near_ratio) << "d = " << pt.d;
}

TEST(HighDimGeometry, ValidateNamesTheField) {
  GeometryParams p;
  EXPECT_EQ(validate(p), "");
  p.d = 1;
  EXPECT_NE(validate(p).find("dimension"), std::string::npos);
  p = {};
  p.layer = 2;
  EXPECT_NE(validate(p).find("layer"), std::string::npos);
}

}  // namespace
}  // namespace tw
