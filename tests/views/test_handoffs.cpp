// The panel hand-offs (views/handoffs.h): one mailbox owned by the app state and shared by its panels; a panel made
// alone or a preview's scratch state has its own, so nothing global links them.
#include <gtest/gtest.h>

#include "views/panel_test_util.h"

#include <memory>

#include "app/app_state.h"
#include "core/train/model_folder.h"
#include "views/handoffs.h"
#include "views/panel.h"
#include "views/train/train_checkpoint.h"

namespace tw {
namespace {

using testing::figure_by_id;
using testing::heatmap;
using testing::run;
using testing::set;

TEST(Handoffs, ThePanelsOfAnAppStateShareItsOneMailbox) {
  AppState app = make_app_state();
  ASSERT_NE(app.handoffs, nullptr);
  ASSERT_FALSE(app.panels.empty());
  for (PanelSlot& slot : app.panels) EXPECT_EQ(&slot.panel->handoffs(), app.handoffs.get()) << slot.info.id;
  AppState other = make_app_state();  // e.g. the start page's scratch state
  EXPECT_NE(other.handoffs, app.handoffs);
  app.find("decoding")->panel->handoffs().post_values("forward", {{"temperature", 0.5}});
  EXPECT_FALSE(other.find("forward")->panel->handoffs().take_posted_values("forward").has_value());
  EXPECT_EQ(app.find("forward")->panel->handoffs().take_posted_values("forward"),
            nlohmann::json({{"temperature", 0.5}}));
}

TEST(Handoffs, APanelMadeAloneHasItsOwn) {
  auto a = make_panel("forward");
  auto b = make_panel("forward");
  EXPECT_NE(&a->handoffs(), &b->handoffs());
  EXPECT_EQ(&a->handoffs(), &a->handoffs()) << "made once, then kept";
  a->handoffs().post_values("forward", {{"temperature", 0.7}});
  EXPECT_FALSE(b->handoffs().take_posted_values("forward").has_value());
  EXPECT_EQ(b->handoffs().take_focus_request(), "");
  EXPECT_EQ(a->handoffs().take_focus_request(), "forward");
  EXPECT_EQ(a->handoffs().take_focus_request(), "") << "a focus request is taken once";
  ASSERT_TRUE(a->handoffs().take_posted_values("forward").has_value());
  EXPECT_FALSE(a->handoffs().take_posted_values("forward").has_value()) << "taken once";
}

// The Training panel publishes its run to the app state's mailbox; its "Open in forward stepper" posts the run's
// model there (the same call TrainCheckpoint::draw makes), and the stepper of the same app state opens it.
TEST(Handoffs, TheStepperReceivesAModelTrainedInTheTrainingPanel) {
  AppState app = make_app_state();
  Panel& train = *app.find("train")->panel;
  Panel& forward = *app.find("forward")->panel;
  set(train, "layers", 1);
  run(train);  // headless, the run is initialised and published (Play is the user's)
  const std::shared_ptr<const TrainSnapshot> snap = app.handoffs->latest_training_run();
  ASSERT_TRUE(snap && snap->ready);
  EXPECT_EQ(snap->settings.model.n_layers, 1) << "the run of this app state's Training panel";
  train.handoffs().post_model(
      "forward", task_stepper_model(snap->settings.model, std::make_shared<const ModelWeights>(snap->weights),
                                    snap->task, "Training panel model", "the Training panel's model"));
  EXPECT_EQ(app.handoffs->take_focus_request(), "forward");
  run(forward);
  EXPECT_EQ(forward.controls().to_json()["model"].get<std::string>(), "training");
  EXPECT_EQ(forward.error(), "");
  // A second app state's stepper saw nothing.
  AppState other = make_app_state();
  EXPECT_EQ(other.handoffs->latest_training_run(), nullptr);
  EXPECT_FALSE(other.handoffs->take_posted_model("forward").has_value());
}

// "Open in forward stepper" on a mixture-of-experts run: the stepper opens it and shows its routing. The router's
// probabilities and the gates lie in [0, 1] on a sequential scale; the load is one bar per expert whose sum is the
// T·k assignments of the prompt (no capacity limit, nothing dropped).
TEST(Handoffs, TheStepperOpensAMixtureOfExpertsRunAndShowsItsRouting) {
  AppState app = make_app_state();
  Panel& train = *app.find("train")->panel;
  Panel& forward = *app.find("forward")->panel;
  set(train, "layers", 1);
  set(train, "experts", 4);
  set(train, "top_k", 2);
  run(train);
  const std::shared_ptr<const TrainSnapshot> snap = app.handoffs->latest_training_run();
  ASSERT_TRUE(snap && snap->ready);
  ASSERT_TRUE(snap->settings.model.moe());
  open_in_stepper(*snap, train.handoffs());
  EXPECT_EQ(app.handoffs->take_focus_request(), "forward");
  run(forward);
  EXPECT_EQ(forward.controls().to_json()["model"].get<std::string>(), "training");
  ASSERT_EQ(forward.error(), "");

  int T = 0;  // tokens of the prompt
  for (const char* step : {"layers.0.mlp.router_probs", "layers.0.mlp.expert_gates"}) {
    set(forward, "step", step);
    const auto figs = run(forward);
    const plot::HeatmapItem& map = heatmap(figure_by_id(figs, "step").grid.at(0));
    T = map.rows;
    EXPECT_EQ(map.cols, 4) << step;
    EXPECT_EQ(map.options.colormap, plot::Colormap::Viridis) << step;
    EXPECT_EQ(map.options.vmin, 0.0) << step;
    EXPECT_EQ(map.options.vmax, 1.0) << step;
    EXPECT_EQ(map.options.col_labels, (std::vector<std::string>{"E0", "E1", "E2", "E3"})) << step;
    for (int t = 0; t < map.rows; ++t) {  // probabilities sum to 1 per token; k = 2 gates renormalised, also 1
      double sum = 0;
      for (int e = 0; e < map.cols; ++e) sum += map.data[size_t(t * map.cols + e)];
      EXPECT_NEAR(sum, 1.0, 1e-5) << step << " token " << t;
    }
  }

  set(forward, "step", "layers.0.mlp.expert_load");
  const auto figs = run(forward);
  const plot::Axes& ax = figure_by_id(figs, "step").grid.at(0);
  ASSERT_EQ(ax.items.size(), 1u);
  const auto* bars = std::get_if<plot::BarsItem>(&ax.items[0]);
  ASSERT_NE(bars, nullptr) << "the load is a bar chart, not a one-row heatmap";
  EXPECT_EQ(bars->groups, (std::vector<std::string>{"E0", "E1", "E2", "E3"}));
  EXPECT_EQ(ax.x.label, tr("expert"));
  EXPECT_EQ(ax.y.label, tr("tokens routed"));
  ASSERT_EQ(bars->values.size(), 1u);
  double load = 0;
  for (double v : bars->values[0]) load += v;
  ASSERT_GT(T, 0);
  EXPECT_EQ(load, 2.0 * T) << "every token sent to k = 2 experts";
}

}  // namespace
}  // namespace tw
