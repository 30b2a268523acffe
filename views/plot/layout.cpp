// Layout of a figure into pixel-space primitives (see layout.h).
//
// Index of this file:
// [SECTION] AxesFrame mapping
// [SECTION] Images
// [SECTION] Primitive helpers
// [SECTION] Data ranges
// [SECTION] Axis ticks
// [SECTION] One axes
// [SECTION] Figure

#include "views/plot/layout.h"
#include "core/base/i18n.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "views/plot/layout_internal.h"
#include "views/plot/text.h"

namespace tw::plot {

// [SECTION] AxesFrame mapping
namespace {
double fwd(double v, Scale s) { return s == Scale::Log10 ? (v > 0 ? std::log10(v) : -400.0) : v; }
double inv(double v, Scale s) { return s == Scale::Log10 ? std::pow(10.0, v) : v; }
}  // namespace

Vec2 AxesFrame::to_pixel(double x, double y) const {
  const double fx0 = fwd(x0, x_scale), fx1 = fwd(x1, x_scale), fy0 = fwd(y0, y_scale), fy1 = fwd(y1, y_scale);
  double tx = fx1 != fx0 ? (fwd(x, x_scale) - fx0) / (fx1 - fx0) : 0.5;
  double ty = fy1 != fy0 ? (fwd(y, y_scale) - fy0) / (fy1 - fy0) : 0.5;
  if (x_invert) tx = 1 - tx;
  if (y_invert) ty = 1 - ty;
  // Clamp far-off points so zoomed-in lines do not overflow float; clipping hides them anyway.
  tx = std::clamp(tx, -1e4, 1e4);
  ty = std::clamp(ty, -1e4, 1e4);
  return {static_cast<float>(plot.x0 + tx * plot.width()), static_cast<float>(plot.y1 - ty * plot.height())};
}

double AxesFrame::x_from_pixel(float px) const {
  double t = plot.width() > 0 ? (px - plot.x0) / plot.width() : 0;
  if (x_invert) t = 1 - t;
  const double f0 = fwd(x0, x_scale), f1 = fwd(x1, x_scale);
  return inv(f0 + t * (f1 - f0), x_scale);
}

double AxesFrame::y_from_pixel(float py) const {
  double t = plot.height() > 0 ? (plot.y1 - py) / plot.height() : 0;
  if (y_invert) t = 1 - t;
  const double f0 = fwd(y0, y_scale), f1 = fwd(y1, y_scale);
  return inv(f0 + t * (f1 - f0), y_scale);
}

// [SECTION] Images
namespace {

void put(std::vector<uint8_t>& px, size_t i, uint32_t c) {
  px[i * 4 + 0] = red(c);
  px[i * 4 + 1] = green(c);
  px[i * 4 + 2] = blue(c);
  px[i * 4 + 3] = alpha(c);
}

}  // namespace

namespace detail {
HeatmapScan scan_heatmap(const HeatmapItem& h) {
  HeatmapScan r;
  // 64-bit multiply-xor over the raw values; skipped when the panel versions its data itself.
  uint64_t acc = 0x243F6A8885A308D3ull ^ (uint64_t(h.rows) << 32) ^ uint64_t(h.cols);
  const bool hash = h.version == 0;
  for (double v : h.data) {
    if (std::isfinite(v)) {
      r.lo = std::min(r.lo, v);
      r.hi = std::max(r.hi, v);
    } else if (!(v > 0)) {
      r.masked = true;  // −∞ or NaN (+∞ is an ordinary, if odd, value)
    }
    if (hash) {
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      acc = (acc ^ bits) * 0x100000001B3ull;
      acc ^= acc >> 29;
    }
  }
  r.hash = hash ? acc : h.version * 0x9E3779B97F4A7C15ull;
  return r;
}

std::string fit_text(const std::string& s, float size, float max_width) {
  if (label_width(s, size) <= max_width) return s;
  // Shortened a character at a time, a formula ($…$) as a whole: half a formula would not typeset.
  std::vector<std::string> units = label_units(s);
  std::string out;
  while (!units.empty()) {
    units.pop_back();
    out.clear();
    for (const std::string& u : units) out += u;
    out += "\xE2\x80\xA6";  // …
    if (label_width(out, size) <= max_width) return out;
  }
  return "\xE2\x80\xA6";
}

void Builder::label(Vec2 pos, const std::string& s, float size, float max_width, uint32_t color, float ax, float ay,
                    bool vertical, const char* what) {
  if (s.empty()) return;
  const float width = label_width(s, size);
  if (width <= max_width) return text(pos, s, size, color, ax, ay, vertical);
  const float smallest = std::min(size, std::max(9.0f, size * 0.75f));
  const float fitted = size * max_width / width;  // text width is linear in the pixel size
  if (fitted >= smallest) return text(pos, s, std::floor(fitted * 4) / 4, color, ax, ay, vertical);
  out.problems.push_back(std::string(what) + " \"" + s + "\" is cut short: it needs " +
                         std::to_string(static_cast<int>(std::ceil(width * smallest / size))) + " px at " +
                         std::to_string(static_cast<int>(smallest)) + " px type, the figure gives it " +
                         std::to_string(static_cast<int>(max_width)));
  text(pos, fit_text(s, smallest, max_width), smallest, color, ax, ay, vertical);
}

// The two halves of `s` split where a line may break (label_words: a space, or between Chinese characters) closest
// to its middle (by width); {s, ""} when it cannot break.
std::pair<std::string, std::string> split_in_two(const std::string& s, float size) {
  const std::vector<std::string> words = label_words(s);
  auto trimmed = [](std::string t) {
    while (!t.empty() && t.back() == ' ') t.pop_back();
    return t;
  };
  size_t best = 0;
  float best_gap = INFINITY;
  const float total = label_width(s, size);
  std::string head;
  for (size_t k = 0; k + 1 < words.size(); ++k) {
    head += words[k];
    const float gap = std::fabs(label_width(trimmed(head), size) - total / 2);
    if (gap < best_gap) best_gap = gap, best = k + 1;
  }
  if (best == 0) return {s, ""};
  std::string first, second;
  for (size_t k = 0; k < words.size(); ++k) (k < best ? first : second) += words[k];
  return {trimmed(first), second};
}

float Builder::wrapped_label(Vec2 pos, const std::string& s, float size, float max_width, uint32_t color, float ax,
                             float ay, const char* what) {
  if (s.empty()) return 0;
  const float line = std::max(size * 1.25f, label_height(s, size) + size * 0.25f);  // taller for a fraction
  if (label_width(s, size) <= max_width) {
    text(pos, s, size, color, ax, ay);
    return line;
  }
  auto [first, second] = split_in_two(s, size);
  if (second.empty()) {
    label(pos, s, size, max_width, color, ax, ay, false, what);
    return line;
  }
  // ay = 0: lines go down from pos; ay = 1: the second line ends at pos and the first sits above it.
  const Vec2 p1 = ay == 0 ? pos : Vec2{pos.x, pos.y - line};
  const Vec2 p2 = ay == 0 ? Vec2{pos.x, pos.y + line} : pos;
  label(p1, first, size, max_width, color, ax, ay, false, what);
  label(p2, second, size, max_width, color, ax, ay, false, what);
  return 2 * line;
}

}  // namespace detail

using namespace detail;

Pixels image_pixels(const ImageRef& image) {
  Pixels p;
  if (!image.heatmap) {  // colour bar: 256 rows, top = vmax
    p.width = 1;
    p.height = 256;
    p.rgba.resize(256 * 4);
    for (int i = 0; i < 256; ++i) put(p.rgba, size_t(i), colormap_at(image.colormap, 1.0 - (i + 0.5) / 256.0));
    return p;
  }
  const HeatmapItem& h = *image.heatmap;
  p.width = h.cols;
  p.height = h.rows;
  p.rgba.resize(size_t(h.rows) * size_t(h.cols) * 4);
  for (size_t i = 0; i < h.data.size(); ++i)
    put(p.rgba, i, cell_color(image.colormap, h.data[i], image.vmin, image.vmax));
  return p;
}

Pixels visible_pixels(const ImageRef& image) {
  if (!image.heatmap) return image_pixels(image);
  const HeatmapItem& h = *image.heatmap;
  Pixels p;
  p.width = image.cols;
  p.height = image.rows;
  p.rgba.resize(size_t(p.width) * size_t(p.height) * 4);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) {
      const int i = image.row0 + (image.flip_y ? p.height - 1 - y : y);
      const int j = image.col0 + (image.flip_x ? p.width - 1 - x : x);
      put(p.rgba, size_t(y) * size_t(p.width) + size_t(x),
          cell_color(image.colormap, h.data[size_t(i) * size_t(h.cols) + size_t(j)], image.vmin, image.vmax));
    }
  return p;
}

// [SECTION] Primitive helpers (the Builder lives in layout_internal.h)
namespace {

// [SECTION] Data ranges
struct Range {
  double lo = INFINITY, hi = -INFINITY;
  bool pad_lo = true, pad_hi = true;  // add a margin beyond the data (not for heatmaps, bar baselines)
  bool log_bars = false;              // bars or bins rise from the bottom of a log axis: leave the smallest visible
  void add(double v, Scale s) {
    if (!std::isfinite(v) || (s == Scale::Log10 && v <= 0)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool valid() const { return lo <= hi; }
};

// The range an axis shows: explicit limits win; otherwise the data range with a 4% margin.
void resolve_range(const Axis& axis, Range r, double* out_lo, double* out_hi) {
  const bool has_data = r.valid();
  if (!has_data) r.lo = axis.scale == Scale::Log10 ? 1 : 0, r.hi = axis.scale == Scale::Log10 ? 10 : 1;
  double lo = r.lo, hi = r.hi;
  if (axis.scale == Scale::Log10) {
    double l0 = std::log10(lo), l1 = std::log10(hi);
    if (l1 - l0 < 1e-9) l0 -= 0.5, l1 += 0.5;
    const double m = (l1 - l0) * 0.04;
    // A bar drawn from the bottom of a log axis is as tall as its distance from the bottom in decades: a third
    // of a decade below the smallest keeps it visible (otherwise the smallest bar has no height at all).
    const double m_lo = r.log_bars ? std::max(m, 1.0 / 3.0) : m;
    lo = std::pow(10.0, r.pad_lo ? l0 - m_lo : l0);
    hi = std::pow(10.0, r.pad_hi ? l1 + m : l1);
  } else {
    if (hi - lo < 1e-300) {
      const double d = std::max(std::fabs(lo) * 0.1, 0.5);
      lo -= d, hi += d;
    } else {
      const double m = (hi - lo) * 0.04;
      if (r.pad_lo) lo -= m;
      if (r.pad_hi) hi += m;
    }
  }
  // Explicit limits win, except that a log axis never hides plotted data: its limits widen to the data range.
  const bool log = axis.scale == Scale::Log10, data = has_data;
  if (std::isfinite(axis.min) && (!log || axis.min > 0)) lo = log && data ? std::min(axis.min, lo) : axis.min;
  if (std::isfinite(axis.max) && (!log || axis.max > 0)) hi = log && data ? std::max(axis.max, hi) : axis.max;
  if (!(hi > lo)) hi = lo + 1;
  *out_lo = lo;
  *out_hi = hi;
}

void data_ranges(const Axes& a, Range* rx, Range* ry) {
  const Scale xs = a.x.scale, ys = a.y.scale;
  for (const Item& it : a.items) {
    if (const auto* l = std::get_if<LineItem>(&it)) {
      for (size_t i = 0; i < l->xs.size(); ++i) {
        if (!std::isfinite(l->xs[i]) || !std::isfinite(l->ys[i])) continue;
        rx->add(l->xs[i], xs);
        ry->add(l->ys[i], ys);
      }
    } else if (const auto* b = std::get_if<BarsItem>(&it)) {
      rx->add(-0.5, xs), rx->add(double(b->groups.size()) - 0.5, xs);
      rx->pad_lo = rx->pad_hi = false;
      if (ys == Scale::Linear) ry->add(0, ys);
      for (const auto& s : b->values)
        for (double v : s) ry->add(v, ys);
      if (ys == Scale::Log10)
        ry->log_bars = true;
      else if (ry->lo >= 0)
        ry->pad_lo = false;
    } else if (const auto* h = std::get_if<HistogramItem>(&it)) {
      const HistogramBins bins = bin_histogram(*h);
      rx->add(bins.lo, xs), rx->add(bins.hi, xs);
      if (ys == Scale::Linear) ry->add(0, ys), ry->pad_lo = false;
      if (ys == Scale::Log10) ry->log_bars = true;
      for (double c : bins.counts) ry->add(c, ys);
    } else if (const auto* hm = std::get_if<HeatmapItem>(&it)) {
      rx->add(-0.5, xs), rx->add(hm->cols - 0.5, xs);
      ry->add(-0.5, ys), ry->add(hm->rows - 0.5, ys);
      rx->pad_lo = rx->pad_hi = ry->pad_lo = ry->pad_hi = false;
    } else if (const auto* ar = std::get_if<ArrowItem>(&it)) {
      rx->add(ar->x0, xs), rx->add(ar->x1, xs), ry->add(ar->y0, ys), ry->add(ar->y1, ys);
    } else if (const auto* c = std::get_if<CircleItem>(&it)) {
      rx->add(c->cx - c->r, xs), rx->add(c->cx + c->r, xs), ry->add(c->cy - c->r, ys), ry->add(c->cy + c->r, ys);
    } else if (const auto* t = std::get_if<TextItem>(&it)) {
      rx->add(t->x, xs), ry->add(t->y, ys);
    } else if (const auto* m = std::get_if<MarkerLineItem>(&it)) {
      (m->vertical ? rx : ry)->add(m->value, m->vertical ? xs : ys);
    }
  }
}

// [SECTION] Axis ticks
struct AxisTicks {
  std::vector<Tick> ticks;
  bool vertical_labels = false;  // x tick labels rotated (long token strings)
  float extent = 0;              // label size across the axis: height (x) or width (y) in pixels
};

// Ticks for one axis shown over [lo, hi] on `length` pixels; `horizontal` for the x axis.
AxisTicks make_ticks(const Axis& axis, double lo, double hi, float length, bool horizontal, float font) {
  AxisTicks t;
  if (axis.hide) return t;
  const double a = std::min(lo, hi), b = std::max(lo, hi);
  if (!axis.categories.empty()) {
    const int first = std::max(0, static_cast<int>(std::ceil(a - 1e-9)));
    const int last = std::min(static_cast<int>(axis.categories.size()) - 1, static_cast<int>(std::floor(b + 1e-9)));
    const float spacing = (b > a) ? float(length / (b - a)) : length;
    float widest = 0;
    for (int i = first; i <= last; ++i) widest = std::max(widest, label_width(axis.categories[size_t(i)], font));
    widest = std::min(widest, 140.0f);
    int every = 1;
    if (horizontal) {
      if (widest + 6 > spacing) t.vertical_labels = true;
      const float need = t.vertical_labels ? font * 1.15f : widest + 6;
      every = std::max(1, static_cast<int>(std::ceil(need / std::max(spacing, 1e-3f))));
    } else {
      every = std::max(1, static_cast<int>(std::ceil(font * 1.1f / std::max(spacing, 1e-3f))));
    }
    for (int i = first; i <= last; ++i)
      if ((i - first) % every == 0) t.ticks.push_back({double(i), axis.categories[size_t(i)]});
    t.extent = horizontal ? (t.vertical_labels ? widest : font * 1.2f) : widest;
    return t;
  }
  const int target = std::max(2, static_cast<int>(length / (horizontal ? 90.0f : 45.0f)));
  t.ticks = axis.scale == Scale::Log10 ? log_ticks(a, b, target) : nice_ticks(a, b, target);
  // Keep a tick only when its label clears the last kept one by a gap (log ticks of 1, 2, 5 × 10ⁿ are unevenly
  // spaced, so this is decided in pixels, tick by tick). Decades (10ⁿ) are preferred on a log axis.
  const bool log = axis.scale == Scale::Log10;
  auto pixel = [&](double v) {
    const double u = log ? (std::log10(v) - std::log10(a)) / (std::log10(b) - std::log10(a)) : (v - a) / (b - a);
    return static_cast<float>(u * length);
  };
  auto half_extent = [&](const Tick& k) { return horizontal ? label_width(k.label, font) / 2 : font * 0.55f; };
  auto thin = [&](bool decades_only) {
    std::vector<Tick> kept;
    float last_edge = -INFINITY;
    for (const Tick& k : t.ticks) {
      if (decades_only && std::fabs(std::log10(k.value) - std::round(std::log10(k.value))) > 1e-9) continue;
      const float p = pixel(k.value), h = half_extent(k);
      if (p - h < last_edge + (horizontal ? 8.0f : 2.0f)) continue;
      kept.push_back(k);
      last_edge = p + h;
    }
    return kept;
  };
  if (t.ticks.size() > 1 && b > a) {
    std::vector<Tick> kept = thin(false);
    if (log && kept.size() < t.ticks.size()) {  // uneven 1-2-5 ticks collided: decades read better
      std::vector<Tick> decades = thin(true);
      if (decades.size() >= 2) kept = std::move(decades);
    }
    t.ticks = std::move(kept);
  }
  if (horizontal) {
    t.extent = font * 1.2f;
  } else {
    for (const Tick& k : t.ticks) t.extent = std::max(t.extent, label_width(k.label, font));
  }
  return t;
}

// [SECTION] One axes

// The first heatmap of an axes (its labels become the axes' categories when the axes has none), and whether any
// item has a legend entry.
const HeatmapItem* scan_items(const Axes& axes_in, Axis* xa, Axis* ya, bool* any_legend) {
  const HeatmapItem* first_heatmap = nullptr;
  *any_legend = false;
  for (const Item& it : axes_in.items) {
    if (const auto* hm = std::get_if<HeatmapItem>(&it)) {
      if (!first_heatmap) first_heatmap = hm;
      if (xa->categories.empty() && !hm->options.col_labels.empty()) xa->categories = hm->options.col_labels;
      if (ya->categories.empty() && !hm->options.row_labels.empty()) ya->categories = hm->options.row_labels;
    }
    std::visit(
        [&](const auto& item) {
          using T = std::decay_t<decltype(item)>;
          if constexpr (std::is_same_v<T, BarsItem>)
            *any_legend |= !item.series.empty();
          else if constexpr (std::is_same_v<T, LineItem> || std::is_same_v<T, HistogramItem> ||
                             std::is_same_v<T, ArrowItem>)
            *any_legend |= !item.label.empty();
        },
        it);
  }
  if (axes_in.flags & AxesFlags_NoLegend) *any_legend = false;
  return first_heatmap;
}

// Grid lines at the ticks (none behind a heatmap).
void draw_grid(Builder& b, const AxesFrame& f, const AxisTicks& xt, const AxisTicks& yt) {
  const FigureTheme& th = b.th;
  const Rect& plot = f.plot;
  for (const Tick& t : xt.ticks) {
    const float x = f.to_pixel(t.value, f.y0).x;
    if (x > plot.x0 + 0.5f && x < plot.x1 - 0.5f) b.polyline({{x, plot.y0}, {x, plot.y1}}, th.grid, th.grid_width);
  }
  for (const Tick& t : yt.ticks) {
    const float y = f.to_pixel(f.x0, t.value).y;
    if (y > plot.y0 + 0.5f && y < plot.y1 - 0.5f) b.polyline({{plot.x0, y}, {plot.x1, y}}, th.grid, th.grid_width);
  }
}

// Tick labels that still touch after thinning are reported (an axis the figure is too small for).
void check_overlap(Builder& b, const Axes& axes_in, float lo, float hi, float* last_hi, const char* axis) {
  if (lo < *last_hi - 0.5f)
    b.out.problems.push_back(std::string(axis) + " tick labels overlap" +
                             (axes_in.title.empty() ? std::string() : " in \"" + axes_in.title + "\""));
  *last_hi = std::max(*last_hi, hi);
}

// The x axis under the plot area: ticks, their labels (checked for overlap) and the axis label at the cell's foot.
void draw_x_axis(Builder& b, const AxesFrame& f, const Axis& xa, const AxisTicks& xt, Rect cell) {
  const FigureTheme& th = b.th;
  const Rect& plot = f.plot;
  std::vector<std::pair<float, float>> spans;  // label extents along x, sorted (the axis may be inverted)
  for (const Tick& t : xt.ticks) {
    const float x = f.to_pixel(t.value, f.y0).x;
    const float half = xt.vertical_labels ? th.tick_size * 0.5f : label_width(t.label, th.tick_size) / 2;
    if (x >= plot.x0 - 0.5f && x <= plot.x1 + 0.5f) spans.push_back({x - half, x + half});
  }
  std::sort(spans.begin(), spans.end());
  float last_x = -INFINITY;
  for (const auto& [lo, hi] : spans) check_overlap(b, *f.axes, lo, hi, &last_x, "x-axis");
  for (const Tick& t : xt.ticks) {
    const float x = f.to_pixel(t.value, f.y0).x;
    if (x < plot.x0 - 0.5f || x > plot.x1 + 0.5f) continue;
    b.polyline({{x, plot.y1}, {x, plot.y1 + th.tick_length}}, th.frame, th.frame_width);
    if (xt.vertical_labels)
      b.text({x, plot.y1 + th.tick_length + 3}, fit_text(t.label, th.tick_size, 140), th.tick_size, th.text, 1, 0.5f,
             true);
    else
      b.text({x, plot.y1 + th.tick_length + 2}, t.label, th.tick_size, th.text, 0.5f, 0);
  }
  if (!xa.label.empty())
    b.label({(plot.x0 + plot.x1) / 2, cell.y1 - 1}, xa.title(), th.label_size, cell.width(), th.text, 0.5f, 1, false,
            "x-axis label");
}

// The y axis left of the plot area: ticks, their labels (checked for overlap) and the axis label at the cell's left.
void draw_y_axis(Builder& b, const AxesFrame& f, const Axis& ya, const AxisTicks& yt, Rect cell) {
  const FigureTheme& th = b.th;
  const Rect& plot = f.plot;
  float last_y = -INFINITY;
  std::vector<float> ys;
  for (const Tick& t : yt.ticks) {
    const float y = f.to_pixel(f.x0, t.value).y;
    if (y >= plot.y0 - 0.5f && y <= plot.y1 + 0.5f) ys.push_back(y);
  }
  std::sort(ys.begin(), ys.end());
  for (float y : ys) check_overlap(b, *f.axes, y - th.tick_size * 0.5f, y + th.tick_size * 0.5f, &last_y, "y-axis");
  for (const Tick& t : yt.ticks) {
    const float y = f.to_pixel(f.x0, t.value).y;
    if (y < plot.y0 - 0.5f || y > plot.y1 + 0.5f) continue;
    b.polyline({{plot.x0 - th.tick_length, y}, {plot.x0, y}}, th.frame, th.frame_width);
    b.text({plot.x0 - th.tick_length - 3, y}, fit_text(t.label, th.tick_size, 140), th.tick_size, th.text, 1, 0.5f);
  }
  if (!ya.label.empty())
    b.label({cell.x0 + 1, (plot.y0 + plot.y1) / 2}, ya.title(), th.label_size, plot.height(), th.text, 0.5f, 0, true,
            "y-axis label");
}

// Equal aspect: widens the range of the axis that would otherwise be stretched (keeps the plot area full), and
// ticks both axes again.
void equalise_aspect(AxesFrame& f, const Axis& xa, const Axis& ya, const Rect& plot, float tick_size, AxisTicks* xt,
                     AxisTicks* yt) {
  const double ux = std::fabs(f.x1 - f.x0) / plot.width(), uy = std::fabs(f.y1 - f.y0) / plot.height();
  if (ux > uy) {
    const double c = 0.5 * (f.y0 + f.y1), h = 0.5 * ux * plot.height();
    f.y0 = c - h, f.y1 = c + h;
  } else if (uy > ux) {
    const double c = 0.5 * (f.x0 + f.x1), h = 0.5 * uy * plot.width();
    f.x0 = c - h, f.x1 = c + h;
  }
  *yt = make_ticks(ya, f.y0, f.y1, plot.height(), false, tick_size);
  *xt = make_ticks(xa, f.x0, f.x1, plot.width(), true, tick_size);
}

// The data-to-pixel mapping's ranges: the data's, the axis's own limits, or the view the user zoomed to.
AxesFrame axes_frame(const Axes& axes_in, const Axis& xa, const Axis& ya, const ViewRange& view) {
  AxesFrame f;
  f.axes = &axes_in;
  f.x_scale = xa.scale;
  f.y_scale = ya.scale;
  f.x_invert = xa.invert;
  f.y_invert = ya.invert;
  Range rx, ry;
  data_ranges(axes_in, &rx, &ry);
  resolve_range(xa, rx, &f.x0, &f.x1);
  resolve_range(ya, ry, &f.y0, &f.y1);
  if (view.set) f.x0 = view.x0, f.x1 = view.x1, f.y0 = view.y0, f.y1 = view.y1;
  return f;
}

// The colour bar of `heatmap` (its range and ticks), or an empty spec (no heatmap) when there is none to draw.
ColorBarSpec colorbar_spec(Builder& b, const HeatmapItem* heatmap, Rect cell) {
  ColorBarSpec cb;
  if (!heatmap || heatmap->rows <= 0 || heatmap->cols <= 0) return cb;
  cb.heatmap = heatmap;
  const HeatmapScan& scan = b.scan(*heatmap);
  heatmap_range(*heatmap, scan, &cb.vmin, &cb.vmax);
  cb.masked = scan.masked;
  cb.ticks = nice_ticks(cb.vmin, cb.vmax, std::max(2, static_cast<int>(cell.height() / 50)));
  for (const Tick& t : cb.ticks) cb.tick_width = std::max(cb.tick_width, label_width(t.label, b.th.tick_size));
  return cb;
}

// The plot area inside `cell` and both axes' ticks, in two passes: tick density depends on the plot size, which
// depends on the tick label sizes. `right_reserve` is kept free on the right (a colour bar).
Rect place_plot_area(const FigureTheme& th, const Axes& axes_in, const Axis& xa, const Axis& ya, const AxesFrame& f,
                     Rect cell, float right_reserve, AxisTicks* xt, AxisTicks* yt) {
  // Room for an axis label: its line, taller when it holds a fraction or stacked scripts.
  auto label_h = [&](const Axis& a) { return th.label_size * 0.35f + label_height(a.title(), th.label_size); };
  const float top = cell.y0 + (axes_in.title.empty() ? th.tick_size * 0.6f : th.tick_size * 1.6f);
  const float left_label = (!ya.hide && !ya.label.empty()) ? label_h(ya) : 0;
  const float bottom_label = (!xa.hide && !xa.label.empty()) ? label_h(xa) : 0;
  Rect plot{cell.x0 + left_label + 40, top, cell.x1 - right_reserve - 8, cell.y1 - bottom_label - th.tick_size * 1.5f};
  for (int pass = 0; pass < 2; ++pass) {
    *yt = make_ticks(ya, f.y0, f.y1, std::max(plot.height(), 10.0f), false, th.tick_size);
    const float left = cell.x0 + left_label + (ya.hide ? 4 : yt->extent + th.tick_length + 5);
    plot.x0 = left;
    plot.x1 = cell.x1 - right_reserve - 6;
    *xt = make_ticks(xa, f.x0, f.x1, std::max(plot.width(), 10.0f), true, th.tick_size);
    const float xt_extent = xa.hide ? 4 : xt->extent + th.tick_length + 4;
    plot.y1 = cell.y1 - bottom_label - std::min(xt_extent, cell.height() * 0.35f);
    plot.y0 = top;
  }
  return plot;
}

// Lays out one axes inside `cell`: caption, axis labels, tick labels, colour bar and legend around the plot area.
// `own_colorbar`: false when the figure draws one shared colour bar instead.
// `place`: Beside puts the legend beside the plot area even without AxesFlags_LegendOutside (the second try of
// layout_axes below); Below leaves it to layout_figure, which draws it under the figure (its entries are gathered in
// b.below_entries). `legend_covers`, when given, is set when the inside legend hides part of the items.
enum class LegendPlace { Inside, Beside, Below };
AxesFrame layout_axes_once(Builder& b, const Axes& axes_in, Rect cell, const ViewRange& view, bool own_colorbar,
                           LegendPlace place, bool* legend_covers) {
  const FigureTheme& th = b.th;
  Axis xa = axes_in.x, ya = axes_in.y;
  bool any_legend = false;
  const HeatmapItem* first_heatmap = scan_items(axes_in, &xa, &ya, &any_legend);

  AxesFrame f = axes_frame(axes_in, xa, ya, view);
  // Colour bar ticks first: the bar takes a fixed column on the right.
  const ColorBarSpec cb = own_colorbar ? colorbar_spec(b, first_heatmap, cell) : ColorBarSpec{};
  const float right_reserve = cb.heatmap ? colorbar_block_width(th, cb) : 0;
  const bool legend_below = any_legend && place == LegendPlace::Below;
  const bool legend_outside =
      any_legend && !legend_below && (place == LegendPlace::Beside || (axes_in.flags & AxesFlags_LegendOutside));

  AxisTicks xt, yt;
  Rect plot = place_plot_area(th, axes_in, xa, ya, f, cell, right_reserve, &xt, &yt);
  if (plot.width() < 10 || plot.height() < 10) {  // too small to show anything useful
    f.plot = plot;
    return f;
  }

  // Draw order: background, grid, items, frame, ticks, colour bar, legend.
  if (legend_outside) {
    // Measure the legend before placing items so the plot area leaves room for it.
    std::vector<LegendEntry> entries;
    AxesFrame probe = f;
    probe.plot = plot;
    Layout probe_layout;
    Builder pb{probe_layout, th, -1};
    draw_items(pb, probe, axes_in, &entries);
    const float width = legend_size(th, entries).x + 8;
    b.legend_beside_width = std::max(b.legend_beside_width, width);
    if (std::isnan(b.legend_column_x)) plot.x1 -= width;  // else the grid's legend column holds it
  }

  if ((axes_in.flags & AxesFlags_EqualAspect) && xa.scale == Scale::Linear && ya.scale == Scale::Linear)
    equalise_aspect(f, xa, ya, plot, th.tick_size, &xt, &yt);
  f.plot = plot;

  if (!axes_in.title.empty()) {
    // Centred over the plot area but kept inside the cell: the plot area sits right of the cell's centre (the y
    // labels take its left), and a title as wide as the cell ran past the figure's right edge.
    const float half = std::min(label_width(axes_in.title, th.tick_size), cell.width()) / 2;
    const float cx = std::clamp((plot.x0 + plot.x1) / 2, cell.x0 + half, std::max(cell.x0 + half, cell.x1 - half));
    b.label({cx, cell.y0 + th.tick_size * 0.2f}, axes_in.title, th.tick_size, cell.width(), th.text, 0.5f, 0, false,
            "axes title");
  }
  b.rect(plot, th.plot_background);

  if (!(axes_in.flags & AxesFlags_NoGrid) && !first_heatmap) draw_grid(b, f, xt, yt);

  // Items, clipped to the plot area.
  b.out.clips.push_back(plot);
  const int saved_clip = b.clip;
  b.clip = static_cast<int>(b.out.clips.size()) - 1;
  std::vector<LegendEntry> legend;
  std::vector<MarkerLabel> marker_labels;
  const size_t items_begin = b.out.prims.size();
  draw_items(b, f, axes_in, &legend, &marker_labels);
  // The legend takes the emptiest corner of the items; marker labels then keep clear of both.
  const bool legend_inside = any_legend && !legend_outside && !legend_below && !legend.empty();
  const Vec2 lsize = legend_size(th, legend);
  const Vec2 legend_at = legend_outside ? Vec2{std::isnan(b.legend_column_x) ? plot.x1 + 8 : b.legend_column_x, plot.y0}
                         : legend_inside ? place_legend(b.out, items_begin, b.out.prims.size(), plot, lsize)
                                         : Vec2{};
  const Rect legend_box{legend_at.x, legend_at.y, legend_at.x + lsize.x, legend_at.y + lsize.y};
  if (legend_covers && legend_inside) *legend_covers = covers_items(b.out, items_begin, b.out.prims.size(), legend_box);
  HLineLabelSpans hline_spans;
  for (const MarkerLabel& m : marker_labels)
    draw_marker_label(b, f, items_begin, m, legend_inside ? &legend_box : nullptr, &hline_spans);
  b.clip = saved_clip;
  if (axes_in.items.empty())
    b.text({(plot.x0 + plot.x1) / 2, (plot.y0 + plot.y1) / 2}, tr("No data"), th.label_size, th.faint, 0.5f, 0.5f);

  // Frame and ticks.
  b.outline(plot, th.frame, th.frame_width);
  if (!xa.hide) draw_x_axis(b, f, xa, xt, cell);
  if (!ya.hide) draw_y_axis(b, f, ya, yt, cell);

  if (cb.heatmap) draw_colorbar(b, cb, plot);
  if (legend_below) {
    for (LegendEntry& e : legend) {  // once per series across the figure's axes
      const auto same = [&](const LegendEntry& o) { return o.label == e.label && o.color == e.color; };
      if (std::none_of(b.below_entries.begin(), b.below_entries.end(), same)) b.below_entries.push_back(std::move(e));
    }
  } else if (any_legend && !legend.empty()) {
    draw_legend(b, legend, legend_at);
    b.out.legends.push_back(legend_box);
  }
  return f;
}

// Lays out one axes; when the legend would hide data in every inside corner, lays it out again with the legend
// beside the plot area (a legend must never cover a plotted point).
AxesFrame layout_axes(Builder& b, const Axes& axes_in, Rect cell, const ViewRange& view, bool own_colorbar) {
  Layout& out = b.out;
  const size_t prims = out.prims.size(), clips = out.clips.size(), images = out.images.size(),
               problems = out.problems.size(), legends = out.legends.size();
  const auto listed = [&](const std::vector<const Axes*>& list) {
    return std::find(list.begin(), list.end(), &axes_in) != list.end();
  };
  if (listed(b.legend_below))
    return layout_axes_once(b, axes_in, cell, view, own_colorbar, LegendPlace::Below, nullptr);
  bool covers = false;
  const AxesFrame f = layout_axes_once(b, axes_in, cell, view, own_colorbar, LegendPlace::Inside, &covers);
  if (!covers) return f;
  const size_t inside_problems = out.problems.size() - problems;
  auto roll_back = [&] {
    out.prims.resize(prims);
    out.clips.resize(clips);
    out.images.resize(images);
    out.problems.resize(problems);
    out.legends.resize(legends);
  };
  roll_back();
  const float widest = b.legend_beside_width;
  const AxesFrame beside = layout_axes_once(b, axes_in, cell, view, own_colorbar, LegendPlace::Beside, nullptr);
  if (out.problems.size() - problems <= inside_problems) return beside;
  // Too narrow for a legend beside the plot (labels would be cut or ticks collide): inside for now, and layout_figure
  // lays the figure out again with this legend under it.
  roll_back();
  b.legend_beside_width = widest;
  if (!listed(b.legend_nowhere)) b.legend_nowhere.push_back(&axes_in);
  return layout_axes_once(b, axes_in, cell, view, own_colorbar, LegendPlace::Inside, nullptr);
}

}  // namespace

// [SECTION] Figure
Vec2 default_figure_size(const Figure& fig) {
  const int n = std::max<int>(1, static_cast<int>(fig.grid.size()));
  const int cols = fig.grid_cols > 0 ? std::min(fig.grid_cols, n) : static_cast<int>(std::ceil(std::sqrt(double(n))));
  const int rows = (n + cols - 1) / cols;
  const float aspect = fig.aspect > 0 ? fig.aspect : 0.625f;
  if (n == 1) return {640, 640 * aspect};
  const float w = std::max(640.0f, 260.0f * float(cols));
  return {w, (w / float(cols)) * (fig.cell_aspect > 0 ? fig.cell_aspect : 0.8f) * float(rows) + 40};
}

Layout layout_figure(const Figure& fig, const LayoutOptions& options) {
  Layout out;
  out.width = std::max(options.width, 1.0f);
  out.height = std::max(options.height, 1.0f);
  out.theme = figure_theme(options.theme);
  out.figure = &fig;
  const FigureTheme& th = out.theme;
  Builder b{out, th, -1};
  if (options.background) b.rect({0, 0, out.width, out.height}, th.background);

  const float pad = th.padding;
  float top = pad;
  if (!fig.title.empty())
    top += b.wrapped_label({out.width / 2, top}, fig.title, th.title_size, out.width - 2 * pad, th.text, 0.5f, 0,
                           "figure title") +
           th.title_size * 0.25f;
  float bottom = out.height - pad;
  if (!fig.note.empty())
    bottom -= b.wrapped_label({pad, bottom}, fig.note, th.tick_size, out.width - 2 * pad, th.faint, 0, 1, "caption") +
              th.tick_size * 0.25f;
  if (fig.grid.empty()) {
    b.text({out.width / 2, (top + bottom) / 2}, tr("No data"), th.label_size, th.faint, 0.5f, 0.5f);
    return out;
  }
  // One colour bar for all small multiples: measured first, it takes a column at the right of the grid.
  ColorBarSpec shared;
  float shared_width = 0;
  if (fig.shared_colorbar)
    for (const Axes& ax : fig.grid)
      for (const Item& it : ax.items)
        if (const auto* hm = std::get_if<HeatmapItem>(&it); hm && !shared.heatmap && hm->rows > 0 && hm->cols > 0) {
          shared.heatmap = hm;
          const HeatmapScan& scan = b.scan(*hm);
          heatmap_range(*hm, scan, &shared.vmin, &shared.vmax);
          for (const Axes& other : fig.grid)  // a masked cell in any of them earns the legend swatch
            for (const Item& o : other.items)
              if (const auto* h2 = std::get_if<HeatmapItem>(&o)) shared.masked |= b.scan(*h2).masked;
          shared.ticks = nice_ticks(shared.vmin, shared.vmax, std::max(2, static_cast<int>((bottom - top) / 50)));
          for (const Tick& t : shared.ticks)
            shared.tick_width = std::max(shared.tick_width, label_width(t.label, th.tick_size));
          shared_width = colorbar_block_width(th, shared);
        }

  const int n = static_cast<int>(fig.grid.size());
  const int cols = fig.grid_cols > 0 ? std::min(fig.grid_cols, n) : static_cast<int>(std::ceil(std::sqrt(double(n))));
  const int rows = (n + cols - 1) / cols;
  float cw = (out.width - pad - shared_width) / float(cols);
  float ch = (bottom - top) / float(rows);
  auto layout_cells = [&] {
    for (int k = 0; k < n; ++k) {
      const int r = k / cols, c = k % cols;
      const Rect cell{pad + cw * float(c), top + ch * float(r), pad + cw * float(c + 1) - pad,
                      top + ch * float(r + 1) - (r + 1 < rows ? pad : 0)};
      const ViewRange view = size_t(k) < options.views.size() ? options.views[size_t(k)] : ViewRange{};
      out.frames.push_back(layout_axes(b, fig.grid[size_t(k)], cell, view, shared.heatmap == nullptr));
    }
  };
  const size_t prims = out.prims.size(), clips = out.clips.size(), images = out.images.size(),
               problems = out.problems.size(), legends = out.legends.size();
  auto roll_back = [&] {
    out.prims.resize(prims);
    out.clips.resize(clips);
    out.images.resize(images);
    out.problems.resize(problems);
    out.legends.resize(legends);
    out.frames.clear();
  };
  layout_cells();
  // Small multiples with a legend beside one plot area: laid out again with one legend column right of the grid, so
  // every cell keeps the same width (a legend beside the first subplot squeezed it).
  if (n > 1 && !shared.heatmap && b.legend_beside_width > 0 && b.legend_beside_width < 0.5f * out.width) {
    roll_back();
    cw = (out.width - pad - b.legend_beside_width) / float(cols);
    b.legend_column_x = cw * float(cols) + 8;
    layout_cells();
  }
  // A legend with data in every inside corner and no room beside its plot area (a narrow column at 150–200%, where
  // it covered the first points of a curve): under the figure, in rows above the caption, the grid shortened for it.
  // A first pass gathers its entries, the second lays the grid out above them.
  if (!b.legend_nowhere.empty()) {
    b.legend_below = std::move(b.legend_nowhere);
    roll_back();
    layout_cells();
    const float max_w = out.width - 2 * pad;
    const Vec2 size = legend_rows_size(th, b.below_entries, max_w);
    const float gap = th.tick_size * 0.5f;
    if (size.y + gap < 0.5f * (bottom - top)) {  // else the inside corner stays the lesser evil
      std::vector<LegendEntry> entries = std::move(b.below_entries);
      b.below_entries.clear();
      bottom -= size.y + gap;
      ch = (bottom - top) / float(rows);
      roll_back();
      layout_cells();
      out.legends.push_back(draw_legend_rows(b, entries, {out.width / 2, bottom + gap}, max_w));
    } else {
      b.legend_below.clear();
      b.below_entries.clear();
      roll_back();
      layout_cells();
    }
  }
  if (shared.heatmap) {
    // The bar spans the plot areas from the first row's top to the last row's bottom, right of the grid.
    float y0 = out.height, y1 = 0;
    for (const AxesFrame& f : out.frames) y0 = std::min(y0, f.plot.y0), y1 = std::max(y1, f.plot.y1);
    const float grid_right = pad + cw * float(cols) - pad;
    draw_colorbar(b, shared, {grid_right - 1, y0, grid_right, y1});
  }
  return out;
}

}  // namespace tw::plot