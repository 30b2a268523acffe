// Training panel, headless: controls become a run, bad settings keep the previous run, figures match the run,
// pinned runs appear as overlays, and the trained model is handed out with its config.
#include <gtest/gtest.h>

#include "views/handoffs.h"
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

// A run small enough to take a few steps in a test: the default sort task (vocabulary 3, 12 tokens), width 16.
TrainSettings small_run(int layers) {
  TrainSettings s;
  s.model = {.dim = 16, .n_layers = layers, .n_heads = 2, .n_kv_heads = 2, .vocab = 3, .hidden = 32, .max_seq = 12};
  s.batch = 4;
  return s;
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
  const TrainSettings s = small_run(1);
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

// MoE: the load figure's bars are the last batch's routing (Σ load = tokens·k − dropped per layer), the balance
// curve has one point per step, and values another panel posts (the MoE panel's button) become this panel's run.
TEST(PanelTrain, MixtureOfExpertsFiguresAndHandOff) {
  Trainer t;
  TrainSettings s = small_run(2);
  s.model.experts = 4;
  s.model.top_k = 2;
  s.model.capacity_factor = 1.0;
  std::string error;
  ASSERT_TRUE(t.init(s, &error)) << error;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(t.step(&error)) << error;
  const TrainSnapshot snap = make_snapshot(t);
  const std::vector<plot::Figure> figs = train_figures(snap, 10);
  const plot::Figure* load = find(figs, "expert_load");
  ASSERT_NE(load, nullptr);
  const auto* bars = std::get_if<plot::BarsItem>(&load->grid[0].items.at(0));
  ASSERT_NE(bars, nullptr);
  ASSERT_EQ(bars->values.size(), 2u);  // one series per layer
  ASSERT_EQ(bars->groups.size(), 5u);  // 4 experts + dropped
  const int tokens = 4 * 12, k = 2;
  for (const std::vector<double>& v : bars->values) {
    double accepted = 0;
    for (int e = 0; e < 4; ++e) accepted += v[size_t(e)];
    EXPECT_EQ(accepted, tokens * k - v[4]);
  }
  const plot::Figure* balance = find(figs, "balance_loss");
  ASSERT_NE(balance, nullptr);
  const auto* curve = std::get_if<plot::LineItem>(&balance->grid[0].items.at(0));
  ASSERT_NE(curve, nullptr);
  EXPECT_EQ(curve->ys.size(), 3u);
  for (double b : curve->ys) EXPECT_GE(b, 1.0);  // E·Σ f·P̄ with Σ f = k = 2 is at least about 1
  s.model.experts = 0;                           // a dense run has neither figure
  ASSERT_TRUE(t.init(s, &error)) << error;
  EXPECT_EQ(find(train_figures(make_snapshot(t), 10), "expert_load"), nullptr);

  auto p = make_panel("train");
  ASSERT_NE(p, nullptr);
  p->handoffs().post_values(
      "train", {{"experts", 4}, {"top_k", 2}, {"capacity_factor", 1.25}, {"activation", "swiglu"}, {"top_k_typo", 3}});
  run(*p);
  ModelConfig config;
  ModelWeights weights;
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  EXPECT_EQ(config.experts, 4);
  EXPECT_EQ(config.top_k, 2);
  EXPECT_EQ(config.capacity_factor, 1.25);
  EXPECT_EQ(weights.layers[0].experts.size(), 4u);
  p->handoffs().post_values("train", {{"experts", 1000}});  // out of range: refused, the run stays
  run(*p);
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  EXPECT_EQ(config.experts, 4);
}

// A language run whose BPE tokenizer is not built yet: update() hands the training to a worker and keeps the
// previous run (the UI thread never waits the second or two it takes); the run starts once it is built.
TEST(PanelTrain, LanguageTokenizerTrainsOnAWorkerBeforeTheRunStarts) {
  auto p = make_panel("train");
  ASSERT_NE(p, nullptr);
  run(*p);  // the default run (sort: vocabulary 3)
  ModelConfig config;
  ModelWeights weights;
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  ASSERT_EQ(config.vocab, 3);
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{{"task", "language"},
                                                                                      {"corpus", "quotes"},
                                                                                      {"tokenizer", "bpe"},
                                                                                      {"lm_vocab", 311},
                                                                                      {"context", 16},
                                                                                      {"layers", 1},
                                                                                      {"dim", 16},
                                                                                      {"heads", 2},
                                                                                      {"kv_heads", 2},
                                                                                      {"hidden", 32},
                                                                                      {"batch", 2},
                                                                                      {"steps", 2}})
    set(*p, key, value);
  p->update();  // starts the tokenizer on the worker; the sort run stays until it is built
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  EXPECT_EQ(config.vocab, 3);
  p->wait_idle();  // headless: waits for the tokenizer, then starts the run
  ASSERT_TRUE(trained_model_of_panel(*p, &config, &weights));
  EXPECT_EQ(config.vocab, 311);  // 256 bytes + 55 merges
  EXPECT_FALSE(p->busy());
}

}  // namespace
}  // namespace tw
