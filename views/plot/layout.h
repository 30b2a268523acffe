#pragma once
// Layout: figure + size + theme → primitives in pixel coordinates. The single source for the three
// renderers (ImGui draw list, SVG, PNG), so the exported figure is the one on screen.
//
//   Layout l = layout_figure(fig, {.width = 640, .height = 400, .theme = Theme::Print});
//   for (const Primitive& p : l.prims) ...   // painter's order; multiply coordinates by the renderer's scale
//
// Coordinates are logical pixels, origin at the top-left, y down. The layout keeps pointers into `fig`
// (heatmap data, for images and hover), so `fig` must outlive the layout.

#include <cstdint>
#include <string>
#include <vector>

#include "views/plot/figure.h"
#include "views/plot/text.h"
#include "views/plot/theme.h"

namespace tw::plot {

struct Vec2 {
  float x = 0, y = 0;
};
struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
  bool contains(Vec2 p) const { return p.x >= x0 && p.x <= x1 && p.y >= y0 && p.y <= y1; }
};

// An image drawn into a rectangle with nearest-neighbour sampling: a block of heatmap cells or a colour bar.
struct ImageRef {
  const HeatmapItem* heatmap = nullptr;  // null: a vertical colour bar gradient of `colormap` (top = vmax)
  Colormap colormap = Colormap::Viridis;
  double vmin = 0, vmax = 1;
  int row0 = 0, col0 = 0, rows = 0, cols = 0;  // visible cell block (heatmaps)
  bool flip_x = false;                         // column col0 at the right edge of the rect instead of the left
  bool flip_y = false;  // row row0 at the bottom of the rect instead of the top (y axis not inverted)
  uint64_t key = 0;     // changes whenever the pixels of the full image change (texture cache key)
};

// Full RGBA8 pixels of an image (heatmap: rows × cols cells; colour bar: 1 × 256), row 0 at the top.
struct Pixels {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // width · height · 4 bytes
};
Pixels image_pixels(const ImageRef& image);
// Only the visible block (row0/col0/rows/cols) with the flips applied: what the image's rect shows, top-left first.
Pixels visible_pixels(const ImageRef& image);

enum class PrimKind {
  Polyline,  // `points`, stroked with `width` (closed when `closed`)
  Polygon,   // `points`, filled (convex or simple)
  Rect,      // `rect`, filled
  Text,      // `text` at `pos`, see align_x/align_y/vertical
  Image,     // `images[image]` stretched over `rect`
};

struct Primitive {
  PrimKind kind = PrimKind::Rect;
  uint32_t color = 0;                    // 0xRRGGBBAA
  std::vector<Vec2> points = {};         // Polyline, Polygon
  bool closed = false;                   // Polyline
  float width = 1;                       // Polyline stroke width
  Rect rect = {};                        // Rect, Image
  std::string text = {};                 // Text (UTF-8)
  Vec2 pos = {};                         // Text anchor point
  float size = 12;                       // Text pixel height (DejaVu Sans ascent − descent)
  float align_x = 0;                     // Text: 0 anchor at the left edge, 0.5 centre, 1 right (before rotation)
  float align_y = 0;                     // Text: 0 anchor at the top, 0.5 middle, 1 bottom (before rotation)
  bool vertical = false;                 // Text rotated 90° counter-clockwise (reads bottom to top), about `pos`
  int image = -1;                        // Image: index into Layout::images
  int clip = -1;                         // index into Layout::clips, or -1 for none
  FontStyle style = FontStyle::Regular;  // Text: the face (math runs: italic variables, bold vectors, …)
  int group = -1;  // Text, Rect, Polyline of one typeset label ($…$): the index of its first primitive, else -1
};

// [SECTION] Math text
// A label with $…$ math (plot/math.h) becomes primitives in the layout itself, so the screen, PNG and SVG draw the
// same glyph runs: one Text per run (its face and size, aligned top-left; rotated with the label when vertical),
// then the rules (fraction bars, vinculums) as Rects and the strokes (radicals, grown delimiters) as Polylines, all
// with `group` set to the index of the first. An unsupported command's source is drawn in `warning_color`.
// The label's box is its width × (ascent + descent) of the math layout, placed by align_x/align_y like plain text.
void append_math_text(std::vector<Primitive>& prims, const Primitive& label, uint32_t warning_color);

// Where one axes ended up, for hover readouts and zoom/pan.
struct AxesFrame {
  Rect plot;              // the data area in pixels
  double x0 = 0, x1 = 1;  // visible data range (x0 at the left unless inverted)
  double y0 = 0, y1 = 1;  // visible data range (y0 at the bottom unless inverted)
  Scale x_scale = Scale::Linear, y_scale = Scale::Linear;
  bool x_invert = false, y_invert = false;
  const Axes* axes = nullptr;

  Vec2 to_pixel(double x, double y) const;
  double x_from_pixel(float px) const;
  double y_from_pixel(float py) const;
};

// A per-axes visible range override (zoom/pan); `set == false` means the figure's own range.
struct ViewRange {
  bool set = false;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
};

struct LayoutOptions {
  float width = 640, height = 400;  // logical pixels
  Theme theme = Theme::Dark;
  std::vector<ViewRange> views = {};  // optional, one per axes (zoom/pan state from the screen)
  bool background = true;             // fill the figure background (exports); the screen may skip it
};

struct Layout {
  float width = 0, height = 0;
  FigureTheme theme;
  std::vector<Primitive> prims;
  std::vector<Rect> clips;
  std::vector<ImageRef> images;
  std::vector<AxesFrame> frames;  // one per axes of the figure, same order
  // Every legend box drawn (inside or beside a plot area), for tests: a legend inside the axes covers no plotted
  // point (layout_axes moves it outside when every corner would).
  std::vector<Rect> legends;
  const Figure* figure = nullptr;
  // What the layout could not show as asked, one sentence each: a title, axis label or caption cut short ("…")
  // even at the smallest readable size, tick labels that still touch. Empty for a figure that reads well at this
  // size; tests render every panel's figures and require it empty.
  std::vector<std::string> problems;
};

Layout layout_figure(const Figure& fig, const LayoutOptions& options);

// Export size in logical pixels for a figure (640 × 400 for one axes, larger grids for small multiples).
Vec2 default_figure_size(const Figure& fig);
// On screen a figure is never laid out smaller than this fraction of its export size (a narrower window scrolls
// instead), so the figure-quality test checks both sizes.
inline constexpr float kMinReadableFraction = 0.75f;
// The cap on that minimum for wide figures (logical pixels): on screen a figure is never drawn narrower than
// min(kMinReadableFraction × export width, kMinReadableWidth), and panels put two figures in a row only when each
// gets this much, so the minimum never pushes a row past its column.
inline constexpr float kMinReadableWidth = 480;
// The least share of its export height a figure is drawn at on screen (text does not shrink with the figure).
inline constexpr float kMinReadableHeightFraction = 0.5f;

// [SECTION] Ticks
struct Tick {
  double value = 0;
  std::string label;
};
// "Nice" linear ticks (steps 1, 2 or 5 × 10^k), about `target` of them, all inside [lo, hi].
std::vector<Tick> nice_ticks(double lo, double hi, int target);
// Decade ticks (1, 10, 100, ... labelled 10ⁿ) for a log axis over [lo, hi], lo > 0; adds 2 and 5 when narrow.
std::vector<Tick> log_ticks(double lo, double hi, int target);
// The tick label text for `v` when ticks are `step` apart ("0.25", "−3", "1e-05"); uses the real minus sign.
std::string tick_label(double v, double step);
// Value readout with 6 significant digits ("0.333333", "−∞", "NaN").
std::string format_value(double v);

// [SECTION] Hover
struct HoverInfo {
  bool hit = false;
  std::string text;  // one or more lines, e.g. "cell i = 3, j = 5\nvalue = 0.125"
  Vec2 point;        // highlighted position (nearest line point) in pixels
  bool has_point = false;
  Rect cell;  // highlighted heatmap cell in pixels
  bool has_cell = false;
  int axes = -1;
};
// What is under `mouse` (logical pixels): heatmap cell with its exact value, nearest line point
// (within `radius` pixels), bar or histogram bin; otherwise the data coordinates of the cursor.
HoverInfo hover_at(const Layout& layout, Vec2 mouse, float radius = 24);

}  // namespace tw::plot
