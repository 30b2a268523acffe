#include "core/experiments/activation_curves.h"

#include <cmath>

#include "core/base/i18n.h"

namespace tw {

std::string check_curve_range(double lo, double hi, int n) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) return tr("the $x$ range needs finite from < to");
  if (std::abs(lo) > 100 || std::abs(hi) > 100) return tr("the $x$ range must stay within [-100, 100]");
  if (n < 3 || n > 20001) return tr("points must be between 3 and 20001");
  return "";
}

ActivationCurves activation_curves(double lo, double hi, int n) {
  ActivationCurves r;
  MatD x(1, n);
  for (int i = 0; i < n; ++i) x(0, i) = lo + (hi - lo) * i / (n - 1);
  r.x.assign(x.data(), x.data() + n);
  const MatD ones = MatD::Ones(1, n);
  for (Activation a : {Activation::ReLU, Activation::GeluExact, Activation::GeluTanh, Activation::SiLU}) {
    ActivationCurve c;
    c.act = a;
    MatD y, dy;
    activation_forward_t(y, x, a);
    dy.resize(1, n);
    activation_backward(dy, ones, x, a, /*accumulate=*/false);
    c.value.assign(y.data(), y.data() + n);
    c.derivative.assign(dy.data(), dy.data() + n);
    r.curves.push_back(std::move(c));
  }
  for (int i = 0; i < n; ++i) {
    const double gap = std::abs(r.curves[2].value[i] - r.curves[1].value[i]);
    if (gap > r.gelu_gap_max) r.gelu_gap_max = gap, r.gelu_gap_at = r.x[i];
  }
  return r;
}

GluSurface glu_surface(Activation act, double range, int n) {
  GluSurface s;
  s.act = act;
  MatD gate(n, n), up(n, n);
  for (int i = 0; i < n; ++i) s.axis.push_back(-range + 2 * range * i / (n - 1));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) gate(i, j) = s.axis[j], up(i, j) = s.axis[i];
  glu_forward(s.h, gate, up, act);
  MatD dup(n, n);
  s.dgate.resize(n, n);
  const MatD ones = MatD::Ones(n, n);
  glu_backward(s.dgate, dup, ones, gate, up, act, /*accumulate=*/false);
  return s;
}

}  // namespace tw
