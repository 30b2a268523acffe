// Hover readout: the exact value under the cursor (declared in layout.h).
#include <cmath>

#include "core/base/i18n.h"
#include "views/plot/layout.h"

namespace tw::plot {

namespace {

std::string label_or_index(const std::vector<std::string>& labels, int i) {
  std::string s = std::to_string(i);
  if (size_t(i) < labels.size() && !labels[size_t(i)].empty()) s += " (\"" + labels[size_t(i)] + "\")";
  return s;
}

// "<axis label> = value unit", or `fallback` = value when the axis has no label: readouts speak the axes' names.
std::string axis_value(const Axis& a, const char* fallback, double v) {
  std::string s = (a.label.empty() ? std::string(fallback) : a.label) + " = " + format_value(v);
  if (!a.unit.empty()) s += " " + a.unit;
  return s;
}

std::string cell_value(double v, const HeatmapOptions& o) {
  const std::string name = o.value_label.empty() ? tr("value") : o.value_label;
  if (v == -INFINITY) return name + tr(" = \xE2\x88\x92\xE2\x88\x9E (masked)");  // −∞ (masked)
  const double k = std::round(v);
  if (!o.levels.empty() && k == v && k >= 0 && k < double(o.levels.size()))
    return name + " = " + o.levels[size_t(k)] + " (" + format_value(v) + ")";
  return name + " = " + format_value(v);
}

}  // namespace

HoverInfo hover_at(const Layout& layout, Vec2 mouse, float radius) {
  HoverInfo h;
  for (size_t ai = 0; ai < layout.frames.size(); ++ai) {
    const AxesFrame& f = layout.frames[ai];
    if (!f.axes || !f.plot.contains(mouse)) continue;
    h.axes = static_cast<int>(ai);
    const double mx = f.x_from_pixel(mouse.x), my = f.y_from_pixel(mouse.y);

    // Nearest point of a line or scatter item, in pixels.
    float best = radius * radius;
    for (const Item& it : f.axes->items) {
      const auto* l = std::get_if<LineItem>(&it);
      if (!l) continue;
      for (size_t i = 0; i < l->xs.size(); ++i) {
        if (!std::isfinite(l->xs[i]) || !std::isfinite(l->ys[i])) continue;
        const Vec2 p = f.to_pixel(l->xs[i], l->ys[i]);
        const float d = (p.x - mouse.x) * (p.x - mouse.x) + (p.y - mouse.y) * (p.y - mouse.y);
        if (d < best) {
          best = d;
          h.hit = h.has_point = true;
          h.point = p;
          h.text = (l->label.empty() ? std::string() : l->label + "\n") + axis_value(f.axes->x, "$x$", l->xs[i]) +
                   "\n" + axis_value(f.axes->y, "$y$", l->ys[i]);
        }
      }
    }
    if (h.hit) return h;

    for (const Item& it : f.axes->items) {
      if (const auto* hm = std::get_if<HeatmapItem>(&it)) {
        const int j = static_cast<int>(std::floor(mx + 0.5)), i = static_cast<int>(std::floor(my + 0.5));
        if (i < 0 || j < 0 || i >= hm->rows || j >= hm->cols) continue;
        const double v = hm->data[size_t(i) * size_t(hm->cols) + size_t(j)];
        h.hit = h.has_cell = true;
        const Vec2 a = f.to_pixel(j - 0.5, i - 0.5), c = f.to_pixel(j + 0.5, i + 0.5);
        h.cell = {std::min(a.x, c.x), std::min(a.y, c.y), std::max(a.x, c.x), std::max(a.y, c.y)};
        const std::string row_name = f.axes->y.label.empty() ? tr("row $i$") : f.axes->y.label;
        const std::string col_name = f.axes->x.label.empty() ? tr("column $j$") : f.axes->x.label;
        h.text = (hm->label.empty() ? std::string() : hm->label + "\n") + row_name + " = " +
                 label_or_index(hm->options.row_labels, i) + ", " + col_name + " = " +
                 label_or_index(hm->options.col_labels, j) + "\n" + cell_value(v, hm->options);
        return h;
      }
      if (const auto* b = std::get_if<BarsItem>(&it)) {
        const size_t ns = std::max<size_t>(1, b->series.size());
        const double bar = 0.8 / double(ns);
        const int g = static_cast<int>(std::floor(mx + 0.5));
        if (g < 0 || size_t(g) >= b->groups.size()) continue;
        const double off = mx - (g - 0.4);
        if (off < 0 || off >= 0.8) continue;
        const size_t s = std::min(ns - 1, static_cast<size_t>(off / bar));
        if (s >= b->series.size()) continue;
        h.hit = true;
        h.text = b->series[s] + ", " + b->groups[size_t(g)] + "\n" +
                 axis_value(f.axes->y, tr("value"), b->values[s][size_t(g)]);
        return h;
      }
      if (const auto* hi = std::get_if<HistogramItem>(&it)) {
        const HistogramBins bins = bin_histogram(*hi);
        if (mx < bins.lo || mx > bins.hi) continue;
        const double w = (bins.hi - bins.lo) / double(bins.counts.size());
        const size_t k = std::min(bins.counts.size() - 1, static_cast<size_t>((mx - bins.lo) / w));
        h.hit = true;
        h.text = (hi->label.empty() ? std::string() : hi->label + "\n") + tr("bin") + " [" +
                 format_value(bins.lo + w * double(k)) + ", " + format_value(bins.lo + w * double(k + 1)) + ")\n" +
                 (hi->density ? tr("density = ") : tr("count = ")) + format_value(bins.counts[k]);
        return h;
      }
    }
    h.text = axis_value(f.axes->x, "$x$", mx) + "\n" + axis_value(f.axes->y, "$y$", my);
    if ((f.x_scale == Scale::Log10 && !(mx > 0)) || (f.y_scale == Scale::Log10 && !(my > 0)))
      h.text += std::string("\n") + tr("(log axis: values \xE2\x89\xA4 0 are not shown)");

    return h;
  }
  return h;
}

}  // namespace tw::plot
