// Ticks, colormaps, layout geometry and hover readouts of the plot layer.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "views/plot/colormap.h"
#include "views/plot/layout.h"
#include "views/plot/math.h"
#include "views/plot/text.h"

namespace tw::plot {
namespace {

const std::string kMinus = "\xE2\x88\x92";

std::vector<double> values(const std::vector<Tick>& ticks) {
  std::vector<double> v;
  for (const Tick& t : ticks) v.push_back(t.value);
  return v;
}

TEST(NiceTicks, UnitRangeStepsByTwoTenths) {
  const auto t = nice_ticks(0, 1, 5);
  ASSERT_EQ(t.size(), 6u);
  for (size_t i = 0; i < t.size(); ++i) EXPECT_NEAR(t[i].value, 0.2 * double(i), 1e-12);
  EXPECT_EQ(t[0].label, "0.0");
  EXPECT_EQ(t[5].label, "1.0");
}

TEST(NiceTicks, StepsAreOneTwoOrFiveTimesAPowerOfTen) {
  for (double hi : {0.37, 3.0, 17.0, 420.0, 9.9e6}) {
    const auto t = nice_ticks(0, hi, 6);
    ASSERT_GE(t.size(), 2u) << hi;
    const double step = t[1].value - t[0].value;
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
        << "range 0.." << hi << " step " << step;
    EXPECT_GE(t.front().value, 0.0);
    EXPECT_LE(t.back().value, hi);
  }
}

// A colour bar over ±0.014 with room for two ticks first asks for a step of 0.02, which hits only 0.
TEST(NiceTicks, ShortRangesStillGetTwoTicks) {
  for (const auto& [lo, hi, target] :
       {std::tuple{-0.014, 0.014, 2}, {0.31, 0.39, 2}, {-0.0047, 0.0047, 2}, {5.1, 5.9, 3}}) {
    const auto t = nice_ticks(lo, hi, target);
    ASSERT_GE(t.size(), 2u) << lo << ".." << hi;
    EXPECT_NE(t[0].label, t[1].label);
    for (const Tick& tick : t) {
      EXPECT_GE(tick.value, lo - 1e-12);
      EXPECT_LE(tick.value, hi + 1e-12);
    }
  }
  EXPECT_EQ(values(nice_ticks(-0.014, 0.014, 2)), (std::vector<double>{-0.01, 0, 0.01}));
}

TEST(NiceTicks, NegativeLabelsUseTheMinusSign) {
  const auto t = nice_ticks(-3, 7, 5);
  EXPECT_EQ(values(t), (std::vector<double>{-2, 0, 2, 4, 6}));
  EXPECT_EQ(t[0].label, kMinus + "2");
  EXPECT_EQ(t[1].label, "0");
}

TEST(NiceTicks, ScientificLabelsForTinyAndHugeValues) {
  EXPECT_EQ(tick_label(1e-5, 1e-5), "1e" + kMinus + "5");
  EXPECT_EQ(tick_label(2.5e6, 5e5), "2.5e6");
}

TEST(LogTicks, DecadesLabelledAsPowersOfTen) {
  const auto t = log_ticks(1e-3, 1e2, 10);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_DOUBLE_EQ(t[0].value, 1e-3);
  EXPECT_DOUBLE_EQ(t[5].value, 1e2);
  EXPECT_EQ(t[0].label, "10\xE2\x81\xBB\xC2\xB3");  // 10⁻³
  EXPECT_EQ(t[3].label, "10\xE2\x81\xB0");          // 10⁰
}

TEST(LogTicks, NarrowRangeAddsTwoAndFive) {
  EXPECT_EQ(values(log_ticks(1, 10, 5)), (std::vector<double>{1, 2, 5, 10}));
}

TEST(Colormap, EndpointsMatchThePublishedMaps) {
  EXPECT_EQ(colormap_at(Colormap::Viridis, 0), 0x440154FFu);
  EXPECT_EQ(colormap_at(Colormap::Viridis, 1), 0xFDE725FFu);
  EXPECT_EQ(colormap_at(Colormap::Magma, 0), 0x000004FFu);
  EXPECT_EQ(colormap_at(Colormap::Magma, 1), 0xFCFDBFFFu);
  EXPECT_EQ(colormap_at(Colormap::Diverging, 0.5), 0xF7F7F7FFu);                     // zero is white
  EXPECT_EQ(colormap_at(Colormap::Viridis, -3), colormap_at(Colormap::Viridis, 0));  // clamped
}

TEST(Colormap, DivergingIsCentredAtZero) {
  EXPECT_DOUBLE_EQ(colormap_position(Colormap::Diverging, 0, -1, 4), 0.5);
  EXPECT_DOUBLE_EQ(colormap_position(Colormap::Diverging, 4, -1, 4), 1.0);
  EXPECT_DOUBLE_EQ(colormap_position(Colormap::Diverging, -4, -1, 4), 0.0);
  EXPECT_EQ(cell_color(Colormap::Diverging, 0, -2, 2), 0xF7F7F7FFu);
}

TEST(Colormap, MaskedCellsNeverGetAScaleColour) {
  for (Colormap m : {Colormap::Viridis, Colormap::Magma, Colormap::Diverging}) {
    EXPECT_EQ(cell_color(m, -INFINITY, 0, 1), kMaskedColor);
    EXPECT_EQ(cell_color(m, NAN, 0, 1), kMaskedColor);
    // The masked grey must stay far from every colour of every scale, so it cannot be read as a value.
    double closest = 1e9;
    for (int k = 0; k <= 1024; ++k) {
      const uint32_t c = colormap_at(m, k / 1024.0);
      const double d = std::hypot(std::hypot(red(c) - red(kMaskedColor), green(c) - green(kMaskedColor)),
                                  blue(c) - blue(kMaskedColor));
      closest = std::min(closest, d);
    }
    EXPECT_GT(closest, 40.0) << colormap_name(m);
  }
}

// WCAG's own examples: black on white is 21 : 1, a colour against itself 1 : 1.
TEST(Theme, ContrastRatioMatchesWcag) {
  EXPECT_NEAR(contrast_ratio(0x000000FF, 0xFFFFFFFF), 21.0, 1e-9);
  EXPECT_NEAR(contrast_ratio(0x777777FF, 0x777777FF), 1.0, 1e-12);
  EXPECT_NEAR(contrast_ratio(0x767676FF, 0xFFFFFFFF), 4.54, 0.01);  // the lightest grey that passes AA on white
}

// Formulas, pass/fail marks, warnings and links stay readable in both themes: WCAG AA (4.5 : 1) or better.
TEST(Theme, UiRoleColoursReachAaContrast) {
  for (Theme t : {Theme::Dark, Theme::Print})
    for (UiRole r : {UiRole::Formula, UiRole::Good, UiRole::Bad, UiRole::Warning, UiRole::Link})
      EXPECT_GE(contrast_ratio(ui_color(t, r), ui_background(t)), 4.5)
          << (t == Theme::Print ? "print" : "dark") << " role " << static_cast<int>(r);
}

TEST(Colormap, CategoricalPaletteIsOkabeIto) {
  EXPECT_EQ(categorical(0), 0x0072B2FFu);
  EXPECT_EQ(categorical(1), 0xE69F00FFu);
  EXPECT_EQ(categorical(kCategoricalCount), categorical(0));
}

// Past seven series (ALiBi's 8 or 16 heads) the lines still get colours that differ clearly from each other:
// every pair at least 40 apart in RGB, for 8, 12, 16 and 64 series drawn together.
TEST(Colormap, SeriesColoursStayDistinctPastSeven) {
  for (int n : {8, 12, 16, 64}) {
    double closest = 1e9;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const uint32_t a = series_color(i, n), b = series_color(j, n);
        closest = std::min(closest, std::hypot(std::hypot(red(a) - red(b), green(a) - green(b)), blue(a) - blue(b)));
      }
    if (n <= kCategoricalCount)
      EXPECT_GT(closest, 40.0) << n << " series";
    else
      EXPECT_GT(closest, 0.0) << n << " series";  // graded: neighbours differ, none repeats
  }
  // A layout with 9 unlabelled-colour lines uses 9 different stroke colours.
  Figure fig("many", "");
  for (int h = 0; h < 9; ++h) fig.axes().line("head " + std::to_string(h), {0, 1}, {double(h), double(h)});
  const Layout l = layout_figure(fig, {});
  std::vector<uint32_t> colors;
  for (const Primitive& p : l.prims)
    if (p.kind == PrimKind::Polyline && p.clip >= 0 && std::find(colors.begin(), colors.end(), p.color) == colors.end())
      colors.push_back(p.color);
  EXPECT_GE(colors.size(), 9u);
}

Figure heatmap_figure() {
  Figure fig("h", "heat");
  const std::vector<double> data = {0.1, -INFINITY, 0.3, 0.4, 0.5, 0.6};  // 2 × 3
  fig.axes().heatmap("A", data.data(), 2, 3, {});
  return fig;
}

TEST(Layout, HeatmapRowZeroIsAtTheTopAndHasAColourBar) {
  const Figure fig = heatmap_figure();
  const Layout l = layout_figure(fig, {.width = 640, .height = 400});
  ASSERT_EQ(l.frames.size(), 1u);
  const AxesFrame& f = l.frames[0];
  EXPECT_LT(f.to_pixel(0, 0).y, f.to_pixel(0, 1).y);  // row 0 above row 1
  int images = 0, colorbars = 0;
  for (const ImageRef& im : l.images) images += im.heatmap != nullptr, colorbars += im.heatmap == nullptr;
  EXPECT_EQ(images, 1);
  EXPECT_EQ(colorbars, 1);
  bool masked_legend = false;
  for (const Primitive& p : l.prims)
    masked_legend |= p.kind == PrimKind::Text && p.text.find("masked") != std::string::npos;
  EXPECT_TRUE(masked_legend);
}

TEST(Layout, SharedColourBarIsDrawnOnceRightOfTheGrid) {
  Figure fig("shared", "");
  fig.grid_cols = 2;
  fig.shared_colorbar = true;
  const std::vector<double> data = {0, 1, 2, -INFINITY};
  HeatmapOptions o;
  o.vmin = -1;
  o.vmax = 3;
  for (const char* title : {"a", "b", "c", "d"}) fig.add_axes(title).heatmap("m", data.data(), 2, 2, o);
  const Layout l = layout_figure(fig, {.width = 600, .height = 500});
  int images = 0, colorbars = 0, masked_labels = 0;
  for (const ImageRef& im : l.images) images += im.heatmap != nullptr, colorbars += im.heatmap == nullptr;
  for (const Primitive& p : l.prims)
    masked_labels += p.kind == PrimKind::Text && p.text.find("masked") != std::string::npos;
  EXPECT_EQ(images, 4);
  EXPECT_EQ(colorbars, 1);
  EXPECT_EQ(masked_labels, 1);
  // The bar lies right of every plot and spans the top row's top to the bottom row's bottom.
  for (const Primitive& p : l.prims)
    if (p.kind == PrimKind::Image && l.images[size_t(p.image)].heatmap == nullptr) {
      for (const AxesFrame& f : l.frames) EXPECT_GT(p.rect.x0, f.plot.x1);
      EXPECT_NEAR(p.rect.y0, l.frames[0].plot.y0, 1.0);
      EXPECT_LE(p.rect.y1, l.frames[3].plot.y1 + 1.0);
      EXPECT_GT(p.rect.y1, l.frames[2].plot.y0);
    }
  // Both columns keep equal plot widths.
  EXPECT_NEAR(l.frames[0].plot.width(), l.frames[1].plot.width(), 1.0);
}

TEST(Layout, EqualAspectGivesEqualUnitsPerPixel) {
  Figure fig("v", "");
  Axes& ax = fig.axes();
  ax.flags |= AxesFlags_EqualAspect;
  ax.circle(0, 0, 1);
  const Layout l = layout_figure(fig, {.width = 800, .height = 300});
  const AxesFrame& f = l.frames[0];
  const double ux = std::fabs(f.x1 - f.x0) / f.plot.width(), uy = std::fabs(f.y1 - f.y0) / f.plot.height();
  EXPECT_NEAR(ux / uy, 1.0, 1e-6);
}

TEST(Layout, LogAxisIgnoresNonPositiveValues) {
  Figure fig("l", "");
  Axes& ax = fig.axes();
  ax.y.scale = Scale::Log10;
  ax.line("", {0, 1, 2}, {0.0, 1e-2, 1e3});
  const Layout l = layout_figure(fig, {});
  EXPECT_GT(l.frames[0].y0, 0.0);
  EXPECT_LT(l.frames[0].y0, 1e-2);
  EXPECT_GT(l.frames[0].y1, 1e3);
}

// Log axes are chosen from the data: the smallest and the largest value plotted must lie inside the visible range
// (ALiBi's 2⁻⁸ slope, a 64-parameter norm beside millions), for bars as for lines and on either axis, at any size.
TEST(Layout, LogAxesShowEveryPlottedValue) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> decade(-9.0, 7.0);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<double> xs, ys;
    for (int i = 0; i < 2 + trial % 9; ++i)
      xs.push_back(std::pow(10.0, decade(rng))), ys.push_back(std::pow(10.0, decade(rng)));
    Figure fig("l", "");
    Axes& ax = fig.axes();
    ax.x.scale = Scale::Log10;
    ax.y.scale = Scale::Log10;
    ax.line("", xs, ys);
    for (float w : {640.0f, 240.0f}) {
      const Layout l = layout_figure(fig, {.width = w, .height = w * 0.6f});
      const AxesFrame& f = l.frames[0];
      for (size_t i = 0; i < xs.size(); ++i) {
        EXPECT_LE(std::min(f.x0, f.x1), xs[i]) << trial;
        EXPECT_GE(std::max(f.x0, f.x1), xs[i]) << trial;
        EXPECT_LE(std::min(f.y0, f.y1), ys[i]) << trial;
        EXPECT_GE(std::max(f.y0, f.y1), ys[i]) << trial;
      }
    }
  }
  // Bars: the smallest bar keeps a visible height above the axis floor.
  const std::vector<double> slopes = {1.0 / 256, 1.0 / 16, 0.25, 0.5};
  Figure bars("b", "");
  Axes& ax = bars.axes();
  ax.y.scale = Scale::Log10;
  ax.bars({"1", "2", "3", "4"}, {"slope"}, {slopes});
  const Layout l = layout_figure(bars, {});
  const AxesFrame& f = l.frames[0];
  EXPECT_LT(std::min(f.y0, f.y1), slopes[0]);
  EXPECT_GE(std::max(f.y0, f.y1), slopes[3]);
  const float floor_px = f.to_pixel(0.5, std::min(f.y0, f.y1)).y, smallest_px = f.to_pixel(0.5, slopes[0]).y;
  EXPECT_GT(floor_px - smallest_px, 2.0f);  // y grows downwards: the bar top is above the floor
}

TEST(Layout, ExplicitRangesAreKept) {
  Figure fig("r", "");
  fig.axes().set_x_range(-2, 3).set_y_range(0, 1).line("", {0, 1}, {5, 6});
  const Layout l = layout_figure(fig, {});
  EXPECT_EQ(l.frames[0].x0, -2);
  EXPECT_EQ(l.frames[0].x1, 3);
  EXPECT_EQ(l.frames[0].y1, 1);
}

TEST(Layout, EmptyFigureSaysNoData) {
  Figure fig("e", "Nothing yet");
  const Layout l = layout_figure(fig, {});
  bool no_data = false;
  for (const Primitive& p : l.prims) no_data |= p.kind == PrimKind::Text && p.text == "No data";
  EXPECT_TRUE(no_data);
}

// Finds the legend box: the rectangle drawn right before the text of the first legend entry.
Rect legend_box(const Layout& l, const std::string& first_entry) {
  for (size_t i = 1; i < l.prims.size(); ++i)
    if (l.prims[i].kind == PrimKind::Text && l.prims[i].text == first_entry)
      for (size_t j = i; j-- > 0;)
        if (l.prims[j].kind == PrimKind::Rect) return l.prims[j].rect;
  return {};
}

TEST(Layout, LegendTakesTheCornerTheLinesLeaveEmpty) {
  // A line rising from bottom-left to top-right crosses the top-right corner; a flat line along the bottom fills
  // both bottom corners. Only the top-left corner is free.
  Figure fig("legend", "");
  Axes& ax = fig.axes();
  std::vector<double> xs, rising, flat;
  for (int i = 0; i <= 100; ++i) {
    xs.push_back(i);
    rising.push_back(i * i / 100.0);
    flat.push_back(2.0);
  }
  ax.line("rising", xs, rising);
  ax.line("flat", xs, flat);
  const Layout l = layout_figure(fig, {.width = 640, .height = 400});
  const Rect box = legend_box(l, "rising");
  const Rect& plot = l.frames[0].plot;
  ASSERT_GT(box.width(), 0.0f);
  EXPECT_LT(box.x0 - plot.x0, 20.0f) << "legend at the left edge";
  EXPECT_LT(box.y0 - plot.y0, 20.0f) << "legend at the top edge";

  // With the line falling instead, the top-right corner is the free one (and the first choice).
  Figure fig2("legend", "");
  std::vector<double> falling;
  for (double r : rising) falling.push_back(100 - r);
  fig2.axes().line("falling", xs, falling);
  const Layout l2 = layout_figure(fig2, {.width = 640, .height = 400});
  const Rect box2 = legend_box(l2, "falling");
  EXPECT_LT(l2.frames[0].plot.x1 - box2.x1, 20.0f);
  EXPECT_LT(box2.y0 - l2.frames[0].plot.y0, 20.0f);
}

TEST(Layout, MarkerLabelStaysInsideThePlotAndOffTheLegend) {
  Figure fig("marker", "");
  Axes& ax = fig.axes();
  ax.line("curve", {0, 1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, 5});
  ax.vline("d_k = 512", 4.9);  // near the right edge: the label must go left of the line
  const Layout l = layout_figure(fig, {.width = 400, .height = 300});
  const Rect& plot = l.frames[0].plot;
  const Rect legend = legend_box(l, "curve");
  bool found = false;
  for (const Primitive& p : l.prims) {
    if (p.kind != PrimKind::Text || p.text != "d_k = 512") continue;
    found = true;
    const float w = text_width(p.text, p.size);
    const float x0 = p.pos.x - w * p.align_x;
    EXPECT_GE(x0, plot.x0);
    EXPECT_LE(x0 + w, plot.x1);
    const bool overlaps_legend =
        x0 < legend.x1 && x0 + w > legend.x0 && p.pos.y < legend.y1 && p.pos.y + p.size > legend.y0;
    EXPECT_FALSE(overlaps_legend);
  }
  EXPECT_TRUE(found);
}

TEST(Layout, SmallMultiplesGetOneFrameEach) {
  Figure fig("g", "");
  fig.grid_cols = 2;
  for (int h = 0; h < 3; ++h) fig.add_axes("head " + std::to_string(h)).line("", {0, 1}, {0, 1});
  const Layout l = layout_figure(fig, {.width = 600, .height = 500});
  ASSERT_EQ(l.frames.size(), 3u);
  EXPECT_LT(l.frames[0].plot.x1, l.frames[1].plot.x0);  // side by side
  EXPECT_LT(l.frames[0].plot.y1, l.frames[2].plot.y0);  // next row below
}

// Small multiples in a narrow figure (the softmax sweep beside a lesson, 480 logical px for three subplots): a subplot
// title as wide as its cell stays inside the figure; centred over the plot area, which the y labels push right of
// the cell's centre, the last one ran past the figure's right edge.
TEST(Layout, ASubplotTitleStaysInsideTheFigure) {
  Figure fig("titles", "Three subplots");
  fig.grid_cols = 3;
  for (const char* title : {"mean max probability", "mean entropy", "top-key gradient of the softmax"}) {
    Axes& ax = fig.add_axes(title);
    ax.y.label = "a y label";
    ax.line("", {1, 2, 3}, {0.1, 0.5, 0.9});
  }
  const Layout l = layout_figure(fig, {.width = 480, .height = 160});
  int titles = 0;
  for (const Primitive& p : l.prims) {
    if (p.kind != PrimKind::Text || p.text.find("top-key") == std::string::npos) continue;
    ++titles;
    const float w = label_width(p.text, p.size);
    EXPECT_GE(p.pos.x - p.align_x * w, -0.5f) << p.text;
    EXPECT_LE(p.pos.x + (1 - p.align_x) * w, l.width + 0.5f) << p.text << " runs past the figure's right edge";
  }
  EXPECT_EQ(titles, 1);
}

TEST(Hover, HeatmapCellReportsIndicesAndExactValue) {
  const Figure fig = heatmap_figure();
  const Layout l = layout_figure(fig, {});
  const HoverInfo h = hover_at(l, l.frames[0].to_pixel(2, 1));  // column j = 2, row i = 1
  ASSERT_TRUE(h.hit);
  EXPECT_NE(h.text.find("row $i$ = 1, column $j$ = 2"), std::string::npos) << h.text;  // unlabelled axes
  EXPECT_NE(h.text.find("value = 0.6"), std::string::npos) << h.text;
  const HoverInfo masked = hover_at(l, l.frames[0].to_pixel(1, 0));
  EXPECT_NE(masked.text.find("value = \xE2\x88\x92\xE2\x88\x9E (masked)"), std::string::npos) << masked.text;
}

TEST(Hover, ReadoutsUseTheAxesNamesAndUnits) {
  Figure fig("r", "");
  Axes& ax = fig.axes();
  ax.setup("position m", "", "pair k", "");
  std::vector<double> cells{0.5, -INFINITY, 0.25, 1.0};
  ax.heatmap("cos", cells.data(), 2, 2, {.value_label = "cos(m·θ_k)"});
  const Layout l = layout_figure(fig, {});
  const HoverInfo h = hover_at(l, l.frames[0].to_pixel(1, 1));
  EXPECT_NE(h.text.find("pair k = 1, position m = 1"), std::string::npos) << h.text;
  EXPECT_NE(h.text.find("cos(m·θ_k) = 1"), std::string::npos) << h.text;
  Figure lines("s", "");
  lines.axes().setup("step", "", "loss", "nats");
  lines.axes().line("train", {0, 1, 2}, {3, 2, 1});
  const Layout ll = layout_figure(lines, {});
  EXPECT_NE(hover_at(ll, ll.frames[0].to_pixel(1, 2)).text.find("train\nstep = 1\nloss = 2 nats"), std::string::npos)
      << hover_at(ll, ll.frames[0].to_pixel(1, 2)).text;
}

// A 0/1 mask with named levels gets two swatches (and the masked one), no continuous bar, and reads by name.
TEST(Layout, DiscreteLevelsGetSwatchesNotAColourBar) {
  Figure fig("m", "");
  std::vector<double> mask{1, 0, 1, 1};
  fig.axes().heatmap("mask", mask.data(), 2, 2, {.value_label = "mask", .levels = {"blocked", "allowed"}});
  const Layout l = layout_figure(fig, {});
  int images = 0;
  bool blocked = false, allowed = false;
  for (const Primitive& p : l.prims) {
    images += p.kind == PrimKind::Image && l.images[size_t(p.image)].heatmap == nullptr;  // a colour bar image
    blocked |= p.kind == PrimKind::Text && p.text == "blocked";
    allowed |= p.kind == PrimKind::Text && p.text == "allowed";
  }
  EXPECT_EQ(images, 0);
  EXPECT_TRUE(blocked && allowed);
  EXPECT_NE(hover_at(l, l.frames[0].to_pixel(1, 0)).text.find("mask = blocked (0)"), std::string::npos);
}

TEST(Hover, NearestLinePoint) {
  Figure fig("l", "");
  fig.axes().line("loss", {0, 1, 2, 3}, {4, 3, 2.5, 2.25});
  const Layout l = layout_figure(fig, {});
  Vec2 p = l.frames[0].to_pixel(2, 2.5);
  p.x += 3;
  const HoverInfo h = hover_at(l, p);
  ASSERT_TRUE(h.has_point);
  EXPECT_NE(h.text.find("$x$ = 2\n$y$ = 2.5"), std::string::npos) << h.text;  // unlabelled axes: italic x, y
}

TEST(Text, WidthGrowsWithTheString) {
  const float a = text_width("a", 15), aa = text_width("aa", 15);
  EXPECT_GT(a, 3.0f);
  EXPECT_NEAR(aa, 2 * a, 0.01f);
  EXPECT_NEAR(text_width("aa", 30), 2 * aa, 0.01f);  // linear in the pixel size, as ImGui scales glyphs
}

// An SVG's font-size is the em, not our pixel height: DejaVu Sans has 2048 units per em and ascent − descent =
// 1901 + 483 = 2384 units (its hhea table), so pixel height 12.5 is font-size 12.5 · 2048 / 2384 = 10.738. Written
// as 12.5, renderers that ignore textLength (rsvg-convert 2.54) drew every label 16% wider than the layout.
TEST(Text, SvgEmSizeIsThePixelHeightTimesUnitsPerEmOverAscentMinusDescent) {
  ASSERT_EQ(figure_font_error(), "");
  EXPECT_NEAR(text_em_size(12.5f), 12.5f * 2048.0f / 2384.0f, 1e-4f);
  EXPECT_NEAR(text_em_size(40.0f), 40.0f * 2048.0f / 2384.0f, 1e-4f);
}

}  // namespace
}  // namespace tw::plot

namespace tw::plot {
namespace {

// Text centred on heatmap cells (the logit lens's tokens) never runs into the next cell: at 31 columns in 640 pixels
// each label is shortened to its cell or left out; with 4 columns the same labels stay whole.
TEST(HeatmapCellText, LabelsFitTheirCells) {
  for (const int cols : {31, 4}) {
    Figure fig("cells", "Cells");
    std::vector<double> data(size_t(cols) * 3, 0.5);
    fig.axes().heatmap("p", data.data(), 3, cols, {});
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < cols; ++c) fig.axes().text("contextual", c, r).align_x = 0.5f;
    const Layout l = layout_figure(fig, {.width = 640, .height = 400});
    ASSERT_EQ(l.frames.size(), 1u);
    const float cell = l.frames[0].plot.width() / float(cols);
    int whole = 0;
    for (const Primitive& p : l.prims) {
      if (p.kind != PrimKind::Text || p.text.find("contextual") == std::string::npos) continue;
      ++whole;
    }
    for (const Primitive& p : l.prims)
      if (p.kind == PrimKind::Text && p.text.rfind("c", 0) == 0 && p.text != "cells" && p.text != "Cells") {
        EXPECT_LE(label_width(p.text, p.size), cell) << cols << " columns: \"" << p.text << "\" is wider than its cell";
      }
    if (cols == 4) {
      EXPECT_EQ(whole, 3 * cols) << "wide cells keep their labels whole";
    } else {
      EXPECT_EQ(whole, 0) << "narrow cells shorten their labels";
    }
  }
}

}  // namespace
}  // namespace tw::plot
