// Window layout (see layout.h): pure arithmetic on rectangles.
#include "app/layout.h"

#include <algorithm>
#include <cmath>

namespace tw {

bool overlaps(const WinRect& a, const WinRect& b) {
  const float w = std::min(a.right(), b.right()) - std::max(a.x, b.x);
  const float h = std::min(a.bottom(), b.bottom()) - std::max(a.y, b.y);
  return w > 0.5f && h > 0.5f;  // half a pixel: rounding of adjacent cells is not an overlap
}

bool contains(const WinRect& outer, const WinRect& inner) {
  constexpr float eps = 0.5f;
  return inner.x >= outer.x - eps && inner.y >= outer.y - eps && inner.right() <= outer.right() + eps &&
         inner.bottom() <= outer.bottom() + eps;
}

// [SECTION] side column + panel area
WorkLayout split_work_area(const WinRect& work, float scale, float min_panel_width) {
  const float s = std::max(scale, 0.25f);
  // Wide enough for the overview's "Open  Name — description" rows to read, narrow enough to leave the panels
  // the larger part of a laptop screen.
  float side = std::clamp(work.w * 0.28f, 300.0f * s, 520.0f * s);
  side = std::min(side, work.w * 0.5f);
  WorkLayout out;
  if (work.w - std::floor(side) < min_panel_width) {
    out.side = out.panels = work;
    out.stacked = true;
    return out;
  }
  out.side = {work.x, work.y, std::floor(side), work.h};
  out.panels = {work.x + out.side.w, work.y, work.w - out.side.w, work.h};
  return out;
}

// [SECTION] tiling
WinRect min_panel_cell(float scale) {
  const float s = std::max(scale, 0.25f);
  return {0, 0, 1140.0f * s, 560.0f * s};
}

TilePlan tile_panels(const WinRect& area, int count, const WinRect& min_cell, float gap) {
  TilePlan plan;
  if (count <= 0 || area.w <= 0 || area.h <= 0) return plan;
  gap = std::max(gap, 0.0f);
  // How many cells of at least min_cell fit: n cells need n·min + (n−1)·gap.
  auto fit = [&](float length, float min_len) {
    if (min_len <= 0) return count;
    return std::max(1, static_cast<int>(std::floor((length + gap) / (min_len + gap))));
  };
  int cols = std::min(fit(area.w, min_cell.w), count);
  int rows = std::min(fit(area.h, min_cell.h), (count + cols - 1) / cols);
  // With fewer panels than cells, drop columns that would stay empty on every page (3 panels on a 2×2 grid keep
  // 2 × 2; 2 panels on 3 × 2 become 2 × 1).
  while (cols > 1 && (cols - 1) * rows >= count) --cols;
  plan.cols = cols;
  plan.rows = rows;
  const int per_page = cols * rows;
  plan.pages = (count + per_page - 1) / per_page;
  const float cw = (area.w - gap * float(cols - 1)) / float(cols);
  const float ch = (area.h - gap * float(rows - 1)) / float(rows);
  for (int i = 0; i < count; ++i) {
    const int k = i % per_page;
    const int c = k % cols, r = k / cols;
    // Cell edges from the running sum, floored, so neighbours meet exactly and the last one ends at the area's edge.
    const float x0 = std::floor(area.x + float(c) * (cw + gap));
    const float y0 = std::floor(area.y + float(r) * (ch + gap));
    const float x1 = c + 1 == cols ? area.right() : std::floor(area.x + float(c) * (cw + gap) + cw);
    const float y1 = r + 1 == rows ? area.bottom() : std::floor(area.y + float(r) * (ch + gap) + ch);
    plan.cells.push_back({x0, y0, x1 - x0, y1 - y0});
    plan.page_of.push_back(i / per_page);
  }
  return plan;
}

}  // namespace tw
