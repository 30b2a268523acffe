// Items, legend and colour bar of one axes, as primitives (see layout_internal.h).
#include <algorithm>
#include <cstring>

#include "core/base/i18n.h"
#include "views/plot/layout_internal.h"
#include "views/plot/text.h"

namespace tw::plot::detail {

// [SECTION] Clutter: how much of the items a box would hide (legend and label placement)
namespace {

float overlap_area(const Rect& a, const Rect& b) {
  const float w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  return w > 0 && h > 0 ? w * h : 0.0f;
}

bool inside(const Rect& r, Vec2 p) { return p.x >= r.x0 && p.x <= r.x1 && p.y >= r.y0 && p.y <= r.y1; }

// How much of the items a box would hide, in rough "pixels of ink": stroked lines are sampled every 3 px, filled
// shapes and text count by covered area. Heatmap images count lightly: they fill every corner alike.
float clutter(const Layout& out, size_t begin, size_t end, const Rect& box) {
  float score = 0;
  for (size_t i = begin; i < end; ++i) {
    const Primitive& p = out.prims[i];
    switch (p.kind) {
      case PrimKind::Polyline: {
        const size_t n = p.points.size();
        for (size_t k = 0; k + 1 < n + (p.closed ? 1 : 0); ++k) {
          const Vec2 a = p.points[k], c = p.points[(k + 1) % n];
          const int steps = std::max(1, static_cast<int>(std::hypot(c.x - a.x, c.y - a.y) / 3.0f));
          for (int s = 0; s <= steps; ++s) {
            const float t = static_cast<float>(s) / static_cast<float>(steps);
            if (inside(box, {a.x + (c.x - a.x) * t, a.y + (c.y - a.y) * t})) score += 3;
          }
        }
        break;
      }
      case PrimKind::Polygon: {
        Rect bounds{p.points[0].x, p.points[0].y, p.points[0].x, p.points[0].y};
        for (const Vec2& q : p.points)
          bounds = {std::min(bounds.x0, q.x), std::min(bounds.y0, q.y), std::max(bounds.x1, q.x),
                    std::max(bounds.y1, q.y)};
        score += std::max(overlap_area(bounds, box), inside(box, p.points[0]) ? 9.0f : 0.0f);
        break;
      }
      case PrimKind::Rect: score += overlap_area(p.rect, box); break;
      case PrimKind::Text: {
        const float w = label_width(p.text, p.size), h = p.size;
        const float x0 = p.vertical ? p.pos.x - h * p.align_y : p.pos.x - w * p.align_x;
        const float y0 = p.vertical ? p.pos.y - w * (1 - p.align_x) : p.pos.y - h * p.align_y;
        score += 2 * overlap_area(p.vertical ? Rect{x0, y0, x0 + h, y0 + w} : Rect{x0, y0, x0 + w, y0 + h}, box);
        break;
      }
      case PrimKind::Image: score += 0.05f * overlap_area(p.rect, box); break;
    }
  }
  return score;
}

}  // namespace

// [SECTION] Items

void draw_line_item(Builder& b, const AxesFrame& f, const LineItem& l, uint32_t color,
                    std::vector<LegendEntry>* legend) {
  const float width = l.width > 0 ? l.width : b.th.line_width;
  if (l.style != LineStyle::Scatter) {
    std::vector<Vec2> run;
    auto flush = [&] {
      if (run.size() >= 2) b.stroke(run, color, width, l.dashed);
      run.clear();
    };
    for (size_t i = 0; i < l.xs.size(); ++i) {
      const bool ok = std::isfinite(l.xs[i]) && std::isfinite(l.ys[i]) && (f.x_scale == Scale::Linear || l.xs[i] > 0) &&
                      (f.y_scale == Scale::Linear || l.ys[i] > 0);
      if (!ok) {
        flush();
        continue;
      }
      const Vec2 p = f.to_pixel(l.xs[i], l.ys[i]);
      // Repeated points make zero-length segments, which thick-line renderers turn into spikes.
      auto push = [&run](Vec2 q) {
        if (run.empty() || std::fabs(q.x - run.back().x) > 1e-3f || std::fabs(q.y - run.back().y) > 1e-3f)
          run.push_back(q);
      };
      if (l.style == LineStyle::Step && !run.empty()) push({p.x, run.back().y});  // hold y until the next x
      push(p);
    }
    flush();
  }
  if (l.style == LineStyle::Scatter || l.style == LineStyle::LineAndMarkers) {
    for (size_t i = 0; i < l.xs.size(); ++i)
      if (std::isfinite(l.xs[i]) && std::isfinite(l.ys[i]))
        b.disc(f.to_pixel(l.xs[i], l.ys[i]), b.th.marker_size, color);
  }
  if (!l.label.empty())
    legend->push_back({l.label, color,
                       l.style == LineStyle::Scatter ? LegendEntry::Marker
                       : l.dashed                    ? LegendEntry::Dashed
                                                     : LegendEntry::Line});
}

void draw_bars(Builder& b, const AxesFrame& f, const BarsItem& bars, Palette& palette,
               std::vector<LegendEntry>* legend) {
  const size_t ns = std::max<size_t>(1, bars.series.size());
  const double group_width = 0.8, bar = group_width / double(ns);
  const double base = f.y_scale == Scale::Log10 ? std::min(f.y0, f.y1) : 0.0;
  for (size_t s = 0; s < bars.series.size(); ++s) {
    const uint32_t color = palette.take();
    for (size_t g = 0; g < bars.groups.size(); ++g) {
      const double v = bars.values[s][g];
      if (!std::isfinite(v)) continue;
      const double x0 = double(g) - group_width / 2 + bar * double(s) + bar * 0.05;
      const Vec2 p0 = f.to_pixel(x0, base), p1 = f.to_pixel(x0 + bar * 0.9, v);
      b.rect({std::min(p0.x, p1.x), std::min(p0.y, p1.y), std::max(p0.x, p1.x), std::max(p0.y, p1.y)}, color);
    }
    if (!bars.series[s].empty()) legend->push_back({bars.series[s], color, LegendEntry::Patch});
  }
}

void draw_histogram(Builder& b, const AxesFrame& f, const HistogramItem& h, uint32_t color,
                    std::vector<LegendEntry>* legend) {
  const HistogramBins bins = bin_histogram(h);
  const double w = (bins.hi - bins.lo) / double(bins.counts.size());
  const double base = f.y_scale == Scale::Log10 ? std::min(f.y0, f.y1) : 0.0;
  for (size_t k = 0; k < bins.counts.size(); ++k) {
    if (bins.counts[k] <= 0) continue;
    const Vec2 p0 = f.to_pixel(bins.lo + w * double(k), base),
               p1 = f.to_pixel(bins.lo + w * double(k + 1), bins.counts[k]);
    const Rect r{std::min(p0.x, p1.x), std::min(p0.y, p1.y), std::max(p0.x, p1.x), std::max(p0.y, p1.y)};
    b.rect(r, with_alpha(color, 200));
    b.outline(r, color, 1.0f);
  }
  if (!h.label.empty()) legend->push_back({h.label, color, LegendEntry::Patch});
}

// The colour-scale range of a heatmap: explicit, or the finite data range (Diverging: symmetric around 0).
void heatmap_range(const HeatmapItem& h, const HeatmapScan& scan, double* vmin, double* vmax) {
  double lo = scan.lo, hi = scan.hi;
  if (!(lo <= hi)) lo = 0, hi = 1;
  if (std::isfinite(h.options.vmin)) lo = h.options.vmin;
  if (std::isfinite(h.options.vmax)) hi = h.options.vmax;
  if (h.options.colormap == Colormap::Diverging) {
    const double m = std::max(std::fabs(lo), std::fabs(hi));
    lo = -m, hi = m;
  }
  if (!(hi > lo)) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.01);
  *vmin = lo;
  *vmax = hi;
}

void draw_heatmap(Builder& b, const AxesFrame& f, const HeatmapItem& h) {
  if (h.rows <= 0 || h.cols <= 0) return;
  const double xa = std::min(f.x0, f.x1), xb = std::max(f.x0, f.x1);
  const double ya = std::min(f.y0, f.y1), yb = std::max(f.y0, f.y1);
  const int j0 = std::max(0, static_cast<int>(std::floor(xa + 0.5))),
            j1 = std::min(h.cols - 1, static_cast<int>(std::ceil(xb - 0.5)));
  const int i0 = std::max(0, static_cast<int>(std::floor(ya + 0.5))),
            i1 = std::min(h.rows - 1, static_cast<int>(std::ceil(yb - 0.5)));
  if (j0 > j1 || i0 > i1) return;
  ImageRef ref;
  ref.heatmap = &h;
  ref.colormap = h.options.colormap;
  const HeatmapScan& scan = b.scan(h);
  heatmap_range(h, scan, &ref.vmin, &ref.vmax);
  ref.row0 = i0, ref.col0 = j0, ref.rows = i1 - i0 + 1, ref.cols = j1 - j0 + 1;
  const uint64_t k = scan.hash;
  double mm[2] = {ref.vmin, ref.vmax};
  uint64_t bits[2];
  std::memcpy(bits, mm, sizeof bits);
  ref.key = (k ^ (bits[0] * 31) ^ (bits[1] * 131) ^ uint64_t(ref.colormap)) | 1;
  // The image rect covers the visible cell block; cell (i0, j0) sits at corner `a`, so the flips follow the axes.
  const Vec2 a = f.to_pixel(j0 - 0.5, i0 - 0.5), c = f.to_pixel(j1 + 0.5, i1 + 0.5);
  ref.flip_x = a.x > c.x;
  ref.flip_y = a.y > c.y;
  b.image({std::min(a.x, c.x), std::min(a.y, c.y), std::max(a.x, c.x), std::max(a.y, c.y)}, ref);
}

void draw_arrow(Builder& b, const AxesFrame& f, const ArrowItem& ar, uint32_t color, std::vector<LegendEntry>* legend) {
  const Vec2 p0 = f.to_pixel(ar.x0, ar.y0), p1 = f.to_pixel(ar.x1, ar.y1);
  const float dx = p1.x - p0.x, dy = p1.y - p0.y, len = std::hypot(dx, dy);
  const float w = b.th.line_width;
  if (len < 0.5f) {
    b.disc(p0, w * 1.5f, color);
  } else {
    const float head = std::min(len * 0.45f, 6.0f + 2.5f * w), half = head * 0.45f;
    const float ux = dx / len, uy = dy / len;
    const Vec2 base{p1.x - ux * head, p1.y - uy * head};
    b.polyline({p0, {base.x + ux * 0.5f, base.y + uy * 0.5f}}, color, w);
    b.polygon({p1, {base.x - uy * half, base.y + ux * half}, {base.x + uy * half, base.y - ux * half}}, color);
  }
  if (!ar.label.empty()) legend->push_back({ar.label, color, LegendEntry::Line});
}

std::vector<Vec2> arc_points(const AxesFrame& f, double cx, double cy, double r, double a0, double a1) {
  std::vector<Vec2> pts;
  const int n = std::max(8, static_cast<int>(std::fabs(a1 - a0) / (2 * M_PI) * 128));
  for (int k = 0; k <= n; ++k) {
    const double a = a0 + (a1 - a0) * k / n;
    pts.push_back(f.to_pixel(cx + r * std::cos(a), cy + r * std::sin(a)));
  }
  return pts;
}

// A vertical marker's label goes beside the line at the top or bottom of the plot, on whichever side fits inside
// the plot and hides the least of what is drawn so far; a backing box keeps it legible over curves.
namespace {
// A horizontal marker's label: above or below its line, at the plot's right or left end, inside the plot area and
// clear of the labels of lines close by (two baselines a hair apart, e.g. a base model and its fine-tune), where it
// hides the least of the curves (a uniform baseline's label sat on the curve that reaches it).
void draw_hline_label(Builder& b, const AxesFrame& f, size_t items_begin, const MarkerLabel& m, const Rect* avoid,
                      HLineLabelSpans& spans) {
  const float y = m.y, fs = b.th.tick_size, w = label_width(m.label, fs);
  const float h = label_height(m.label, fs) + 6;  // 3 px either side
  const auto free = [&](float top) {
    if (top < f.plot.y0 || top + h > f.plot.y1) return false;
    for (const auto& [t0, t1] : spans)
      if (top < t1 && t0 < top + h) return false;
    return true;
  };
  // The label's box with its top at `top`, right-aligned at the plot's right end or left-aligned at its left end.
  const auto box = [&](float top, bool right) {
    const float x0 = right ? f.plot.x1 - 4 - w : f.plot.x0 + 4;
    return Rect{x0 - 2, top + 1, x0 + w + 2, top + h - 1};
  };
  float best_top = NAN;
  bool best_right = true;
  float best_score = INFINITY;
  if (w + 8 <= f.plot.width())
    for (const bool right : {true, false})
      for (const float top : {y - h, y}) {  // above the line first
        if (!free(top)) continue;
        float score = clutter(b.out, items_begin, b.out.prims.size(), box(top, right));
        if (avoid) score += 100 * overlap_area(box(top, right), *avoid);
        if (score < best_score - 0.5f) best_top = top, best_right = right, best_score = score;
      }
  if (std::isnan(best_top)) {
    // Neither side free: step past the labels in the way, upwards, then downwards.
    const auto step = [&](float top, float dir) {
      for (size_t guard = 0; guard <= spans.size() && !free(top); ++guard)
        for (const auto& [t0, t1] : spans)
          if (top < t1 && t0 < top + h) top = dir < 0 ? t0 - h : t1;
      return top;
    };
    best_top = step(y - h, -1);
    if (!free(best_top)) best_top = step(y, 1);
    if (!free(best_top)) best_top = y - h;  // no room anywhere: above the line, as it always was
  }
  spans.emplace_back(best_top, best_top + h);
  if (best_right)
    b.text({f.plot.x1 - 4, best_top + h - 3}, m.label, fs, m.color, 1, 1);
  else
    b.text({f.plot.x0 + 4, best_top + h - 3}, m.label, fs, m.color, 0, 1);
}
}  // namespace

void draw_marker_label(Builder& b, const AxesFrame& f, size_t items_begin, const MarkerLabel& m, const Rect* avoid,
                       HLineLabelSpans* spans) {
  if (m.horizontal) {
    HLineLabelSpans none;
    return draw_hline_label(b, f, items_begin, m, avoid, spans ? *spans : none);
  }
  const float x = m.x;
  const std::string& label = m.label;
  const float fs = b.th.tick_size, w = label_width(label, fs), pad = 2;
  struct Spot {
    float x0, y0;
  };
  // Top first, then bottom, then three heights between; right of the line before left.
  std::vector<Spot> spots;
  const float y_top = f.plot.y0 + 3, y_bottom = f.plot.y1 - 3 - fs;
  for (const float t : {0.0f, 1.0f, 0.25f, 0.5f, 0.75f})
    for (const float sx : {x + 4, x - 4 - w}) spots.push_back({sx, y_top + (y_bottom - y_top) * t});
  const Spot* best = nullptr;
  float best_score = INFINITY;
  for (const Spot& s : spots) {
    if (s.x0 - pad < f.plot.x0 || s.x0 + w + pad > f.plot.x1) continue;
    const Rect box{s.x0 - pad, s.y0 - pad, s.x0 + w + pad, s.y0 + fs + pad};
    float score = clutter(b.out, items_begin, b.out.prims.size(), box);
    if (avoid) score += 100 * overlap_area(box, *avoid);  // never under the legend
    if (score < best_score - 0.5f) best = &s, best_score = score;
  }
  const Spot at = best ? *best : spots[1];  // no side fits: left of the line, clipped by the frame
  b.rect({at.x0 - pad, at.y0 - pad, at.x0 + w + pad, at.y0 + fs + pad}, b.th.legend_background);
  b.text({at.x0, at.y0}, label, fs, m.color, 0, 0);
}

void draw_items(Builder& b, const AxesFrame& f, const Axes& axes, std::vector<LegendEntry>* legend,
                std::vector<MarkerLabel>* labels) {
  const size_t items_begin = b.out.prims.size();
  HLineLabelSpans hline_labels;  // (top, bottom) of each horizontal marker's label drawn at once
  Palette palette;
  for (const Item& it : axes.items) {  // count first: a crowded axes gets a graded scheme, not repeats
    if (const auto* l = std::get_if<LineItem>(&it)) palette.count += l->color == 0;
    if (const auto* h = std::get_if<HistogramItem>(&it)) palette.count += h->color == 0;
    if (const auto* ar = std::get_if<ArrowItem>(&it)) palette.count += ar->color == 0;
    if (const auto* bars = std::get_if<BarsItem>(&it)) palette.count += static_cast<int>(bars->series.size());
  }
  // The width of one heatmap cell on screen (0 without a heatmap): text centred on a cell must fit in it.
  float cell_width = 0;
  for (const Item& it : axes.items)
    if (std::holds_alternative<HeatmapItem>(it)) cell_width = std::fabs(f.to_pixel(1, 0).x - f.to_pixel(0, 0).x);
  for (const Item& it : axes.items) {
    if (const auto* l = std::get_if<LineItem>(&it)) {
      draw_line_item(b, f, *l, item_color(l->color, palette), legend);
    } else if (const auto* bars = std::get_if<BarsItem>(&it)) {
      draw_bars(b, f, *bars, palette, legend);
    } else if (const auto* h = std::get_if<HistogramItem>(&it)) {
      draw_histogram(b, f, *h, item_color(h->color, palette), legend);
    } else if (const auto* hm = std::get_if<HeatmapItem>(&it)) {
      draw_heatmap(b, f, *hm);
    } else if (const auto* ar = std::get_if<ArrowItem>(&it)) {
      draw_arrow(b, f, *ar, item_color(ar->color, palette), legend);
    } else if (const auto* c = std::get_if<CircleItem>(&it)) {
      b.stroke(arc_points(f, c->cx, c->cy, c->r, 0, 2 * M_PI), c->color ? c->color : b.th.faint, b.th.frame_width,
               c->dashed);
    } else if (const auto* arc = std::get_if<ArcItem>(&it)) {
      const uint32_t color = arc->color ? arc->color : b.th.text;
      b.polyline(arc_points(f, arc->cx, arc->cy, arc->r, arc->a0, arc->a1), color, b.th.frame_width);
      // Label just outside the arc's midpoint, its box extending away from the centre so it clears the arc.
      const double mid = 0.5 * (arc->a0 + arc->a1);
      const Vec2 c0 = f.to_pixel(arc->cx, arc->cy);
      const double label_r = arc->label_r > 0 ? arc->label_r : arc->r;
      const Vec2 m = f.to_pixel(arc->cx + label_r * std::cos(mid), arc->cy + label_r * std::sin(mid));
      const float dx = m.x - c0.x, dy = m.y - c0.y, len = std::max(1e-3f, std::hypot(dx, dy));
      Vec2 at{m.x + dx / len * 5, m.y + dy / len * 5};
      // Kept inside the plot: a label pointing right from a narrow plot (the RoPE plane beside a lesson at 200%) ran
      // past the frame and was cut. Its box moves left, still clear of the arc where the plot is wide enough.
      const float w = label_width(arc->label, b.th.tick_size), ax_ = 0.5f - 0.5f * dx / len;
      const float left = std::clamp(at.x - ax_ * w, f.plot.x0 + 2, std::max(f.plot.x0 + 2, f.plot.x1 - 2 - w));
      at.x = left + ax_ * w;
      b.text(at, arc->label, b.th.tick_size, color, ax_, 0.5f - 0.5f * dy / len);
    } else if (const auto* t = std::get_if<TextItem>(&it)) {
      // A label centred on a heatmap cell (a token in the logit lens) is shortened to the cell's width, or left out
      // when not even "…" fits: at 31 positions the labels ran into each other. The hover readout has it whole.
      std::string shown = t->text;
      if (cell_width > 0 && t->align_x == 0.5f && label_width(shown, b.th.tick_size) > cell_width - 2) {
        shown = fit_text(shown, b.th.tick_size, cell_width - 2);
        if (label_width(shown, b.th.tick_size) > cell_width - 2) continue;
      }
      b.text(f.to_pixel(t->x, t->y), shown, b.th.tick_size, t->color ? t->color : b.th.text, t->align_x, t->align_y);
    } else if (const auto* m = std::get_if<MarkerLineItem>(&it)) {
      const uint32_t color = m->color ? m->color : b.th.marker;
      if (m->vertical) {
        const float x = f.to_pixel(m->value, f.y0).x;
        b.stroke({{x, f.plot.y0}, {x, f.plot.y1}}, color, b.th.frame_width, m->dashed);
        if (!m->label.empty()) {
          if (labels)
            labels->push_back({x, m->label, color});
          else
            draw_marker_label(b, f, items_begin, {x, m->label, color}, nullptr, nullptr);
        }
      } else {
        const float y = f.to_pixel(f.x0, m->value).y;
        b.stroke({{f.plot.x0, y}, {f.plot.x1, y}}, color, b.th.frame_width, m->dashed);
        if (!m->label.empty()) {
          const MarkerLabel label{0, m->label, color, true, y};
          if (labels)
            labels->push_back(label);
          else
            draw_marker_label(b, f, items_begin, label, nullptr, &hline_labels);
        }
      }
    }
  }
}

// [SECTION] Legend and colour bar
// The legend's rows: each as tall as its label (a fraction or a radical makes a taller row than plain text), with
// the same gap between rows. Both the size and the drawing come from here, so a tall entry never overlaps the next.
namespace {
constexpr float kLegendSwatch = 20, kLegendPad = 6;
float legend_gap(float fs) { return fs * 0.45f; }
float legend_row_height(const LegendEntry& e, float fs) { return std::max(fs, label_height(e.label, fs)); }
}  // namespace

Vec2 legend_size(const FigureTheme& th, const std::vector<LegendEntry>& entries) {
  const float fs = th.tick_size;
  float widest = 0, rows = 0;
  for (const auto& e : entries) {
    widest = std::max(widest, label_width(e.label, fs));
    rows += legend_row_height(e, fs);
  }
  const float gaps = entries.empty() ? 0 : legend_gap(fs) * float(entries.size() - 1);
  return {kLegendPad * 2 + kLegendSwatch + 6 + widest, kLegendPad * 2 + rows + gaps};
}

namespace {
// One entry: its swatch from x `sx`, swatch and label centred on `y`.
void draw_legend_entry(Builder& b, const LegendEntry& e, float sx, float y) {
  const float fs = b.th.tick_size, swatch = kLegendSwatch;
  switch (e.kind) {
    case LegendEntry::Line: b.polyline({{sx, y}, {sx + swatch, y}}, e.color, b.th.line_width); break;
    case LegendEntry::Dashed: b.dashed({{sx, y}, {sx + swatch, y}}, e.color, b.th.line_width); break;
    case LegendEntry::Marker: b.disc({sx + swatch / 2, y}, b.th.marker_size + 0.5f, e.color); break;
    case LegendEntry::Patch: b.rect({sx + 3, y - fs * 0.38f, sx + swatch - 3, y + fs * 0.38f}, e.color); break;
  }
  b.text({sx + swatch + 6, y}, e.label, fs, b.th.text, 0, 0.5f);
}
void draw_legend_box(Builder& b, const Rect& box) {
  b.rect(box, b.th.legend_background);
  b.outline(box, with_alpha(b.th.frame, 110), 1.0f);
}
float legend_entry_width(const LegendEntry& e, float fs) { return kLegendSwatch + 6 + label_width(e.label, fs); }

// Entries side by side, a new row when the next would pass `max_width` (inside the padding): each row's entries
// as [first, end) and the row's height.
struct LegendRow {
  size_t first = 0, end = 0;
  float width = 0, height = 0;
};
std::vector<LegendRow> legend_rows(const std::vector<LegendEntry>& entries, float fs, float max_width) {
  const float between = 2 * fs;  // between two entries of a row
  std::vector<LegendRow> rows;
  for (size_t i = 0; i < entries.size(); ++i) {
    const float w = legend_entry_width(entries[i], fs), h = legend_row_height(entries[i], fs);
    if (rows.empty() || rows.back().width + between + w > max_width - 2 * kLegendPad) {
      rows.push_back({i, i + 1, w, h});
      continue;
    }
    LegendRow& r = rows.back();
    r.end = i + 1;
    r.width += between + w;
    r.height = std::max(r.height, h);
  }
  return rows;
}
}  // namespace

void draw_legend(Builder& b, const std::vector<LegendEntry>& entries, Vec2 top_left) {
  if (entries.empty()) return;
  const float fs = b.th.tick_size, pad = kLegendPad;
  const Vec2 size = legend_size(b.th, entries);
  const Rect box{top_left.x, top_left.y, top_left.x + size.x, top_left.y + size.y};
  draw_legend_box(b, box);
  float top = box.y0 + pad;
  for (const auto& e : entries) {
    const float h = legend_row_height(e, fs);
    draw_legend_entry(b, e, box.x0 + pad, top + h * 0.5f);
    top += h + legend_gap(fs);
  }
}

Vec2 legend_rows_size(const FigureTheme& th, const std::vector<LegendEntry>& entries, float max_width) {
  const float fs = th.tick_size;
  float w = 0, h = 0;
  const std::vector<LegendRow> rows = legend_rows(entries, fs, max_width);
  for (const LegendRow& r : rows) w = std::max(w, r.width), h += r.height;
  if (!rows.empty()) h += legend_gap(fs) * float(rows.size() - 1);
  return {w + 2 * kLegendPad, h + 2 * kLegendPad};
}

Rect draw_legend_rows(Builder& b, const std::vector<LegendEntry>& entries, Vec2 top_centre, float max_width) {
  const float fs = b.th.tick_size, between = 2 * fs;
  const Vec2 size = legend_rows_size(b.th, entries, max_width);
  const Rect box{top_centre.x - size.x / 2, top_centre.y, top_centre.x + size.x / 2, top_centre.y + size.y};
  if (entries.empty()) return box;
  draw_legend_box(b, box);
  float top = box.y0 + kLegendPad;
  for (const LegendRow& r : legend_rows(entries, fs, max_width)) {
    float x = top_centre.x - r.width / 2;  // each row centred
    for (size_t i = r.first; i < r.end; ++i) {
      draw_legend_entry(b, entries[i], x, top + r.height * 0.5f);
      x += legend_entry_width(entries[i], fs) + between;
    }
    top += r.height + legend_gap(fs);
  }
  return box;
}

bool covers_items(const Layout& out, size_t begin, size_t end, const Rect& box) {
  for (size_t i = begin; i < end; ++i) {
    const Primitive& p = out.prims[i];
    if (p.kind == PrimKind::Image) continue;
    Layout one;
    one.prims.push_back(p);
    if (clutter(one, 0, 1, box) > 0) return true;
  }
  return false;
}

Vec2 place_legend(const Layout& out, size_t begin, size_t end, const Rect& plot, Vec2 size) {
  const float m = 6;  // margin from the frame
  const Vec2 corners[] = {{plot.x1 - m - size.x, plot.y0 + m},
                          {plot.x0 + m, plot.y0 + m},
                          {plot.x1 - m - size.x, plot.y1 - m - size.y},
                          {plot.x0 + m, plot.y1 - m - size.y}};
  Vec2 best = corners[0];
  float best_score = INFINITY;
  for (const Vec2& c : corners) {
    const float score = clutter(out, begin, end, {c.x, c.y, c.x + size.x, c.y + size.y});
    if (score < best_score - 0.5f) best = c, best_score = score;
  }
  return best;
}

const char* const kMaskedLabel = N_("\xE2\x88\x92\xE2\x88\x9E masked");  // "−∞ masked", translated where drawn

float colorbar_block_width(const FigureTheme& th, const ColorBarSpec& cb) {
  if (!cb.heatmap->options.levels.empty()) {  // a swatch and its name per level
    float widest = cb.masked ? label_width(tr(kMaskedLabel), th.tick_size) : 0;
    for (const std::string& name : cb.heatmap->options.levels)
      widest = std::max(widest, label_width(name, th.tick_size));
    return 12 + th.colorbar_width + 5 + widest;
  }
  float w = 12 + th.colorbar_width + th.tick_length + 3 + cb.tick_width;
  if (!cb.heatmap->options.value_label.empty()) w += th.label_size * 1.3f;
  if (cb.masked) w = std::max(w, 12 + th.colorbar_width + 5 + label_width(tr(kMaskedLabel), th.tick_size));
  return w;
}

void draw_colorbar(Builder& b, const ColorBarSpec& cb, const Rect& plot) {
  const FigureTheme& th = b.th;
  if (!cb.heatmap->options.levels.empty()) {  // discrete legend: one swatch per named value, top down
    const auto& levels = cb.heatmap->options.levels;
    const float row = std::max(th.colorbar_width, th.tick_size) + 6;
    float y = plot.y0;
    auto swatch = [&](uint32_t color, const std::string& name) {
      const Rect sw{plot.x1 + 12, y, plot.x1 + 12 + th.colorbar_width, y + th.colorbar_width};
      b.rect(sw, color);
      b.outline(sw, th.frame, th.frame_width);
      b.text({sw.x1 + 5, (sw.y0 + sw.y1) / 2}, name, th.tick_size, th.text, 0, 0.5f);
      y += row;
    };
    for (size_t k = levels.size(); k-- > 0;)
      swatch(cell_color(cb.heatmap->options.colormap, double(k), cb.vmin, cb.vmax), levels[k]);
    if (cb.masked) swatch(kMaskedColor, tr(kMaskedLabel));
    return;
  }
  const float swatch_h = cb.masked ? th.colorbar_width + 8 : 0;
  const Rect bar{plot.x1 + 12, plot.y0, plot.x1 + 12 + th.colorbar_width, plot.y1 - swatch_h};
  if (bar.height() < 8) return;
  ImageRef ref;
  ref.colormap = cb.heatmap->options.colormap;
  ref.vmin = cb.vmin;
  ref.vmax = cb.vmax;
  ref.key = 0x5CA1Eull + uint64_t(ref.colormap);
  b.image(bar, ref);
  b.outline(bar, th.frame, th.frame_width);
  for (const Tick& t : cb.ticks) {
    const double pos = (t.value - cb.vmin) / (cb.vmax - cb.vmin);
    const float y = bar.y1 - static_cast<float>(pos) * bar.height();
    b.polyline({{bar.x1, y}, {bar.x1 + th.tick_length, y}}, th.frame, th.frame_width);
    b.text({bar.x1 + th.tick_length + 3, y}, t.label, th.tick_size, th.text, 0, 0.5f);
  }
  if (!cb.heatmap->options.value_label.empty())
    b.label({bar.x1 + th.tick_length + 3 + cb.tick_width + th.label_size * 0.25f, (bar.y0 + bar.y1) / 2},
            cb.heatmap->options.value_label, th.label_size, bar.height(), th.text, 0.5f, 0, true, "colour bar label");
  if (cb.masked) {
    // Masked cells get their own legend entry in the same grey, so the grey is never read off the scale.
    const Rect sw{bar.x0, plot.y1 - th.colorbar_width, bar.x1, plot.y1};
    b.rect(sw, kMaskedColor);
    b.outline(sw, th.frame, th.frame_width);
    b.text({sw.x1 + 5, (sw.y0 + sw.y1) / 2}, tr(kMaskedLabel), th.tick_size, th.text, 0, 0.5f);
  }
}

}  // namespace tw::plot::detail
