// Figure quality (lecture-ready): every figure of every registered panel, laid out at its export size and at the
// smallest size a panel squeezes it to on screen (kMinReadable of it: under a presentation zoom, panels scroll
// rather than go smaller), must read whole: no title, axis label or caption cut short, no tick labels touching
// (plot::Layout::problems), and a log axis must show every value plotted on it. New panels are covered
// automatically through the registry.
#include <gtest/gtest.h>

#include <cmath>

#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"
#include "views/plot/theme.h"

namespace tw {
namespace {

using plot::Figure;

// Positive values plotted on a log axis that the axis range leaves out.
std::string log_axis_hides(const Figure& fig, const plot::Layout& l) {
  for (size_t a = 0; a < fig.grid.size() && a < l.frames.size(); ++a) {
    const plot::AxesFrame& f = l.frames[a];
    const double ylo = std::min(f.y0, f.y1), yhi = std::max(f.y0, f.y1);
    const double xlo = std::min(f.x0, f.x1), xhi = std::max(f.x0, f.x1);
    auto check = [&](double v, bool y) -> std::string {
      const bool log = y ? f.y_scale == plot::Scale::Log10 : f.x_scale == plot::Scale::Log10;
      if (!log || !(v > 0) || !std::isfinite(v)) return "";
      const double lo = y ? ylo : xlo, hi = y ? yhi : xhi;
      if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
        return "figure '" + fig.id + "' axes " + std::to_string(a) + ": " + (y ? "y" : "x") + " value " +
               std::to_string(v) + " outside the log axis [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      return "";
    };
    for (const plot::Item& item : fig.grid[a].items) {
      std::string bad;
      if (const auto* line = std::get_if<plot::LineItem>(&item)) {
        for (size_t i = 0; i < line->xs.size() && bad.empty(); ++i) {
          if (!std::isfinite(line->xs[i]) || !std::isfinite(line->ys[i])) continue;
          bad = check(line->xs[i], false);
          if (bad.empty()) bad = check(line->ys[i], true);
        }
      } else if (const auto* bars = std::get_if<plot::BarsItem>(&item)) {
        for (const auto& series : bars->values)
          for (double v : series)
            if (bad.empty()) bad = check(v, true);
      }
      if (!bad.empty()) return bad;
    }
  }
  return "";
}

class FigureQuality : public ::testing::TestWithParam<std::string> {};

TEST_P(FigureQuality, EveryFigureReadsWholeAtExportSizeAndAtItsSmallestOnScreenSize) {
  std::unique_ptr<Panel> panel = make_panel(GetParam());
  ASSERT_NE(panel, nullptr);
  panel->update();
  panel->wait_idle();
  for (const Figure& fig : panel->figures()) {
    const plot::Vec2 size = plot::default_figure_size(fig);
    for (float fraction : {1.0f, plot::kMinReadableFraction}) {
      const plot::Layout l = plot::layout_figure(fig, {.width = size.x * fraction, .height = size.y * fraction});
      for (const std::string& p : l.problems)
        ADD_FAILURE() << GetParam() << " figure '" << fig.id << "' at " << fraction << " of its export size: " << p;
      EXPECT_EQ(log_axis_hides(fig, l), "") << GetParam();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPanels, FigureQuality, ::testing::ValuesIn(testing::registered_ids()),
                         testing::panel_param_name);

}  // namespace
}  // namespace tw
