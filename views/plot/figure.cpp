#include "views/plot/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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
  items.emplace_back(std::move(l));
  return std::get<LineItem>(items.back());
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
  items.emplace_back(std::move(b));
  return std::get<BarsItem>(items.back());
}

HistogramItem& Axes::histogram(std::string label, std::vector<double> values, int bins) {
  HistogramItem h;
  h.label = std::move(label);
  h.values = std::move(values);
  h.bins = std::clamp(bins, 1, 10000);
  items.emplace_back(std::move(h));
  return std::get<HistogramItem>(items.back());
}

HeatmapItem& Axes::add_heatmap(HeatmapItem item) {
  y.invert = true;  // row 0 at the top, as the matrix is written
  items.emplace_back(std::move(item));
  return std::get<HeatmapItem>(items.back());
}

ArrowItem& Axes::arrow(std::string label, double x0, double y0, double x1, double y1, uint32_t color) {
  items.emplace_back(ArrowItem{std::move(label), x0, y0, x1, y1, color});
  return std::get<ArrowItem>(items.back());
}

CircleItem& Axes::circle(double cx, double cy, double r) {
  CircleItem c;
  c.cx = cx;
  c.cy = cy;
  c.r = r;
  items.emplace_back(c);
  return std::get<CircleItem>(items.back());
}

ArcItem& Axes::arc(std::string label, double cx, double cy, double r, double a0, double a1) {
  ArcItem a;
  a.label = std::move(label);
  a.cx = cx;
  a.cy = cy;
  a.r = r;
  a.a0 = a0;
  a.a1 = a1;
  items.emplace_back(std::move(a));
  return std::get<ArcItem>(items.back());
}

TextItem& Axes::text(std::string text, double x_, double y_) {
  TextItem t;
  t.text = std::move(text);
  t.x = x_;
  t.y = y_;
  items.emplace_back(std::move(t));
  return std::get<TextItem>(items.back());
}

MarkerLineItem& Axes::vline(std::string label, double x_) { return marker_line(std::move(label), x_, true); }
MarkerLineItem& Axes::hline(std::string label, double y_) { return marker_line(std::move(label), y_, false); }

MarkerLineItem& Axes::marker_line(std::string label, double value, bool vertical) {
  MarkerLineItem m;
  m.label = std::move(label);
  m.value = value;
  m.vertical = vertical;
  items.emplace_back(std::move(m));
  return std::get<MarkerLineItem>(items.back());
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

std::string column_name(const Axis& a, const char* fallback) { return a.label.empty() ? fallback : a.title(); }

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
  // Name the x/y columns after the first axes' labels when every axes agrees (the usual case).
  std::string xname = "x", yname = "y";
  if (!fig.grid.empty()) {
    xname = column_name(fig.grid[0].x, "x");
    yname = column_name(fig.grid[0].y, "y");
    for (const Axes& a : fig.grid)
      if (column_name(a.x, "x") != xname || column_name(a.y, "y") != yname) xname = "x", yname = "y";
  }
  if (xname == yname) xname = "x", yname = "y";
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
