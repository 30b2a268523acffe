// The panel hand-offs (views/handoffs.h): one mailbox owned by the app state and shared by its panels; a panel made
// alone or a preview's scratch state has its own, so nothing global links them.
#include <gtest/gtest.h>

#include "views/panel_test_util.h"

#include <memory>

#include "app/app_state.h"
#include "core/experiments/stepper_model.h"
#include "views/handoffs.h"
#include "views/panel.h"

namespace tw {
namespace {

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

}  // namespace
}  // namespace tw
