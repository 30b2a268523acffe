#include "views/plot/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace tw::plot {

// [SECTION] Axes
Axes& Axes::setup(std::string x_label, std::string x_unit, std::string y_label, std::string y_unit) {
  x.label = std::move(x_label);
  x.unit = std::move(x_unit);
  y.label = std::move(y_label);
  y.unit = std::move(y_unit);
  return *this;
}

namespace {
// Appends `item` and returns it where it now lives, so the caller can go on styling it (`.dashed = true`).
template <class T>
T& push(std::vector<Item>& items, T item) {
  items.emplace_back(std::move(item));
  return std::get<T>(items.back());
}

LineItem& add_line(std::vector<Item>& items, std::string label, std::vector<double> xs, std::vector<double> ys,
                   LineStyle style) {
  LineItem l;
  l.label = std::move(label);
  const size_t n = std::min(xs.size(), ys.size());  // mismatched lengths: plot the common prefix
  xs.resize(n);
  ys.resize(n);
  l.xs = std::move(xs);
  l.ys = std::move(ys);
  l.style = style;
  return push(items, std::move(l));
}
}  // namespace

LineItem& Axes::line(std::string label, std::vector<double> xs, std::vector<double> ys) {
  return add_line(items, std::move(label), std::move(xs), std::move(ys), LineStyle::Line);
}
LineItem& Axes::step(std::string label, std::vector<double> xs, std::vector<double> ys) {
  return add_line(items, std::move(label), std::move(xs), std::move(ys), LineStyle::Step);
}
LineItem& Axes::scatter(std::string label, std::vector<double> xs, std::vector<double> ys) {
  return add_line(items, std::move(label), std::move(xs), std::move(ys), LineStyle::Scatter);
}

BarsItem& Axes::bars(std::vector<std::string> groups, std::vector<std::string> series,
                     std::vector<std::vector<double>> values) {
  BarsItem b;
  values.resize(series.size());
  for (auto& v : values) v.resize(groups.size(), 0.0);
  b.groups = std::move(groups);
  b.series = std::move(series);
  b.values = std::move(values);
  x.categories = b.groups;
  return push(items, std::move(b));
}

HistogramItem& Axes::histogram(std::string label, std::vector<double> values, int bins) {
  return push(
      items, HistogramItem{.label = std::move(label), .values = std::move(values), .bins = std::clamp(bins, 1, 10000)});
}

HeatmapItem& Axes::add_heatmap(HeatmapItem item) {
  y.invert = true;  // row 0 at the top, as the matrix is written
  return push(items, std::move(item));
}

ArrowItem& Axes::arrow(std::string label, double x0, double y0, double x1, double y1, uint32_t color) {
  return push(items, ArrowItem{.label = std::move(label), .x0 = x0, .y0 = y0, .x1 = x1, .y1 = y1, .color = color});
}

CircleItem& Axes::circle(double cx, double cy, double r) { return push(items, CircleItem{.cx = cx, .cy = cy, .r = r}); }

ArcItem& Axes::arc(std::string label, double cx, double cy, double r, double a0, double a1) {
  return push(items, ArcItem{.label = std::move(label), .cx = cx, .cy = cy, .r = r, .a0 = a0, .a1 = a1});
}

TextItem& Axes::text(std::string text, double x_, double y_) {
  return push(items, TextItem{.text = std::move(text), .x = x_, .y = y_});
}

MarkerLineItem& Axes::vline(std::string label, double x_) { return marker_line(std::move(label), x_, true); }
MarkerLineItem& Axes::hline(std::string label, double y_) { return marker_line(std::move(label), y_, false); }

MarkerLineItem& Axes::marker_line(std::string label, double value, bool vertical) {
  return push(items, MarkerLineItem{.label = std::move(label), .value = value, .vertical = vertical});
}

// [SECTION] Figure
Axes& Figure::axes() {
  if (grid.empty()) grid.emplace_back();
  return grid.back();
}

Axes& Figure::add_axes(std::string title_) {
  grid.emplace_back();
  grid.back().title = std::move(title_);
  return grid.back();
}

bool Figure::empty() const {
  for (const Axes& a : grid)
    if (!a.items.empty()) return false;
  return true;
}

bool valid_figure_id(const std::string& id) {
  if (id.empty() || id == "." || id == "..") return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

HistogramBins bin_histogram(const HistogramItem& h) {
  HistogramBins b;
  double lo = h.min, hi = h.max;
  if (std::isnan(lo) || std::isnan(hi)) {
    double dlo = INFINITY, dhi = -INFINITY;
    for (double v : h.values)
      if (std::isfinite(v)) dlo = std::min(dlo, v), dhi = std::max(dhi, v);
    if (std::isnan(lo)) lo = std::isfinite(dlo) ? dlo : 0;
    if (std::isnan(hi)) hi = std::isfinite(dhi) ? dhi : lo + 1;
  }
  if (!(hi > lo)) hi = lo + 1;  // all samples equal: one unit wide so the bar is visible
  b.lo = lo;
  b.hi = hi;
  const int n = std::max(1, h.bins);
  b.counts.assign(size_t(n), 0.0);
  size_t used = 0;
  for (double v : h.values) {
    if (!std::isfinite(v) || v < lo || v > hi) {
      ++b.skipped;
      continue;
    }
    const int k = std::min(n - 1, static_cast<int>((v - lo) / (hi - lo) * n));  // the last bin includes hi
    b.counts[size_t(k)] += 1;
    ++used;
  }
  if (h.density && used > 0) {
    const double w = (hi - lo) / n;
    for (double& c : b.counts) c /= double(used) * w;
  }
  return b;
}

// [SECTION] derived CSV table
// One long ("tidy") table so any mix of items fits one header: each row is one plotted value.
// `axes` names the small multiple (its title, or its index when untitled and there are several).
namespace {

std::string column_name(const Axis& a, const char* fallback) {
  if (!a.column.empty()) return a.column;
  return a.label.empty() ? fallback : a.title();
}

// The x and y column names: the axes' labels when every axes agrees and they differ (the usual case), else x and y.
// (Returned fresh rather than assigned over: GCC 12 reports a false -Wrestrict on `name = "x"` here.)
std::pair<std::string, std::string> xy_column_names(const Figure& fig) {
  if (fig.grid.empty()) return {"x", "y"};
  std::string x = column_name(fig.grid[0].x, "x"), y = column_name(fig.grid[0].y, "y");
  for (const Axes& a : fig.grid)
    if (column_name(a.x, "x") != x || column_name(a.y, "y") != y) return {"x", "y"};
  if (x == y) return {"x", "y"};
  return {std::move(x), std::move(y)};
}

}  // namespace

void for_each_table_row(const Figure& fig, const std::function<void(std::span<const CellRef>)>& header,
                        const std::function<void(std::span<const CellRef>)>& row_out) {
  if (!fig.table.empty()) {
    std::vector<CellRef> cells;
    for (const std::string& h : fig.table.header) cells.emplace_back(std::string_view(h));
    header(cells);
    for (const auto& r : fig.table.rows) {
      cells.clear();
      for (const Cell& c : r) {
        if (const double* d = std::get_if<double>(&c))
          cells.emplace_back(*d);
        else
          cells.emplace_back(std::string_view(std::get<std::string>(c)));
      }
      row_out(cells);
    }
    return;
  }
  const bool multi = fig.grid.size() > 1;
  const auto [xname, yname] = xy_column_names(fig);
  const CellRef head[] = {std::string_view("axes"), std::string_view("item"), std::string_view("kind"),
                          std::string_view(xname),  std::string_view(yname),  std::string_view("value")};
  header(head);
  const CellRef none = std::string_view();
  for (size_t ai = 0; ai < fig.grid.size(); ++ai) {
    const Axes& a = fig.grid[ai];
    const std::string axes_name = !a.title.empty() ? a.title : (multi ? std::to_string(ai) : "");
    auto row = [&](const std::string& item, const char* kind, CellRef x, CellRef y, CellRef value) {
      const CellRef cells[] = {
          std::string_view(axes_name), std::string_view(item), std::string_view(kind), x, y, value};
      row_out(cells);
    };
    for (const Item& it : a.items) {
      if (const auto* l = std::get_if<LineItem>(&it)) {
        const char* kind = l->style == LineStyle::Scatter ? "scatter" : l->style == LineStyle::Step ? "step" : "line";
        for (size_t i = 0; i < l->xs.size(); ++i) row(l->label, kind, l->xs[i], l->ys[i], none);
      } else if (const auto* b = std::get_if<BarsItem>(&it)) {
        for (size_t s = 0; s < b->series.size(); ++s)
          for (size_t g = 0; g < b->groups.size(); ++g)
            row(b->series[s], "bar", std::string_view(b->groups[g]), none, b->values[s][g]);
      } else if (const auto* h = std::get_if<HistogramItem>(&it)) {
        // Bins as drawn: x = bin lower edge, y = bin upper edge, value = count (or density).
        const HistogramBins bins = bin_histogram(*h);
        const double w = (bins.hi - bins.lo) / double(bins.counts.size());
        for (size_t k = 0; k < bins.counts.size(); ++k)
          row(h->label, "bin", bins.lo + w * double(k), bins.lo + w * double(k + 1), bins.counts[k]);
      } else if (const auto* hm = std::get_if<HeatmapItem>(&it)) {
        // x = column j, y = row i (or their tick labels when given), value = the cell.
        for (int i = 0; i < hm->rows; ++i)
          for (int j = 0; j < hm->cols; ++j) {
            CellRef xc = double(j), yc = double(i);
            if (size_t(j) < hm->options.col_labels.size()) xc = std::string_view(hm->options.col_labels[j]);
            if (size_t(i) < hm->options.row_labels.size()) yc = std::string_view(hm->options.row_labels[i]);
            row(hm->label, "cell", xc, yc, hm->data[size_t(i) * size_t(hm->cols) + size_t(j)]);
          }
      } else if (const auto* ar = std::get_if<ArrowItem>(&it)) {
        row(ar->label, "arrow_tail", ar->x0, ar->y0, none);
        row(ar->label, "arrow_head", ar->x1, ar->y1, none);
      } else if (const auto* m = std::get_if<MarkerLineItem>(&it)) {
        if (m->vertical)
          row(m->label, "vline", m->value, none, none);
        else
          row(m->label, "hline", none, m->value, none);
      } else if (const auto* arc = std::get_if<ArcItem>(&it)) {
        row(arc->label, "angle", arc->cx, arc->cy, arc->a1 - arc->a0);
      }
      // Circles and text annotations are decoration, not data.
    }
  }
}

Table figure_table(const Figure& fig) {
  if (!fig.table.empty()) return fig.table;
  Table t;
  auto owned = [](std::span<const CellRef> cells) {
    std::vector<Cell> out;
    for (const CellRef& c : cells) {
      if (const double* d = std::get_if<double>(&c))
        out.emplace_back(*d);
      else
        out.emplace_back(std::string(std::get<std::string_view>(c)));
    }
    return out;
  };
  for_each_table_row(
      fig,
      [&](std::span<const CellRef> cells) {
        for (const CellRef& c : cells) t.header.emplace_back(std::get<std::string_view>(c));
      },
      [&](std::span<const CellRef> cells) { t.rows.push_back(owned(cells)); });
  return t;
}

std::string fmt(const char* printf_format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

}  // namespace tw::plot
