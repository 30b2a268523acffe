// Control sweep (issue 9): every control of every registered panel, driven through its scene key to its
// minimum, its maximum and seeded random values, one at a time from defaults. After each change the panel
// recomputes (update + wait_idle), its figures are built and laid out, and nothing non-finite may reach them:
// no NaN or ±∞ in any plotted value (−∞ only as a masked heatmap cell) and none in any laid-out coordinate.
// A new panel is swept automatically because the list comes from the registry.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <sstream>

#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"

namespace tw {
namespace {

using plot::Figure;

// Describes the first non-finite value in a figure's items, or returns "".
std::string first_non_finite(const Figure& fig) {
  auto bad = [](double v) { return !std::isfinite(v); };
  for (size_t a = 0; a < fig.grid.size(); ++a) {
    for (const plot::Item& item : fig.grid[a].items) {
      std::ostringstream where;
      where << "figure '" << fig.id << "' axes " << a << ": ";
      if (const auto* l = std::get_if<plot::LineItem>(&item)) {
        for (size_t i = 0; i < l->xs.size(); ++i)
          if (bad(l->xs[i]) || bad(l->ys[i])) return where.str() + "line '" + l->label + "' point " + std::to_string(i);
      } else if (const auto* b = std::get_if<plot::BarsItem>(&item)) {
        for (const auto& series : b->values)
          for (double v : series)
            if (bad(v)) return where.str() + "bars";
      } else if (const auto* h = std::get_if<plot::HistogramItem>(&item)) {
        for (double v : h->values)
          if (bad(v)) return where.str() + "histogram '" + h->label + "'";
      } else if (const auto* m = std::get_if<plot::HeatmapItem>(&item)) {
        for (size_t i = 0; i < m->data.size(); ++i) {
          const double v = m->data[i];
          const bool masked = std::isinf(v) && v < 0;
          if (!masked && bad(v)) return where.str() + "heatmap '" + m->label + "' cell " + std::to_string(i);
        }
      } else if (const auto* r = std::get_if<plot::ArrowItem>(&item)) {
        if (bad(r->x0) || bad(r->y0) || bad(r->x1) || bad(r->y1)) return where.str() + "arrow '" + r->label + "'";
      } else if (const auto* c = std::get_if<plot::ArcItem>(&item)) {
        if (bad(c->a0) || bad(c->a1) || bad(c->r)) return where.str() + "arc '" + c->label + "'";
      } else if (const auto* t = std::get_if<plot::TextItem>(&item)) {
        if (bad(t->x) || bad(t->y)) return where.str() + "text '" + t->text + "'";
      } else if (const auto* k = std::get_if<plot::MarkerLineItem>(&item)) {
        if (bad(k->value)) return where.str() + "marker '" + k->label + "'";
      }
    }
  }
  return "";
}

std::string first_non_finite(const plot::Layout& layout) {
  auto bad = [](float v) { return !std::isfinite(v); };
  for (const plot::Primitive& p : layout.prims) {
    for (const plot::Vec2& q : p.points)
      if (bad(q.x) || bad(q.y)) return "a laid-out point";
    if (bad(p.rect.x0) || bad(p.rect.y0) || bad(p.rect.x1) || bad(p.rect.y1)) return "a laid-out rectangle";
    if (bad(p.pos.x) || bad(p.pos.y)) return "a laid-out text position";
  }
  return "";
}

// Seeded random values per numeric control: three in the Release stage, one under the sanitizers, where every
// panel recompute costs several times more and the extremes (what the sanitizers are there for) are swept anyway.
#ifdef TW_SANITIZED
constexpr int kRandomValues = 1;
#else
constexpr int kRandomValues = 3;
#endif

// The values a control is driven to: minimum, maximum and kRandomValues seeded random values inside the range.
std::vector<nlohmann::json> sweep_values(const Control& c, std::mt19937& rng) {
  std::vector<nlohmann::json> out;
  switch (c.type) {
    case ControlType::Bool: out = {true, false}; break;
    case ControlType::Int: {
      const int lo = int(c.min), hi = int(c.max);
      out = {lo, hi};
      std::uniform_int_distribution<int> d(lo, hi);
      for (int i = 0; i < kRandomValues; ++i) out.push_back(d(rng));
      break;
    }
    case ControlType::Float: {
      out = {c.min, c.max};
      std::uniform_real_distribution<double> d(c.min, c.max);
      for (int i = 0; i < kRandomValues; ++i) out.push_back(d(rng));
      break;
    }
    case ControlType::Enum:
      for (const auto& o : c.options) out.push_back(o);
      break;
    case ControlType::Text: {
      out = {"", "The quick brown fox \u221A\u03B8 \xF0\x9F\x98\x80", "\n\t\x01 odd \xff bytes"};
      std::string long_text(size_t(std::min(c.max, 4096.0)), 'a');
      out.push_back(long_text);
      break;
    }
    case ControlType::IntList: {
      const int lo = int(c.min), hi = int(c.max);
      out = {nlohmann::json::array(), std::vector<int>{lo}, std::vector<int>{hi},
             std::vector<int>(size_t(std::min(c.max_items, 8)), hi)};
      std::uniform_int_distribution<int> d(lo, hi);
      std::vector<int> random_list;
      for (int i = 0; i < std::min(c.max_items, 5); ++i) random_list.push_back(d(rng));
      out.push_back(random_list);
      break;
    }
  }
  // Every value must pass the control's own validation, as a scene file's would.
  std::vector<nlohmann::json> valid;
  for (auto& v : out)
    if (!c.check(v, c.key)) valid.push_back(v);
  return valid;
}

void expect_clean_figures(Panel& panel, const std::string& context) {
  panel.update();
  panel.wait_idle();
  const std::vector<Figure> figures = panel.figures();
  for (const Figure& fig : figures) {
    const std::string bad = first_non_finite(fig);
    EXPECT_EQ(bad, "") << context;
    const plot::Vec2 size = plot::default_figure_size(fig);
    const plot::Layout layout = plot::layout_figure(fig, {.width = size.x, .height = size.y});
    EXPECT_EQ(first_non_finite(layout), "") << context << " figure '" << fig.id << "'";
  }
}

class ControlSweep : public ::testing::TestWithParam<std::string> {};

TEST_P(ControlSweep, EveryControlAtItsExtremesAndRandomValuesGivesFiniteFigures) {
  std::unique_ptr<Panel> panel = make_panel(GetParam());
  ASSERT_NE(panel, nullptr);
  expect_clean_figures(*panel, GetParam() + " at defaults");
  std::mt19937 rng(1234);
  for (Control& c : panel->controls().all()) {
    const std::string key = GetParam() + "." + c.key;
    const auto values = sweep_values(c, rng);
    EXPECT_FALSE(values.empty()) << key << ": no value passed the control's own check";
    for (const auto& v : values) {
      panel->controls().reset_to_defaults();
      c.set(v);
      EXPECT_NO_THROW(expect_clean_figures(
          *panel, key + " = " + v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 60)));
    }
  }
  panel->controls().reset_to_defaults();
  expect_clean_figures(*panel, GetParam() + " back at defaults");
}

INSTANTIATE_TEST_SUITE_P(AllPanels, ControlSweep, ::testing::ValuesIn(testing::registered_ids()),
                         testing::panel_param_name);

TEST(ControlSweep, EveryPanelIsRegisteredWithUniqueId) {
  const auto ids = testing::registered_ids();
  ASSERT_FALSE(ids.empty());
  std::set<std::string> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
}

}  // namespace
}  // namespace tw
