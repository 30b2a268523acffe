// Window layout (app/layout.h): every window inside the work area, no two windows overlapping partially (either the
// very same cell on different pages, or apart), cells never below the readable minimum when the screen has room.
#include <gtest/gtest.h>

#include <string>

#include "app/layout.h"

namespace tw {
namespace {

bool same_rect(const WinRect& a, const WinRect& b) {
  return std::abs(a.x - b.x) < 0.01f && std::abs(a.y - b.y) < 0.01f && std::abs(a.w - b.w) < 0.01f &&
         std::abs(a.h - b.h) < 0.01f;
}

std::string str(const WinRect& r) {
  std::string s = "(";  // appended piece by piece: GCC 12 warns falsely (-Wrestrict) on a long + chain
  for (float v : {r.x, r.y, r.w, r.h}) s.append(std::to_string(v)).append(" ");
  s.back() = ')';
  return s;
}

TEST(WindowLayout, OverlapAndContainmentHelpers) {
  EXPECT_TRUE(overlaps({0, 0, 10, 10}, {5, 5, 10, 10}));
  EXPECT_FALSE(overlaps({0, 0, 10, 10}, {10, 0, 10, 10}));  // shared edge only
  EXPECT_TRUE(contains({0, 0, 10, 10}, {2, 2, 8, 8}));
  EXPECT_FALSE(contains({0, 0, 10, 10}, {2, 2, 9, 8}));
}

// The screens the issue names (menu bar of 20 px × scale on top), a small laptop and a 4K-like work area at 2×.
struct Screen {
  float w, h, scale;
};
constexpr Screen kScreens[] = {{1280, 720, 1}, {1920, 1080, 1}, {1600, 1000, 1},   {1024, 600, 1},
                               {800, 500, 1},  {3840, 2160, 2}, {1920, 1080, 1.5f}};

TEST(WindowLayout, EveryWindowInsideTheWorkAreaAndNoPartialOverlap) {
  for (const Screen& sc : kScreens) {
    const WinRect work{0, 20 * sc.scale, sc.w, sc.h - 20 * sc.scale};
    const WinRect min = min_panel_cell(sc.scale);
    const WorkLayout wl = split_work_area(work, sc.scale, min.w);
    ASSERT_TRUE(contains(work, wl.side)) << str(wl.side);
    ASSERT_TRUE(contains(work, wl.panels)) << str(wl.panels);
    if (wl.stacked) {  // narrow: one stack of whole-area pages, never side by side partially
      EXPECT_TRUE(same_rect(wl.side, work) && same_rect(wl.panels, work));
      EXPECT_LT(work.w - 300 * sc.scale, min.w);  // only when a panel would not fit beside the narrowest column
    } else {
      EXPECT_FALSE(overlaps(wl.side, wl.panels));
      EXPECT_NEAR(wl.side.w + wl.panels.w, work.w, 0.01f);  // together they use the full width
      EXPECT_GE(wl.panels.w, work.w * 0.5f - 0.01f);        // the panels get the larger part
      EXPECT_GE(wl.panels.w, min.w - 0.01f);                // and never less than a readable panel
    }
    const float gap = 4 * sc.scale;
    for (int count = 1; count <= 20; ++count) {
      const TilePlan plan = tile_panels(wl.panels, count, min, gap);
      const std::string where = std::to_string(int(sc.w)) + "x" + std::to_string(int(sc.h)) + " scale " +
                                std::to_string(sc.scale) + ", " + std::to_string(count) + " panels";
      ASSERT_EQ(plan.cells.size(), size_t(count)) << where;
      ASSERT_EQ(plan.page_of.size(), size_t(count)) << where;
      EXPECT_GE(plan.pages * plan.cols * plan.rows, count) << where;
      EXPECT_LT((plan.pages - 1) * plan.cols * plan.rows, count) << where;  // no empty last page
      for (int i = 0; i < count; ++i) {
        const WinRect& a = plan.cells[size_t(i)];
        EXPECT_TRUE(contains(wl.panels, a)) << where << ": cell " << i << " " << str(a);
        if (!wl.stacked) {
          EXPECT_FALSE(overlaps(a, wl.side)) << where << ": cell " << i << " covers the overview";
        }
        // Readable: at least the minimum cell whenever the area itself is that big.
        if (wl.panels.w >= min.w) {
          EXPECT_GE(a.w, min.w - 0.01f) << where;
        }
        if (wl.panels.h >= min.h) {
          EXPECT_GE(a.h, min.h - 0.01f) << where;
        }
        for (int j = i + 1; j < count; ++j) {
          const WinRect& b = plan.cells[size_t(j)];
          if (plan.page_of[size_t(i)] == plan.page_of[size_t(j)])
            EXPECT_FALSE(overlaps(a, b)) << where << ": cells " << i << " and " << j << " on one page overlap";
          else
            EXPECT_TRUE(same_rect(a, b) || !overlaps(a, b))
                << where << ": cells " << i << " " << str(a) << " and " << j << " " << str(b) << " overlap partially";
        }
      }
    }
  }
}

TEST(WindowLayout, At1280TheOverviewAndThePanelsStackAt1920TheySitSideBySide) {
  const WinRect min = min_panel_cell(1);
  const WorkLayout small = split_work_area({0, 20, 1280, 700}, 1, min.w);
  EXPECT_TRUE(small.stacked);
  EXPECT_TRUE(same_rect(small.panels, {0, 20, 1280, 700}));
  const WorkLayout large = split_work_area({0, 20, 1920, 1060}, 1, min.w);
  EXPECT_FALSE(large.stacked);
  EXPECT_NEAR(large.side.w, 520, 0.01f);
  EXPECT_NEAR(large.panels.x, 520, 0.01f);
}

TEST(WindowLayout, OnePanelGetsTheWholeAreaBesideTheOverview) {
  const WinRect area{400, 20, 880, 700};
  const TilePlan plan = tile_panels(area, 1, min_panel_cell(1), 4);  // narrower than the minimum: still inside
  ASSERT_EQ(plan.cells.size(), 1u);
  EXPECT_TRUE(same_rect(plan.cells[0], area)) << str(plan.cells[0]);
}

TEST(WindowLayout, GridFillsTheAreaWithEqualCells) {
  // A 1724 × 1040 panel area with 860 × 500 minimum cells: 2 fit across and 2 down.
  const WinRect area{0, 0, 1724, 1040};
  const TilePlan plan = tile_panels(area, 4, {0, 0, 860, 500}, 4);
  EXPECT_EQ(plan.cols, 2);
  EXPECT_EQ(plan.rows, 2);
  EXPECT_EQ(plan.pages, 1);
  float covered = 0;
  for (const WinRect& c : plan.cells) covered += c.w * c.h;
  // Cells plus the gaps between them make up the area: 2 vertical gaps of 4 × 1040 would be double counted, so
  // compare against the area minus one vertical and one horizontal gap strip.
  const float expected = (area.w - 4) * (area.h - 4);
  EXPECT_NEAR(covered, expected, expected * 0.002f);
  for (const WinRect& c : plan.cells) {
    EXPECT_NEAR(c.w, plan.cells[0].w, 1.0f);
    EXPECT_NEAR(c.h, plan.cells[0].h, 1.0f);
  }
  // Five panels: a second page reusing the first cell exactly.
  const TilePlan five = tile_panels(area, 5, {0, 0, 860, 500}, 4);
  EXPECT_EQ(five.pages, 2);
  EXPECT_EQ(five.page_of[4], 1);
  EXPECT_TRUE(same_rect(five.cells[4], five.cells[0]));
}

TEST(WindowLayout, AreaSmallerThanTheMinimumGivesOneCellInsideIt) {
  const WinRect area{300, 20, 500, 400};
  const TilePlan plan = tile_panels(area, 3, min_panel_cell(1), 4);
  EXPECT_EQ(plan.cols, 1);
  EXPECT_EQ(plan.rows, 1);
  EXPECT_EQ(plan.pages, 3);
  for (const WinRect& c : plan.cells) EXPECT_TRUE(same_rect(c, area)) << str(c);
  EXPECT_TRUE(tile_panels(area, 0, min_panel_cell(1), 4).cells.empty());
}

}  // namespace
}  // namespace tw
