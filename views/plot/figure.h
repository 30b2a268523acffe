#pragma once
// Figure: a plain-data description of one figure (no ImGui). The same description feeds the screen
// (plot_imgui.cpp) and every export (SVG, PNG, CSV), so an exported figure is the figure the user saw.
//
// Call contract, in ImPlot's spirit (begin → set up axes → add items → end):
//   plot::Figure fig("probs", "Attention probabilities");       // begin: id = <figure> in <panel>-<figure>.png
//   plot::Axes& ax = fig.axes();                                // the single axes (small multiples: add_axes)
//   ax.setup("key position $j$", "", "query position $i$", "");     // axis labels, then units
//   ax.heatmap("P", probs.data(), T, T, {.colormap = plot::Colormap::Viridis, .value_label = "probability"});
//   ax.line("T = 1", xs, ys);                                   // items are drawn in the order added
//   return fig;                                                 // end: hand it to draw_figure() or an exporter
// A figure is a value: build it from the panel's current core results whenever it is needed.
//
// Coordinates: line/scatter/arrow items use data coordinates. A heatmap occupies x ∈ [-0.5, cols-0.5],
// y ∈ [-0.5, rows-0.5] with cell (i, j) centred on (x = j, y = i); axes holding a heatmap draw row 0 at the
// top (as a matrix is written) unless the y axis sets `invert = false` explicitly after adding it.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "views/plot/colormap.h"
#include "views/plot/table.h"

namespace tw::plot {

inline constexpr double kAuto = std::numeric_limits<double>::quiet_NaN();  // "choose from the data"

enum class Scale { Linear, Log10 };

struct Axis {
  std::string label;                    // e.g. "temperature"; drawn with the unit as "temperature [K]"
  std::string unit;                     // empty: no brackets
  Scale scale = Scale::Linear;          // Log10 ignores values <= 0 (and says so in the hover readout)
  double min = kAuto, max = kAuto;      // explicit range, or kAuto to fit the data with a small margin
  bool invert = false;                  // larger values towards the bottom (y) or left (x)
  std::vector<std::string> categories;  // non-empty: ticks at 0, 1, ... labelled with these (tokens, bar groups)
  bool hide = false;                    // no ticks, no tick labels, no axis label (e.g. the plane of arrows)
  std::string column;  // CSV column name of a figure without its own table; empty: title(). Set it when the label is
                       // translated or typeset ($…$): column names stay the same in every language.

  // "label [unit]", built by appending (GCC 12 reports a false -Wrestrict on a `+` chain here).
  std::string title() const {
    std::string t = label;
    if (!unit.empty()) t.append(" [").append(unit).append("]");
    return t;
  }
};

// [SECTION] Items
// Every item has a `label`: non-empty labels appear in the legend and the hover readout.
// `color` is 0xRRGGBBAA; 0 means "next colour of the categorical palette".

enum class LineStyle { Line, Step, Scatter, LineAndMarkers };

struct LineItem {
  std::string label;
  std::vector<double> xs, ys;  // same length; NaN breaks the line
  LineStyle style = LineStyle::Line;
  uint32_t color = 0;
  float width = 0;  // 0: theme default line width
  bool dashed = false;
};

struct BarsItem {                   // grouped bars: one bar per (group, series); groups go on the x axis categories
  std::vector<std::string> groups;  // x tick labels (copied into the x axis categories)
  std::vector<std::string> series;  // legend entries, one colour each
  std::vector<std::vector<double>> values;  // values[series][group]
};

struct HistogramItem {
  std::string label;
  std::vector<double> values;  // raw samples; non-finite samples are counted apart and reported in the CSV
  int bins = 30;
  double min = kAuto, max = kAuto;  // bin range; kAuto = data range
  bool density = false;             // counts / (n · bin width) instead of counts
  uint32_t color = 0;
};

struct HeatmapOptions {  // designated initialisers welcome: every field has a default
  Colormap colormap = Colormap::Viridis;
  double vmin = kAuto, vmax = kAuto;  // colour-scale range; kAuto = finite data range (Diverging: ±max|v|)
  std::string value_label = {};       // colour bar title, e.g. "probability" or "score"
  std::vector<std::string> row_labels = {}, col_labels = {};  // optional tick labels (token strings)
  // Discrete data (a mask's 0/1): level k names the value k, and a swatch per level replaces the continuous
  // colour bar, whose in-between colours would suggest values the data never takes.
  std::vector<std::string> levels = {};
};

struct HeatmapItem {
  std::string label;
  std::vector<double> data;  // row-major rows × cols; -inf = masked (neutral grey, legend entry), NaN = invalid
  int rows = 0, cols = 0;
  HeatmapOptions options;
  uint64_t version = 0;  // optional: a panel may bump this when data changes; 0 = hash the data
};

struct ArrowItem {  // a vector from (x0, y0) to (x1, y1) in data coordinates
  std::string label;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  uint32_t color = 0;
};

struct CircleItem {  // e.g. the unit circle under RoPE rotations
  double cx = 0, cy = 0, r = 1;
  uint32_t color = 0;  // 0: the theme's faint axis colour
  bool dashed = true;
};

struct ArcItem {      // an angle arc from angle a0 to a1 (radians, counter-clockwise), with an optional label
  std::string label;  // e.g. "θ = 0.52 rad"; drawn at the arc's midpoint
  double cx = 0, cy = 0, r = 0.3, a0 = 0, a1 = 0;
  double label_r = 0;  // > 0: the label sits this far from the centre on the arc's bisector, clear of what the arc
                       // spans (vectors from the centre); 0: just outside the arc
  uint32_t color = 0;
};

struct TextItem {  // an annotation at a data position
  std::string text;
  double x = 0, y = 0;
  float align_x = 0, align_y = 0.5f;  // 0 left/top, 0.5 centre, 1 right/bottom of the text box at (x, y)
  uint32_t color = 0;                 // 0: the theme's text colour
};

struct MarkerLineItem {  // a vertical (x = value) or horizontal (y = value) reference line across the axes
  std::string label;     // drawn next to the line, e.g. "p = 0.9"
  double value = 0;
  bool vertical = true;
  uint32_t color = 0;  // 0: the theme's marker colour
  bool dashed = true;
};

using Item = std::variant<LineItem, BarsItem, HistogramItem, HeatmapItem, ArrowItem, CircleItem, ArcItem, TextItem,
                          MarkerLineItem>;

// [SECTION] Axes: one plot area with its items

enum AxesFlags_ {
  AxesFlags_None = 0,
  AxesFlags_EqualAspect = 1 << 0,    // one data unit is the same length on x and y (planes, unit circles)
  AxesFlags_NoLegend = 1 << 1,       // hide the legend even if items are labelled
  AxesFlags_NoGrid = 1 << 2,         // no grid lines behind the items
  AxesFlags_LegendOutside = 1 << 3,  // legend to the right of the plot area instead of inside its top-right corner
};
using AxesFlags = int;

struct Axes {
  std::string title;  // small-multiples caption, e.g. "head 3"; empty for a single-axes figure
  Axis x, y;
  AxesFlags flags = AxesFlags_None;
  std::vector<Item> items;

  // Setup: labels and units in one call (call before or after adding items).
  Axes& setup(std::string x_label, std::string x_unit, std::string y_label, std::string y_unit);
  // The CSV column names of x and y (Axis::column), for figures whose CSV lists their items.
  Axes& csv_columns(std::string x_column, std::string y_column) {
    x.column = std::move(x_column);
    y.column = std::move(y_column);
    return *this;
  }
  Axes& set_x_range(double lo, double hi) {
    x.min = lo;
    x.max = hi;
    return *this;
  }
  Axes& set_y_range(double lo, double hi) {
    y.min = lo;
    y.max = hi;
    return *this;
  }

  // Items. The returned reference stays valid until the next item is added.
  LineItem& line(std::string label, std::vector<double> xs, std::vector<double> ys);
  LineItem& step(std::string label, std::vector<double> xs, std::vector<double> ys);  // post-step: y holds until next x
  LineItem& scatter(std::string label, std::vector<double> xs, std::vector<double> ys);
  BarsItem& bars(std::vector<std::string> groups, std::vector<std::string> series,
                 std::vector<std::vector<double>> values);
  HistogramItem& histogram(std::string label, std::vector<double> values, int bins = 30);
  // Row-major `data` (rows × cols), any arithmetic element type (float from Eigen, double, ...).
  template <typename T>
  HeatmapItem& heatmap(std::string label, const T* data, int rows, int cols, HeatmapOptions options = {});
  ArrowItem& arrow(std::string label, double x0, double y0, double x1, double y1, uint32_t color = 0);
  CircleItem& circle(double cx, double cy, double r);
  ArcItem& arc(std::string label, double cx, double cy, double r, double a0, double a1);
  TextItem& text(std::string text, double x, double y);
  MarkerLineItem& vline(std::string label, double x);
  MarkerLineItem& hline(std::string label, double y);

 private:
  HeatmapItem& add_heatmap(HeatmapItem item);
  MarkerLineItem& marker_line(std::string label, double value, bool vertical);
};

// [SECTION] Figure

struct Figure {
  std::string id;                // file-name part: `<panel>-<id>.<ext>`; letters, digits, '-' and '_'
  std::string title;             // drawn above the axes
  std::string note;              // optional one-line caption drawn under the figure (e.g. the parameters used)
  std::string subject;           // GUI export file-name words (export_naming.h), e.g. "layers.1.attn.probs"; empty:
                                 // taken from the title
  std::vector<Axes> grid;        // one entry for a single plot; several for small multiples
  int grid_cols = 0;             // small multiples per row; 0 = choose (about square)
  bool shared_colorbar = false;  // small multiples on one colour scale: one bar at the figure's right edge, from
                                 // the first heatmap's range (give every heatmap the same vmin/vmax)
  Table table;                   // CSV override; empty (no header) = derived from the items (derive_table)
  float aspect = 0;              // preferred height / width for exports; 0 = theme default
  float cell_aspect = 0;         // small multiples: each cell's height / width at the export size; 0 = 0.8

  Figure() = default;
  Figure(std::string id_, std::string title_) : id(std::move(id_)), title(std::move(title_)) {}

  Axes& axes();                            // the current axes; creates the first one on first use
  Axes& add_axes(std::string title = {});  // starts another small multiple and makes it current
  bool empty() const;                      // no axes hold any item (drawn as an empty state)
};

// Histogram bins as drawn (and written to CSV): `bins` equal bins over [lo, hi].
struct HistogramBins {
  double lo = 0, hi = 1;
  std::vector<double> counts;  // per bin: count, or density when the item asks for it
  size_t skipped = 0;          // non-finite samples and samples outside [lo, hi]
};
HistogramBins bin_histogram(const HistogramItem& h);

// The CSV table of a figure: its explicit `table` when set, otherwise one derived from the items.
Table figure_table(const Figure& fig);
// The same rows, one at a time: `header` once, then `row` per row (the views are valid during the call only).
// The CSV exporter streams large figures through this instead of building the Table.
void for_each_table_row(const Figure& fig, const std::function<void(std::span<const CellRef>)>& header,
                        const std::function<void(std::span<const CellRef>)>& row);

// True when `id` is usable in a file name (non-empty; letters, digits, '-', '_', '.').
bool valid_figure_id(const std::string& id);

// One number printed with a printf format, for titles and notes: fmt("%.3g", 0.12345) == "0.123".
std::string fmt(const char* printf_format, double v);

// [SECTION] template implementation
template <typename T>
HeatmapItem& Axes::heatmap(std::string label, const T* data, int rows, int cols, HeatmapOptions options) {
  HeatmapItem h;
  h.label = std::move(label);
  h.rows = rows > 0 ? rows : 0;
  h.cols = cols > 0 ? cols : 0;
  h.options = std::move(options);
  if (data)
    h.data.assign(data, data + static_cast<size_t>(h.rows) * static_cast<size_t>(h.cols));
  else
    h.rows = h.cols = 0;
  return add_heatmap(std::move(h));
}

}  // namespace tw::plot
