// Training panel, headless: controls become a run, bad settings keep the previous run, figures match the run,
// pinned runs appear as overlays, and the trained model is handed out with its config.
#include <gtest/gtest.h>

#include "views/panel_test_util.h"
#include "views/panel_train.h"

namespace tw {
namespace {

using testing::run;
using testing::set;

const plot::Figure* find(const std::vector<plot::Figure>& figs, const std::string& id) {
  for (const plot::Figure& f : figs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(PanelTrain, FiguresFollowTheRunAndBadSettingsKeepIt) {
  auto p = make_panel("train");
  ASSERT_NE(p, nullptr);
  set(*p, "layers", 2);
  set(*p, "heads", 3);
  std::vector<plot::Figure> figs = run(*p);
  for (const char* id : {"loss", "accuracy", "grad_norm", "lr", "attention", "head_scores"})
    EXPECT_NE(find(figs, id), nullptr) << id;
  const plot::Figure* att = find(figs, "attention");
  ASSERT_NE(att, nullptr);
  ASSERT_EQ(att->grid.size(), 6u);  // layers × heads
  const auto* heat = std::get_if<plot::HeatmapItem>(&att->grid[0].items.at(0));
  ASSERT_NE(heat, nullptr);
  EXPECT_EQ(heat->rows, 12);              // the sort probe: 6 + 6 tokens
  for (int i = 0; i < heat->rows; ++i) {  // every query row is a distribution over the keys it may see
    double sum = 0;
    for (int j = 0; j < heat->cols; ++j) sum += heat->data[size_t(i * heat->cols + j)];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  ModelConfig config;
  ModelWeights weights;
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  EXPECT_EQ(config.n_layers, 2);
  EXPECT_EQ(config.vocab, 3);  // the sort task's vocabulary
  EXPECT_EQ(weights.layers.size(), 2u);

  set(*p, "vocab", 2);  // smaller than the task's vocabulary: refused, the run stays
  figs = run(*p);
  EXPECT_EQ(find(figs, "attention")->grid.size(), 6u);
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  EXPECT_EQ(config.vocab, 3);

  TrainSettings s;
  int steps = 0;
  std::string error;
  EXPECT_FALSE(train_settings_of_panel(*p, &s, &steps, &error));
  EXPECT_NE(error.find("vocabulary of 3"), std::string::npos) << error;
  auto other = make_panel("softmax");
  EXPECT_FALSE(train_settings_of_panel(*other, &s, &steps, &error));
  EXPECT_FALSE(trained_model_of_panel(*other, &config, &weights));
}

TEST(PanelTrain, PinnedRunsAreOverlaidOnTheCurves) {
  TrainSnapshot snap;
  Trainer t;
  TrainSettings s;
  s.model =
      ModelConfig{.dim = 16, .n_layers = 1, .n_heads = 2, .n_kv_heads = 2, .vocab = 3, .hidden = 32, .max_seq = 12};
  s.batch = 4;
  std::string error;
  ASSERT_TRUE(t.init(s, &error)) << error;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(t.step(&error)) << error;
  snap = make_snapshot(t);
  snap.pinned.push_back({"run 1", t.history()});
  snap.pinned.push_back({"run 2", t.history()});
  const std::vector<plot::Figure> figs = train_figures(snap, 10);
  const plot::Figure* loss = find(figs, "loss");
  ASSERT_NE(loss, nullptr);
  int pinned = 0, train_points = 0;
  for (const plot::Item& item : loss->grid[0].items)
    if (const auto* l = std::get_if<plot::LineItem>(&item)) {
      if (l->label.rfind("pinned: ", 0) == 0) ++pinned;
      if (l->label == "train") train_points = int(l->ys.size());
    }
  EXPECT_EQ(pinned, 2);
  EXPECT_EQ(train_points, 3);  // one point per step
}

}  // namespace
}  // namespace tw
