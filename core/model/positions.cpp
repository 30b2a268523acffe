#include "core/model/positions.h"

#include <cmath>

namespace tw {

void sinusoidal_positions(Mat& out, int pos_offset, int T, int C) {
  // out: (T, C)
  out.resize(T, C);
  for (int t = 0; t < T; ++t) {  // one work item per position
    const double p = static_cast<double>(pos_offset + t);
    for (int i = 0; i < C / 2; ++i) {
      const double angle = p * std::pow(10000.0, -2.0 * i / C);
      out(t, 2 * i) = static_cast<float>(std::sin(angle));
      out(t, 2 * i + 1) = static_cast<float>(std::cos(angle));
    }
  }
}

}  // namespace tw
