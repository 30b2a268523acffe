// The positions, norms, decoding and stability panels headless: the CSV columns docs/panels.md names, the numbers in
// them against independent core calls, the error contract, and every figure laid out without problems at its default
// export size and at the on-screen default width.
#include <gtest/gtest.h>

#include <cmath>

#include "core/experiments/information.h"
#include "core/experiments/norm_analysis.h"
#include "core/experiments/stability_tricks.h"
#include "core/ops/sampling.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"

namespace tw {
namespace {

using testing::expect_error_without_figures;
using testing::panel_with;
using testing::run;
using testing::set;

using testing::num;
using testing::table_of;

class LecturePanels : public ::testing::TestWithParam<std::string> {};

TEST_P(LecturePanels, EveryFigureLaysOutWithoutProblems) {
  auto p = make_panel(GetParam());
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_FALSE(figs.empty()) << p->error();
  for (const plot::Figure& f : figs) {
    EXPECT_FALSE(plot::figure_table(f).header.empty()) << f.id;
    const plot::Vec2 size = plot::default_figure_size(f);
    for (const plot::Theme theme : {plot::Theme::Dark, plot::Theme::Print}) {
      const plot::Layout l = plot::layout_figure(f, {.width = size.x, .height = size.y, .theme = theme});
      std::string all;
      for (const std::string& s : l.problems) all += s + "; ";
      EXPECT_TRUE(l.problems.empty()) << GetParam() << "-" << f.id << ": " << all;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, LecturePanels, ::testing::Values("positions", "norms", "decoding", "stability"));

TEST(NormsPanel, ExactValuesOfOneToNine) {
  auto p = make_panel("norms");
  set(*p, "depths", std::vector<int>{2});
  const plot::Table t = table_of(run(*p), "norms");
  EXPECT_EQ(t.header, (std::vector<std::string>{"index", "x", "layernorm", "rmsnorm", "batchnorm"}));
  ASSERT_EQ(t.rows.size(), 9u);
  // [1 … 9]: mean 5, biased variance 60/9 = 20/3, mean square 285/9 = 95/3 (written out, not from core).
  for (int i = 0; i < 9; ++i) {
    const double x = i + 1;
    EXPECT_NEAR(num(t.rows[i][2]), (x - 5) / std::sqrt(20.0 / 3 + 1e-5), 1e-5);
    EXPECT_NEAR(num(t.rows[i][3]), x / std::sqrt(95.0 / 3 + 1e-5), 1e-5);
  }
}

TEST(NormsPanel, BadVectorIsAnErrorNotACrash) {
  expect_error_without_figures(panel_with("norms", {{"vector", "1, two"}}), "vector");
}

TEST(DecodingPanel, FilterTableMatchesSamplingFilter) {
  auto p = make_panel("decoding");
  set(*p, "logits_p", "2, 1, 0.5, 0, -1");
  set(*p, "logits_q", "1, 1, 1, 1, 1");
  set(*p, "top_k", 3);
  set(*p, "min_p", 0.3);
  const auto figs = run(*p);
  const plot::Table t = table_of(figs, "filters");
  ASSERT_EQ(t.rows.size(), 5u);
  SamplingTrace tr;
  sampling_filter(tr, {2, 1, 0.5f, 0, -1}, {.temperature = 1, .top_k = 3, .top_p = 0.9f, .min_p = 0.3f});
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(num(t.rows[r][1]), r);  // already sorted by logit
    EXPECT_NEAR(num(t.rows[r][7]), tr.probs[r], 1e-7);
  }
  // min-p 0.3 of p(0) = e²/Σ: tokens 0 and 1 pass (e¹/e² = 0.37), token 2 (e^-1.5 = 0.22) does not.
  EXPECT_EQ(num(t.rows[1][6]), 1.0);
  EXPECT_EQ(num(t.rows[2][6]), 0.0);
  const plot::Table kl = table_of(figs, "kl");
  for (const auto& row : kl.rows) EXPECT_GE(num(row[2]), 0.0);
}

TEST(DecodingPanel, MismatchedLengthsAreAnError) {
  expect_error_without_figures(panel_with("decoding", {{"logits_q", "1, 2"}}), "same number");
}

TEST(StabilityPanel, SoftcapTableAndTrainingRunsOnlyWhenAsked) {
  auto p = make_panel("stability");
  set(*p, "cap", 2.0);
  auto figs = run(*p);
  const plot::Table s = table_of(figs, "softcap");
  EXPECT_EQ(s.header, (std::vector<std::string>{"x", "capped", "derivative"}));
  for (const auto& row : s.rows) EXPECT_NEAR(num(row[1]), 2.0 * std::tanh(num(row[0]) / 2.0), 1e-9);
  EXPECT_TRUE(table_of(figs, "training").rows.empty());
  set(*p, "train", true);
  set(*p, "steps", 4);
  figs = run(*p);
  const plot::Table t = table_of(figs, "training");
  EXPECT_EQ(t.header, (std::vector<std::string>{"run", "step", "train_loss", "grad_norm"}));
  EXPECT_EQ(t.rows.size(), 8u);
}

TEST(PositionsPanel, OpensOnTheCachedRunWithLearnedMissingPastL) {
  auto p = make_panel("positions");
  const auto figs = run(*p);
  const plot::Table t = table_of(figs, "extrapolation");
  EXPECT_EQ(t.header, (std::vector<std::string>{"position", "none", "learned", "sinusoidal", "rope", "alibi"}));
  ASSERT_EQ(t.rows.size(), 64u);
  EXPECT_EQ(std::get<std::string>(t.rows[20][2]), "no code");
  EXPECT_TRUE(std::isfinite(num(t.rows[20][5])));
  const plot::Table s = table_of(figs, "similarity");
  EXPECT_EQ(s.header[0], "distance");
  EXPECT_NEAR(num(s.rows[0][3]), 1.0, 1e-6);  // sinusoidal cosine at distance 0
}

}  // namespace
}  // namespace tw
