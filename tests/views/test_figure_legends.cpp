// Legends never cover data: for every figure of every registered panel, at its export size, at kMinReadableFraction
// of it, at the smallest size a panel draws it on screen (a narrow column beside a lesson at 150–200%) and on a slide
// as shown at 150% and 200%, no plotted point of a line or scatter item, and no bar top, lies inside a legend box. The
// points are mapped through the axes' own frames here, independently of how the layout chose the legend's place. New
// panels are covered automatically through the registry, in English and in Chinese.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/export.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"
#include "views/plot/math.h"

namespace tw {
namespace {

using plot::Figure;

// Points inside a legend box ("" when none), with the offending point named.
std::string legend_hides(const Figure& fig, const plot::Layout& l) {
  auto check = [&](const plot::AxesFrame& f, double x, double y, const char* what) -> std::string {
    if (!std::isfinite(x) || !std::isfinite(y)) return "";
    if (f.x_scale == plot::Scale::Log10 && !(x > 0)) return "";
    if (f.y_scale == plot::Scale::Log10 && !(y > 0)) return "";
    const plot::Vec2 p = f.to_pixel(x, y);
    if (!f.plot.contains(p)) return "";  // clipped away: not plotted
    for (const plot::Rect& box : l.legends)
      if (box.contains(p))
        return "figure '" + fig.id + "': " + what + " (" + std::to_string(x) + ", " + std::to_string(y) +
               ") lies under the legend";
    return "";
  };
  for (size_t a = 0; a < fig.grid.size() && a < l.frames.size(); ++a) {
    const plot::AxesFrame& f = l.frames[a];
    for (const plot::Item& item : fig.grid[a].items) {
      if (const auto* line = std::get_if<plot::LineItem>(&item)) {
        for (size_t i = 0; i < line->xs.size() && i < line->ys.size(); ++i)
          if (std::string bad = check(f, line->xs[i], line->ys[i], "point"); !bad.empty()) return bad;
      } else if (const auto* bars = std::get_if<plot::BarsItem>(&item)) {
        // The top of each group's bars, at the group's category position.
        for (const auto& series : bars->values)
          for (size_t g = 0; g < series.size(); ++g)
            if (std::string bad = check(f, double(g), series[g], "bar top"); !bad.empty()) return bad;
      }
    }
  }
  return "";
}

class FigureLegends : public ::testing::TestWithParam<std::string> {};

// On screen a figure is laid out as small as min(kMinReadableFraction × its export width, kMinReadableWidth) wide
// (plot::draw_figure), its height from its shape but at least kMinReadableHeightFraction of its export height: for a
// wide grid of small multiples that is far below kMinReadableFraction (the softmax sweep at 480 × 152 instead of
// 585 × 186), where the legend covered the first points of "mean max probability" beside a lesson. Checked here too
// (one panel run per test: each test is a process of its own in CI).
TEST_P(FigureLegends, NoLegendCoversAPlottedPoint) {
  const testing::LanguageScope language(GetParam());
  testing::for_each_layout(language.id, [&](const Figure& fig, const plot::Layout& l, float fraction) {
    EXPECT_EQ(legend_hides(fig, l), "") << GetParam() << " at " << fraction << " of the export size";
    if (fraction != 1.0f) return;  // once per figure
    const plot::Vec2 natural = plot::default_figure_size(fig);
    const float w = std::min(plot::kMinReadableFraction * natural.x, plot::kMinReadableWidth);
    const float h = std::max(w * natural.y / natural.x, plot::kMinReadableHeightFraction * natural.y);
    const plot::Layout smallest = plot::layout_figure(fig, {.width = w, .height = h});
    EXPECT_EQ(legend_hides(fig, smallest), "") << GetParam() << " at its smallest on screen, " << w << " x " << h;
  });
}

// The same on a 16:9 slide export (1280 x 720), with and without the caption, and on a slide as 1280 x 720 shows it
// at 150% and 200% (the 16:9 area below slide mode's controls, in logical pixels: about 770 x 433 and 540 x 304).
TEST_P(FigureLegends, NoLegendCoversAPlottedPointOnASlide) {
  const testing::LanguageScope language(GetParam());
  testing::for_each_layout(language.id, [&](const Figure& fig, const plot::Layout&, float fraction) {
    if (fraction != 1.0f) return;  // once per figure
    const Figure bare = plot::without_caption(fig);
    for (const Figure* f : {&fig, &bare}) {
      const plot::Layout slide = plot::layout_for_export(*f, {.slide = true});
      EXPECT_EQ(slide.width * 9, slide.height * 16);
      EXPECT_EQ(legend_hides(*f, slide), "") << GetParam() << " on a slide" << (f == &bare ? " without caption" : "");
    }
    for (const float w : {770.0f, 540.0f}) {
      const plot::Layout shown = plot::layout_figure(fig, {.width = w, .height = w * 9 / 16});
      EXPECT_EQ(legend_hides(fig, shown), "") << GetParam() << " on a slide on screen, " << w << " logical px wide";
    }
  });
}

TEST(FigureLegendsLayout, ALegendThatWouldCoverDataInEveryCornerGoesOutside) {
  // Points in all four corners and the middle: no inside corner is free.
  Figure fig("corners", "Every corner taken");
  std::vector<double> xs, ys;
  for (int i = 0; i <= 20; ++i)
    for (int j = 0; j <= 20; ++j) xs.push_back(i), ys.push_back(j);
  auto& line = fig.axes().line("a grid of points", xs, ys);
  line.style = plot::LineStyle::Scatter;
  fig.axes().line("second series", {0, 20}, {10, 10});
  const plot::Layout l = plot::layout_figure(fig, {.width = 640, .height = 400});
  ASSERT_EQ(l.legends.size(), 1u);
  ASSERT_EQ(l.frames.size(), 1u);
  const plot::Rect& box = l.legends[0];
  EXPECT_GE(box.x0, l.frames[0].plot.x1) << "the legend stayed inside the plot area";
  EXPECT_EQ(legend_hides(fig, l), "");
}

// Small multiples: a legend that must leave the first subplot goes into a column right of the grid; every subplot keeps
// the same plot width (the softmax sweep's first subplot was squeezed to half the others').
TEST(FigureLegendsLayout, ALegendBesideOneSubplotDoesNotSqueezeIt) {
  Figure fig("multiples", "Three subplots, a legend on the first");
  std::vector<double> xs, ys;
  for (int i = 0; i <= 20; ++i)
    for (int j = 0; j <= 20; ++j) xs.push_back(i), ys.push_back(j);
  fig.grid_cols = 3;
  for (int k = 0; k < 3; ++k) {
    plot::Axes& ax = fig.add_axes("subplot " + std::to_string(k));
    auto& dots = ax.line(k == 0 ? "a grid of points" : "", xs, ys);
    dots.style = plot::LineStyle::Scatter;
  }
  const plot::Layout l = plot::layout_figure(fig, {.width = 900, .height = 300});
  ASSERT_EQ(l.frames.size(), 3u);
  ASSERT_EQ(l.legends.size(), 1u);
  const float w0 = l.frames[0].plot.width();
  for (const plot::AxesFrame& f : l.frames) EXPECT_NEAR(f.plot.width(), w0, 1.0f) << "a subplot squeezed by the legend";
  EXPECT_GE(l.legends[0].x0, l.frames[2].plot.x1) << "the legend is right of the whole grid";
  EXPECT_LE(l.legends[0].x1, 900.0f);
  EXPECT_EQ(legend_hides(fig, l), "");
  EXPECT_TRUE(l.problems.empty()) << l.problems.front();
}

// A horizontal reference line's label clears the curves: the n-gram figure's "uniform log2 V = 11.24" line near the
// top of the plot, which the add-k curve reaches at its right end; the label sat below the line's right end, on the
// curve's last points. Checked at the export size and the narrow on-screen one.
TEST(FigureLegendsLayout, AHorizontalMarkersLabelClearsTheCurves) {
  Figure fig("reference", "Bits per character");
  plot::Axes& ax = fig.axes();
  const std::vector<double> xs{1, 2, 3, 4, 5};
  ax.line("add-k", xs, {9.5, 9.5, 9.6, 10.4, 11.2});
  ax.line("Kneser-Ney", xs, {9.4, 8.7, 8.7, 8.7, 8.7});
  ax.set_y_range(0, 11.6);
  ax.hline("uniform log2 V = 11.24", 11.24);
  for (const float w : {640.0f, 480.0f}) {
    const plot::Layout l = plot::layout_figure(fig, {.width = w, .height = w * 0.625f});
    ASSERT_EQ(l.frames.size(), 1u);
    const plot::AxesFrame& f = l.frames[0];
    int found = 0;
    for (const plot::Primitive& p : l.prims) {
      if (p.kind != plot::PrimKind::Text || p.text != "uniform log2 V = 11.24") continue;
      ++found;
      const float tw = plot::label_width(p.text, p.size), th = plot::label_height(p.text, p.size);
      const plot::Rect r{p.pos.x - p.align_x * tw, p.pos.y - p.align_y * th, p.pos.x + (1 - p.align_x) * tw,
                         p.pos.y + (1 - p.align_y) * th};
      for (const plot::Item& item : ax.items)
        if (const auto* line = std::get_if<plot::LineItem>(&item)) {
          double covered = NAN;  // the first x along the curve, as drawn, under the label
          for (size_t i = 0; i + 1 < line->xs.size() && std::isnan(covered); ++i)
            for (int k = 0; k <= 20 && std::isnan(covered); ++k) {
              const double x = line->xs[i] + k / 20.0 * (line->xs[i + 1] - line->xs[i]);
              const double y = line->ys[i] + k / 20.0 * (line->ys[i + 1] - line->ys[i]);
              if (r.contains(f.to_pixel(x, y))) covered = x;
            }
          EXPECT_TRUE(std::isnan(covered))
              << "at width " << w << ": the label covers " << line->label << " at x = " << covered;
        }
    }
    EXPECT_EQ(found, 1) << "at width " << w;
  }
}

INSTANTIATE_TEST_SUITE_P(AllPanels, FigureLegends, ::testing::ValuesIn(testing::registered_ids()),
                         testing::panel_param_name);
// Chinese legends are wider per glyph: the same check with every string translated.
INSTANTIATE_TEST_SUITE_P(AllPanelsZh, FigureLegends, ::testing::ValuesIn(testing::registered_ids_in(Language::Zh)),
                         testing::panel_param_name);

// Horizontal reference lines' labels: two baselines a hair apart (a base model's 0.163 and its fine-tune's 0.157)
// and one at the very top of the range each get their own place inside the plot area, none over another.
TEST(FigureLegends, HorizontalMarkerLabelsStayInsideAndApart) {
  Figure fig("hlines", "reference lines");
  plot::Axes& ax = fig.axes();
  ax.line("data", {0, 1, 2}, {0.2, 0.5, 0.9});
  ax.set_y_range(0, 1);
  ax.hline("base model 0.163", 0.163);
  ax.hline("full fine-tune 0.157", 0.157);
  ax.hline("ceiling 1.0", 1.0);
  const plot::Layout l = plot::layout_figure(fig, {});
  ASSERT_EQ(l.frames.size(), 1u);
  const plot::Rect area = l.frames[0].plot;
  std::vector<plot::Rect> boxes;
  for (const plot::Primitive& p : l.prims) {
    if (p.kind != plot::PrimKind::Text) continue;
    if (p.text != "base model 0.163" && p.text != "full fine-tune 0.157" && p.text != "ceiling 1.0") continue;
    const float w = plot::label_width(p.text, p.size), h = plot::label_height(p.text, p.size);
    const plot::Rect r{p.pos.x - p.align_x * w, p.pos.y - p.align_y * h, p.pos.x + (1 - p.align_x) * w,
                       p.pos.y + (1 - p.align_y) * h};
    EXPECT_GE(r.y0, area.y0) << p.text << " crosses the top of the plot area";
    EXPECT_LE(r.y1, area.y1) << p.text;
    for (const plot::Rect& b : boxes)
      EXPECT_FALSE(r.y0 < b.y1 && b.y0 < r.y1 && r.x0 < b.x1 && b.x0 < r.x1) << p.text << " overlaps";
    boxes.push_back(r);
  }
  EXPECT_EQ(boxes.size(), 3u);
}

}  // namespace
}  // namespace tw
