// Activation curves and the gated surface against formulas written out here with std::erf / std::tanh, and the
// derivatives against central finite differences of those formulas.
#include "core/experiments/activation_curves.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tw {
namespace {

double gelu_exact(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))); }
double silu(double x) { return x / (1.0 + std::exp(-x)); }

TEST(ActivationCurves, GeluTanhVsExactMaximumGap) {
  // Independent dense scan of |tanh form − erf form| on [−6, 6].
  double gap = 0, at = 0;
  for (int i = 0; i <= 120000; ++i) {
    const double x = -6.0 + 12.0 * i / 120000;
    const double g = std::abs(gelu_tanh(x) - gelu_exact(x));
    if (g > gap) gap = g, at = x;
  }
  const ActivationCurves c = activation_curves(-6.0, 6.0, 120001);
  EXPECT_NEAR(c.gelu_gap_max, gap, 1e-12 + 1e-9 * gap);
  EXPECT_NEAR(std::abs(c.gelu_gap_at), std::abs(at), 1e-3);
  // The approximation is good to a few 1e-4, never to 1e-5: a teaching number worth pinning down.
  EXPECT_GT(gap, 1e-4);
  EXPECT_LT(gap, 1e-3);
}

TEST(ActivationCurves, ValuesAndDerivativesMatchFormulasAndFiniteDifferences) {
  const ActivationCurves c = activation_curves(-5.0, 5.0, 101);
  ASSERT_EQ(c.curves.size(), 4u);
  double (*f[4])(double) = {[](double x) { return std::max(x, 0.0); }, gelu_exact, gelu_tanh, silu};
  const double h = 1e-5;
  for (size_t k = 0; k < 4; ++k)
    for (size_t i = 0; i < c.x.size(); ++i) {
      const double x = c.x[i];
      EXPECT_NEAR(c.curves[k].value[i], f[k](x), 1e-12 * (1 + std::abs(x))) << k << " x=" << x;
      if (k == 0 && std::abs(x) < 1e-9) continue;  // ReLU has no derivative at 0
      const double fd = (f[k](x + h) - f[k](x - h)) / (2 * h);
      EXPECT_NEAR(c.curves[k].derivative[i], fd, 1e-6) << k << " x=" << x;
    }
}

TEST(ActivationCurves, SwiGluSurfaceIsSiluOfGateTimesUp) {
  const GluSurface s = glu_surface(Activation::SiLU, 3.0, 7);
  ASSERT_EQ(s.h.rows(), 7);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      const double g = s.axis[j], u = s.axis[i];
      EXPECT_NEAR(s.h(i, j), silu(g) * u, 1e-12);
      const double fd = (silu(g + 1e-5) - silu(g - 1e-5)) / 2e-5 * u;
      EXPECT_NEAR(s.dgate(i, j), fd, 1e-7);
    }
}

TEST(ActivationCurves, RangeCheck) {
  EXPECT_EQ(check_curve_range(-1, 1, 10), "");
  EXPECT_NE(check_curve_range(1, -1, 10), "");
  EXPECT_NE(check_curve_range(-1, 1, 2), "");
}

}  // namespace
}  // namespace tw
