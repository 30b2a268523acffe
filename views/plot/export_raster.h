#pragma once
// Internal to the PNG exporter and its tests: the software rasteriser's canvas and fills. Not for panels.
//
// fill_nonzero is the general fill every shape goes through (the reference); fill_rect is the fast path for
// axis-aligned rectangles and must give the same bytes as fill_nonzero over the rectangle's four corners
// (tests/plot/test_plot_export.cpp compares them).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "views/plot/layout.h"

namespace tw::plot::detail {

struct Canvas {
  int w = 0, h = 0;
  std::vector<uint8_t> rgba;  // w · h · 4, row 0 at the top

  // Source-over blend of `color` at `coverage` (0–1) into pixel (x, y).
  void blend(int x, int y, uint32_t color, float coverage) {
    const float a = std::min(coverage, 1.0f) * (alpha(color) / 255.0f);
    if (a <= 0) return;
    uint8_t* d = &rgba[(size_t(y) * size_t(w) + size_t(x)) * 4];
    const uint8_t src[3] = {red(color), green(color), blue(color)};
    if (a >= 1.0f) {  // opaque: most pixels of fills and images
      d[0] = src[0], d[1] = src[1], d[2] = src[2], d[3] = 255;
      return;
    }
    for (int k = 0; k < 3; ++k) d[k] = static_cast<uint8_t>(src[k] * a + d[k] * (1 - a) + 0.5f);
    d[3] = static_cast<uint8_t>(255 * a + d[3] * (1 - a) + 0.5f);
  }
};

struct IRect {
  int x0, y0, x1, y1;  // half-open pixel range
};

// Fills the union of `polys` (pixel coordinates) with the non-zero winding rule, anti-aliased: exact horizontal
// coverage on 5 sub-scanlines per pixel row. Orientation is normalised, so overlapping polygons add up.
void fill_nonzero(Canvas& c, const std::vector<std::vector<Vec2>>& polys, uint32_t color, IRect clip);

// The same pixels as fill_nonzero(c, {{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}}, color, clip), row by row
// without edge lists or sorting.
void fill_rect(Canvas& c, Rect r, uint32_t color, IRect clip);

}  // namespace tw::plot::detail
