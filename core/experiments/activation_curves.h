#pragma once
// The math behind the norms panel's activation figures: each activation and its derivative on a grid, the gap
// between GELU's tanh approximation and the exact erf form, and a gated unit act(gate)·up as a surface.
// Values and derivatives come from the MLP op and its backward (core/ops/mlp.h): the derivative shown is the
// one the training code uses, not a second formula.

#include <string>
#include <vector>

#include "core/ops/mlp.h"

namespace tw {

struct ActivationCurve {
  Activation act = Activation::ReLU;
  std::vector<double> value;       // (n) act(x_i)
  std::vector<double> derivative;  // (n) act'(x_i) from activation_backward with dout = 1
};

struct ActivationCurves {
  std::vector<double> x;                // (n) evenly spaced over [lo, hi]
  std::vector<ActivationCurve> curves;  // ReLU, GELU exact, GELU tanh, SiLU
  double gelu_gap_max = 0;              // max |GELU_tanh(x) − GELU_exact(x)| over the grid
  double gelu_gap_at = 0;               // the x where it is largest
};

// "" when usable: finite lo < hi, |lo|, |hi| ≤ 100, 3 ≤ n ≤ 20001.
std::string check_curve_range(double lo, double hi, int n);
// Computed in double precision.
ActivationCurves activation_curves(double lo, double hi, int n);

// A gated unit h = act(gate) · up over a square grid: what SwiGLU (act = SiLU) or GeGLU (act = GELU) hands to
// down_proj for one hidden unit.
struct GluSurface {
  Activation act = Activation::SiLU;
  std::vector<double> axis;  // (n) gate values (columns) and up values (rows), the same grid
  MatD h;                    // (n, n) h(up_i, gate_j) = act(gate_j) · up_i, row i = up value
  MatD dgate;                // (n, n) ∂h/∂gate from glu_backward
};
GluSurface glu_surface(Activation act, double range, int n);

}  // namespace tw
