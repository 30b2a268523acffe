#pragma once
// Hand-offs between panels ("Open in forward stepper", "Train this in the Training panel"): a panel never includes
// another panel's file. What a hand-off carries is declared here: a model, or the Training panel's settings
// (TrainPanelState, from views/train/train_settings.h, the one piece of a panel other panels may read, so a comparison
// names both runs in the receiver's own terms). The sender posts what it hands over under the receiving panel's
// id; the receiver takes it in its update(); the app opens and focuses the window named by take_focus_request().
// UI thread only.
//
// One Handoffs object belongs to the app state and is shared by the panels it owns (Panel::set_handoffs). A panel
// made on its own (headless export, a test) or for a preview (the start page's thumbnails run a scratch app state)
// gets its own, so it neither steers the user's windows nor steals what was handed to them. No global state.
//
//   handoffs().post_model("forward", model);                           // Training panel's button
//   if (auto m = handoffs().take_posted_model(info().id)) adopt(*m);   // forward panel's update()
//
//   Stability panel → Training panel: a pinned comparison. The Training panel trains the baseline to its last step,
//   pins it, then trains the variant from the same seed, so its loss figure overlays both runs.
//   Training panel → any panel: its current run, republished every frame it is open (publish_training_run), read by
//   e.g. the decoding panel's perplexity (latest_training_run).
//
// [SECTION] the comparison the Stability panel hands to the Training panel
// [SECTION] the mailbox

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/model/stepper_model.h"
#include "views/train/train_settings.h"

namespace tw {

// [SECTION] the comparison the Stability panel hands to the Training panel

struct TrainComparison {
  std::string title;           // one line for the Training panel: "soft-cap at lr 0.03, 200 steps"
  TrainPanelState baseline;    // the Training panel's controls for the first run (pinned when it ends)
  TrainPanelState variant;     // ... for the second run, which stays the current run
  std::string baseline_label;  // legend name of the pinned run: "without soft-cap"
  std::string variant_label;   // what the current run is: "with soft-cap (c = 5)"
};

// [SECTION] the mailbox

class Handoffs {
 public:
  // Replaces any model posted to `panel_id` and not taken yet, and asks the app to show that panel.
  void post_model(const std::string& panel_id, StepperModel model);
  std::optional<StepperModel> take_posted_model(const std::string& panel_id);
  // Control values handed to a panel: {"experts": 4, ...}, keys without the panel prefix. The receiver applies those
  // its controls accept (Control::check) and leaves the others as they were. Asks the app to show that panel.
  void post_values(const std::string& panel_id, nlohmann::json values);
  std::optional<nlohmann::json> take_posted_values(const std::string& panel_id);

  // Replaces a comparison posted and not taken yet, and asks the app to show the Training panel.
  void post_train_comparison(TrainComparison c);
  std::optional<TrainComparison> take_train_comparison();

  // The Training panel's latest snapshot (null until a Training panel has published one). The snapshot is
  // immutable; holding it keeps that state alive, never the trainer.
  void publish_training_run(std::shared_ptr<const TrainSnapshot> snapshot) { run_ = std::move(snapshot); }
  std::shared_ptr<const TrainSnapshot> latest_training_run() const { return run_; }

  // Asks the app to open and focus `panel_id`.
  void request_focus(const std::string& panel_id) { focus_ = panel_id; }
  // The id of a panel some hand-off asked to show ("" when none); cleared by the call.
  std::string take_focus_request();

 private:
  std::map<std::string, StepperModel> models_;    // receiving panel id → the model posted to it
  std::map<std::string, nlohmann::json> values_;  // receiving panel id → control values posted to it
  std::optional<TrainComparison> comparison_;     // posted to the Training panel, not taken yet
  std::shared_ptr<const TrainSnapshot> run_;      // the Training panel's latest snapshot
  std::string focus_;
};

}  // namespace tw
