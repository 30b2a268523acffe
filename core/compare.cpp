#include "core/compare.h"

#include <algorithm>
#include <cmath>

namespace tw {

float max_abs_diff(const Mat& a, const Mat& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return std::numeric_limits<float>::infinity();
  if (a.size() == 0) return 0.0f;
  float worst = 0.0f;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const float d = std::abs(a.data()[i] - b.data()[i]);
    if (!(d <= worst)) worst = d;  // NaN differences propagate as NaN
  }
  return worst;
}

float max_rel_diff(const Mat& a, const Mat& b) {
  const float diff = max_abs_diff(a, b);
  const float scale = b.size() ? b.cwiseAbs().maxCoeff() : 0.0f;
  return diff / std::max(scale, 1e-30f);
}

bool all_finite(const Mat& a) { return a.allFinite(); }

}  // namespace tw
