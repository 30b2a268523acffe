#pragma once
// Internal to the plot layer: the primitive builder and the item painters shared by layout.cpp (axes, ticks,
// figure grid) and layout_items.cpp (items, legend, colour bar). Not for panels.

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "views/plot/layout.h"
#include "views/plot/math.h"

namespace tw::plot::detail {

// Everything layout needs from a heatmap's values, in one pass (a 1024 × 1024 map is laid out every frame).
struct HeatmapScan {
  double lo = INFINITY, hi = -INFINITY;  // finite data range
  bool masked = false;                   // any −∞ or NaN cell
  uint64_t hash = 0;                     // changes when any value changes (texture cache key)
};

HeatmapScan scan_heatmap(const HeatmapItem& h);

// Appends primitives to a layout; `clip` applies to everything added while it is set.
struct LegendEntry {
  std::string label;
  uint32_t color = 0;
  enum Kind { Line, Marker, Patch, Dashed } kind = Line;
};

struct Builder {
  Layout& out;
  const FigureTheme& th;
  int clip = -1;
  std::vector<std::pair<const HeatmapItem*, HeatmapScan>> scans = {};  // each heatmap scanned once per layout
  // Small multiples: a legend that goes beside its plot area goes into one column right of the whole grid (its left
  // edge here) instead of narrowing its own cell; NaN: beside its own plot area (a single axes, the first pass).
  float legend_column_x = NAN;
  float legend_beside_width = 0;  // the widest legend laid out beside a plot area so far, with its gap
  // A legend that covers data in every inside corner and has no room beside its plot area goes under the whole
  // figure, in rows above the caption (layout_figure): the axes it happened to in the first pass, the axes whose
  // legend goes below in the next, and the entries gathered there.
  std::vector<const Axes*> legend_nowhere = {};
  std::vector<const Axes*> legend_below = {};
  std::vector<LegendEntry> below_entries = {};

  const HeatmapScan& scan(const HeatmapItem& h) {
    for (const auto& [item, result] : scans)
      if (item == &h) return result;
    scans.emplace_back(&h, scan_heatmap(h));
    return scans.back().second;
  }

  // Every primitive takes the clip set when it is added.
  void add(Primitive p) {
    p.clip = clip;
    out.prims.push_back(std::move(p));
  }
  void rect(Rect r, uint32_t color) { add({.kind = PrimKind::Rect, .color = color, .rect = r}); }
  void outline(Rect r, uint32_t color, float width) {
    polyline({{r.x0, r.y0}, {r.x1, r.y0}, {r.x1, r.y1}, {r.x0, r.y1}}, color, width, true);
  }
  void polyline(std::vector<Vec2> pts, uint32_t color, float width, bool closed = false) {
    if (pts.size() < 2) return;
    add({.kind = PrimKind::Polyline, .color = color, .points = std::move(pts), .closed = closed, .width = width});
  }
  void dashed(const std::vector<Vec2>& pts, uint32_t color, float width) {
    const float on = 5.0f * std::max(1.0f, width * 0.7f), off = 3.5f * std::max(1.0f, width * 0.7f);
    std::vector<Vec2> cur;
    float phase = 0;  // distance into the current on/off period
    bool drawing = true;
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      Vec2 a = pts[i];
      const Vec2 b = pts[i + 1];
      float len = std::hypot(b.x - a.x, b.y - a.y);
      while (len > 0) {
        const float left = (drawing ? on : off) - phase;
        const float take = std::min(left, len);
        const float t = take / len;
        const Vec2 m{a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t};
        if (drawing) {
          if (cur.empty()) cur.push_back(a);
          cur.push_back(m);
        }
        phase += take;
        len -= take;
        a = m;
        if (phase >= (drawing ? on : off) - 1e-4f) {
          if (drawing) polyline(std::move(cur), color, width), cur.clear();
          drawing = !drawing;
          phase = 0;
        }
      }
    }
    if (drawing && cur.size() >= 2) polyline(std::move(cur), color, width);
  }
  void stroke(const std::vector<Vec2>& pts, uint32_t color, float width, bool is_dashed) {
    if (is_dashed)
      dashed(pts, color, width);
    else
      polyline(pts, color, width);
  }
  void polygon(std::vector<Vec2> pts, uint32_t color) {
    if (pts.size() < 3) return;
    add({.kind = PrimKind::Polygon, .color = color, .points = std::move(pts)});
  }
  void disc(Vec2 c, float r, uint32_t color) {
    std::vector<Vec2> pts;
    for (int k = 0; k < 12; ++k) {
      const float a = 2.0f * 3.14159265f * k / 12.0f;
      pts.push_back({c.x + r * std::cos(a), c.y + r * std::sin(a)});
    }
    polygon(std::move(pts), color);
  }
  // Text with $…$ math becomes its glyph runs, rules and strokes (append_math_text).
  void text(Vec2 pos, std::string s, float size, uint32_t color, float ax = 0, float ay = 0, bool vertical = false) {
    if (s.empty()) return;
    Primitive p{.kind = PrimKind::Text,
                .color = color,
                .text = std::move(s),
                .pos = pos,
                .size = size,
                .align_x = ax,
                .align_y = ay,
                .vertical = vertical,
                .clip = clip};
    if (has_math(p.text)) return append_math_text(out.prims, p, ui_color(th.kind, UiRole::Warning));
    out.prims.push_back(std::move(p));
  }
  // A title, axis label or caption that must be read whole: drawn at `size` when it fits in `max_width`, else at
  // the largest size down to 75% (never below 9 px) that fits; only then shortened with "…", which is reported
  // in out.problems (naming `what`) so tests catch it.
  void label(Vec2 pos, const std::string& s, float size, float max_width, uint32_t color, float ax, float ay,
             bool vertical, const char* what);
  // A figure title or caption: one line when it fits, else two lines split at the space nearest the middle
  // (each then shrunk only if needed). Returns the height used; `ay` 0 grows down from pos, 1 grows up.
  float wrapped_label(Vec2 pos, const std::string& s, float size, float max_width, uint32_t color, float ax, float ay,
                      const char* what);
  void image(Rect r, ImageRef ref) {
    out.images.push_back(ref);
    add({.kind = PrimKind::Image, .rect = r, .image = static_cast<int>(out.images.size()) - 1});
  }
};

// The colours of an axes' series: `count` is how many items take a palette colour, so a crowded axes switches
// to series_color's graded scheme instead of repeating colours.
struct Palette {
  int next = 0, count = 0;
  uint32_t take() { return series_color(next++, count); }
};
inline uint32_t item_color(uint32_t requested, Palette& p) { return requested ? requested : p.take(); }

// Shortens a label to `max_width` pixels with an ellipsis.
std::string fit_text(const std::string& s, float size, float max_width);

struct ColorBarSpec {
  const HeatmapItem* heatmap = nullptr;
  double vmin = 0, vmax = 1;
  bool masked = false;
  std::vector<Tick> ticks;
  float tick_width = 0;
};

// The colour-scale range of a heatmap: explicit, or the finite data range (Diverging: symmetric around 0).
void heatmap_range(const HeatmapItem& h, const HeatmapScan& scan, double* vmin, double* vmax);
// A marker line's label, placed once everything it could cover is known.
struct MarkerLabel {
  float x = 0;  // a vertical line's pixel x
  std::string label;
  uint32_t color = 0;
  bool horizontal = false;
  float y = 0;  // a horizontal line's pixel y
};
// The vertical extents (top, bottom) of the horizontal markers' labels placed so far in one axes.
using HLineLabelSpans = std::vector<std::pair<float, float>>;

// Every item of `axes` in order; labelled items append their legend entries. Marker labels go to `labels` when
// given (the caller places them after the legend), else they are drawn at once.
void draw_items(Builder& b, const AxesFrame& f, const Axes& axes, std::vector<LegendEntry>* legend,
                std::vector<MarkerLabel>* labels = nullptr);
// Draws a marker label beside its line where it hides the least of prims[items_begin, end) and nothing of `avoid`;
// a horizontal line's label also clears the labels in `spans` (and is added to them).
void draw_marker_label(Builder& b, const AxesFrame& f, size_t items_begin, const MarkerLabel& m, const Rect* avoid,
                       HLineLabelSpans* spans);
Vec2 legend_size(const FigureTheme& th, const std::vector<LegendEntry>& entries);
void draw_legend(Builder& b, const std::vector<LegendEntry>& entries, Vec2 top_left);
// The same entries side by side, wrapped into rows no wider than `max_width` (a legend under the figure): the box's
// size, and the box drawn with its top edge centred at `top_centre`.
Vec2 legend_rows_size(const FigureTheme& th, const std::vector<LegendEntry>& entries, float max_width);
Rect draw_legend_rows(Builder& b, const std::vector<LegendEntry>& entries, Vec2 top_centre, float max_width);
// The inside corner of `plot` (top-right, top-left, bottom-right, bottom-left; first wins a tie) where a legend box of
// `size` hides the least of the items drawn as prims[begin, end): lines, markers, bars, labels.
Vec2 place_legend(const Layout& out, size_t begin, size_t end, const Rect& plot, Vec2 size);
// True when `box` hides part of the items drawn as prims [begin, end): a vertex or a point along a stroked line, a
// filled shape or a text (heatmap images excepted: they fill every corner alike).
bool covers_items(const Layout& out, size_t begin, size_t end, const Rect& box);
float colorbar_block_width(const FigureTheme& th, const ColorBarSpec& cb);
void draw_colorbar(Builder& b, const ColorBarSpec& cb, const Rect& plot);

}  // namespace tw::plot::detail
