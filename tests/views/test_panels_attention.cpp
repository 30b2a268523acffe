// The softmax, masks and ALiBi panels headless: figure ids, the CSV columns issue 6 names, and figure numbers
// equal to the core experiments they come from (views never re-implement math).
#include <gtest/gtest.h>

#include "core/experiments/alibi_analysis.h"
#include "core/experiments/mask_analysis.h"
#include "core/experiments/softmax_saturation.h"
#include "core/ops/alibi.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"

namespace tw {
namespace {

using namespace testing;  // by_id, num, run, set

TEST(PanelSoftmax, SweepCsvColumnsAndValuesFromCore) {
  auto p = make_panel("softmax");
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  for (const char* id : {"scores", "query", "sweep", "worked"}) EXPECT_NE(by_id(figs, id), nullptr) << id;
  const plot::Figure* sweep = by_id(figs, "sweep");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(sweep->table.header,
            (std::vector<std::string>{"d_k", "max_p_scaled", "max_p_unscaled", "entropy_bits_scaled",
                                      "entropy_bits_unscaled", "grad_scaled", "grad_unscaled"}));
  // Defaults: n = 16 keys, 1000 queries per point, seed 0 → the panel passes seed + 2 to the sweep.
  const auto core = saturation_sweep(log_dk_grid(1, 4096), 16, 1000, ScaleMode::InvSqrtDk, 0.125f, 1.0f, 2);
  ASSERT_EQ(sweep->table.rows.size(), core.size());
  for (size_t k = 0; k < core.size(); ++k) {
    EXPECT_EQ(num(sweep->table.rows[k][0]), core[k].d_k);
    EXPECT_EQ(num(sweep->table.rows[k][2]), core[k].max_p_unscaled);
    EXPECT_EQ(num(sweep->table.rows[k][6]), core[k].grad_unscaled);
  }
  // The worked table is the seed's example, recomputed: softmax([1, 0.5, −0.5]) top gradient ≈ 0.2478.
  const plot::Figure* worked = by_id(figs, "worked");
  ASSERT_NE(worked, nullptr);
  EXPECT_NEAR(num(worked->table.rows[0][4]), 0.247833155, 1e-6);
}

TEST(PanelSoftmax, BadLogitsGiveAnEmptyAxesNotACrash) {
  auto p = make_panel("softmax");
  set(*p, "logits_a", "1, banana");
  const auto figs = run(*p);
  const plot::Figure* worked = by_id(figs, "worked");
  ASSERT_NE(worked, nullptr);
  for (const auto& row : worked->table.rows) EXPECT_EQ(std::get<std::string>(row[0]), "B");
}

TEST(PanelMasks, CsvShapesAndEmptyRows) {
  auto p = panel_with("masks", {{"T", 10}, {"padding", true}, {"pad_count", 2}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  const plot::Figure* mask = by_id(figs, "mask");
  const plot::Figure* visible = by_id(figs, "visible");
  ASSERT_TRUE(mask && visible && by_id(figs, "receptive") && by_id(figs, "uniform"));
  // masks-mask: T rows × T columns of 0/1, row = query.
  ASSERT_EQ(mask->table.header.size(), 10u);
  ASSERT_EQ(mask->table.rows.size(), 10u);
  const MaskAnalysis core = analyze_mask({causal_mask().term, padding_mask(2, true, 10).term}, 10);
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) EXPECT_EQ(num(mask->table.rows[i][j]), core.allowed(i, j) ? 1.0 : 0.0);
  EXPECT_EQ(visible->table.header, (std::vector<std::string>{"query", "visible_keys"}));
  EXPECT_EQ(num(visible->table.rows[0][1]), 0.0);  // a left pad query sees nothing
  EXPECT_EQ(num(visible->table.rows[9][1]), 8.0);
}

TEST(PanelMasks, InvalidTermShowsNoFigures) {
  auto p = make_panel("masks");
  set(*p, "documents", true);
  set(*p, "doc_lengths", nlohmann::json::array());
  EXPECT_TRUE(run(*p).empty());  // the panel shows the validation message instead
  EXPECT_FALSE(p->error().empty());
}

TEST(PanelAlibi, SlopesAndBiasCsv) {
  auto p = panel_with("alibi", {{"n_heads", 12}, {"T", 6}, {"head", 9}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  const plot::Figure* slopes = by_id(figs, "slopes");
  const plot::Figure* bias = by_id(figs, "bias");
  ASSERT_TRUE(slopes && bias);
  EXPECT_EQ(slopes->table.header, (std::vector<std::string>{"head", "slope"}));
  const std::vector<double> m = alibi_slopes(12);
  ASSERT_EQ(slopes->table.rows.size(), 12u);
  for (int h = 0; h < 12; ++h) EXPECT_EQ(num(slopes->table.rows[h][1]), m[h]);
  ASSERT_EQ(bias->table.rows.size(), 6u);
  ASSERT_EQ(bias->table.header.size(), 6u);
  EXPECT_FLOAT_EQ(num(bias->table.rows[5][1]), static_cast<float>(-m[9] * 4));  // −m·(i − j), i = 5, j = 1
  EXPECT_EQ(num(bias->table.rows[1][5]), 0.0);                                  // future cell: the mask owns it
}

TEST(PanelAlibi, HeadBeyondCountIsClampedNotAnError) {
  auto p = make_panel("alibi");
  set(*p, "n_heads", 4);
  set(*p, "head", 30);
  const auto figs = run(*p);
  ASSERT_FALSE(figs.empty());
  EXPECT_NE(by_id(figs, "bias")->title.find("head 3"), std::string::npos);
}

}  // namespace
}  // namespace tw
