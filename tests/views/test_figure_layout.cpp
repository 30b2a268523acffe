// Panel figure layouts name figures by id (views/widgets.h FigureLayout): reordering a panel's figures keeps every
// figure in its row, and every id a shipped layout names is a figure the panel shows.
#include <gtest/gtest.h>

#include "views/panel_test_util.h"

#include <algorithm>
#include <set>

#include "views/panel.h"
#include "views/widgets.h"

namespace tw {
namespace {

std::vector<std::vector<std::string>> ids_by_row(const std::vector<plot::Figure>& figs,
                                                 const std::vector<FigureRow>& rows) {
  std::vector<std::vector<std::string>> out;
  for (const std::vector<size_t>& row : figure_rows_indices(figs, rows)) {
    std::vector<std::string>& r = out.emplace_back();
    for (size_t i : row) r.push_back(figs.at(i).id);
  }
  return out;
}

TEST(FigureLayout, ReorderingTheFiguresKeepsTheLayout) {
  auto p = make_panel("softmax");
  std::vector<plot::Figure> figs = testing::run(*p);
  ASSERT_EQ(figs.size(), 4u);
  const std::vector<FigureRow> rows = {{{"scores", "query"}}, {{"sweep"}, 0.8f}, {{"worked"}, 0.7f}};
  const std::vector<std::vector<std::string>> want = {{"scores", "query"}, {"sweep"}, {"worked"}};
  EXPECT_EQ(ids_by_row(figs, rows), want);
  std::reverse(figs.begin(), figs.end());  // a panel that lists its figures in another order
  EXPECT_EQ(ids_by_row(figs, rows), want);
  EXPECT_EQ(figure_rows_indices(figs, rows), (std::vector<std::vector<size_t>>{{3, 2}, {1}, {0}}));
  figs.erase(figs.begin());  // "worked" not shown: its row is empty, the others stay
  EXPECT_EQ(ids_by_row(figs, rows), (std::vector<std::vector<std::string>>{{"scores", "query"}, {"sweep"}, {}}));
  EXPECT_EQ(find_figure(figs, "worked"), nullptr);
  ASSERT_NE(find_figure(figs, "sweep"), nullptr);
  EXPECT_EQ(find_figure(figs, "sweep")->id, "sweep");
}

// A typo in a layout would silently drop a figure from the screen: every id must name one of the panel's figures.
TEST(FigureLayout, EveryLayoutIdIsAFigureOfItsPanel) {
  int panels_with_layouts = 0;
  for (const std::string& id : testing::registered_ids()) {
    auto p = make_panel(id);
    const std::vector<std::string> layout = p->layout_figure_ids();
    if (layout.empty()) continue;
    ++panels_with_layouts;
    const std::vector<plot::Figure> figs = testing::run(*p);
    std::set<std::string> shown;
    for (const plot::Figure& f : figs) shown.insert(f.id);
    for (const std::string& f : layout) EXPECT_TRUE(shown.count(f)) << id << ": layout names \"" << f << "\"";
    EXPECT_EQ(std::set<std::string>(layout.begin(), layout.end()).size(), layout.size()) << id << ": an id twice";
  }
  EXPECT_GE(panels_with_layouts, 15);
}

// The Training panel draws its figures by id: its layout places every figure it has, dense or mixture of experts
// (a figure added to train_figures() but not to the layout would never reach the screen).
TEST(FigureLayout, TheTrainingPanelPlacesEveryFigureItHas) {
  for (int experts : {0, 4}) {
    auto p = make_panel("train");
    testing::set(*p, "layers", 1);
    testing::set(*p, "experts", experts);
    const std::vector<plot::Figure> figs = testing::run(*p);
    std::set<std::string> shown;
    for (const plot::Figure& f : figs) shown.insert(f.id);
    const std::vector<std::string> layout = p->layout_figure_ids();
    EXPECT_EQ(std::set<std::string>(layout.begin(), layout.end()), shown) << "experts " << experts;
    EXPECT_EQ(shown.count("expert_load"), experts ? 1u : 0u);
  }
}

}  // namespace
}  // namespace tw
