// The head-role panel: its map CSV is core's score_head_roles on the same model and probes, the lines probe is
// refused with a message for a vocabulary that cannot spell it, and a missing folder is an error without figures.
#include <gtest/gtest.h>

#include "core/experiments/head_roles.h"
#include "core/train/model_folder.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"

namespace tw {
namespace {

using testing::num;
using testing::str;

TEST(PanelHeads, MapIsCoresScoresOnTheInductionModel) {
  auto p = testing::panel_with("heads", {{"model", "induction"}, {"samples", 3}, {"seed", 5}, {"threshold", 0.4}});
  ASSERT_TRUE(p);
  const auto figs = testing::run(*p);
  ASSERT_EQ(p->error(), "");
  const plot::Figure& map = testing::figure_by_id(figs, "map");

  StepperModel m;
  std::string error;
  ASSERT_TRUE(load_task_checkpoint(shipped_models_dir() + "/induction", &m, &error)) << error;
  HeadRoleParams params;
  params.samples = 3;
  params.seed = 5;
  for (int id = 0; id < m.config.vocab; ++id) params.pool.push_back(id);  // the task's symbols: none special
  const HeadRoleMap core = score_head_roles(m.config, *m.weights, params);
  ASSERT_EQ(core.error, "");

  const plot::Table& t = map.table;
  ASSERT_EQ(t.rows.size(), static_cast<size_t>(core.layers * core.heads));
  EXPECT_EQ(t.header[2], "previous_token");
  EXPECT_EQ(t.header[3], "induction");
  for (const auto& row : t.rows) {
    const int l = static_cast<int>(num(row[0])), h = static_cast<int>(num(row[1]));
    EXPECT_NEAR(num(row[2]), core.score[0](l, h), 1e-6);
    EXPECT_NEAR(num(row[3]), core.score[1](l, h), 1e-6);
    EXPECT_NEAR(num(row[4]), core.score[2](l, h), 1e-6);
    for (int k = 3; k < kHeadRoleCount; ++k)  // the line roles: the poem is not in the copy task's symbols
      EXPECT_EQ(str(row[2 + size_t(k)]), "") << head_role_key(static_cast<HeadRole>(k));
    const int b = core.best[static_cast<size_t>(l * core.heads + h)];
    EXPECT_EQ(str(row[2 + kHeadRoleCount]), b >= 0 ? head_role_key(static_cast<HeadRole>(b)) : "none");
  }
  EXPECT_GE(core.heads_with_role(HeadRole::Induction), 1);
  // The previous-line role is named as not measured, with the reason.
  EXPECT_NE(testing::figure_by_id(figs, "scores").note.find("previous line not measured"), std::string::npos);
}

TEST(PanelHeads, LinesOfTheTaskSymbolsAreMeasured) {
  auto p = testing::panel_with("heads", {{"model", "sort"}, {"lines", "ABCA/BCAB/CABC"}});
  ASSERT_TRUE(p);
  const auto figs = testing::run(*p);
  ASSERT_EQ(p->error(), "");
  const plot::Table& t = testing::figure_by_id(figs, "map").table;
  for (const auto& row : t.rows) EXPECT_GE(num(row[5]), 0.0);  // a number, not the empty cell
  // Lines of unequal length are refused by name.
  testing::set(*p, "lines", "ABC/AB");
  const auto figs2 = testing::run(*p);
  EXPECT_NE(testing::figure_by_id(figs2, "scores").note.find("3 and 2 tokens"), std::string::npos);
}

TEST(PanelHeads, MissingFolderIsAnError) {
  auto p = testing::panel_with("heads", {{"model", "folder"}, {"model_dir", "/nonexistent/model"}});
  ASSERT_TRUE(p);
  testing::expect_error_without_figures(p, "/nonexistent/model");
}

}  // namespace
}  // namespace tw
