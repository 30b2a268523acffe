#pragma once
// Hand-offs to and from the Training panel, in the pattern of views/model_handoff.h (a panel never includes
// another panel; UI thread only).
//
//   Stability panel → Training panel: a pinned comparison. The Training panel trains the baseline to its last step,
//   pins it, then trains the variant from the same seed, so its loss figure overlays both runs.
//     post_train_comparison(c);                               // the sender's button; the app shows "train"
//     if (auto c = take_train_comparison()) start(*c);        // the Training panel's update()
//   Training panel → any panel: its current run, republished every frame it is open.
//     publish_training_run(session.snapshot());               // the Training panel's update()
//     if (auto run = latest_training_run()) ...               // e.g. the decoding panel's perplexity
//
// [SECTION] comparison hand-off
// [SECTION] the latest run
// [SECTION] Training panel state from settings

#include <memory>
#include <optional>
#include <string>

#include "views/train/train_settings.h"

namespace tw {

// [SECTION] comparison hand-off

struct TrainComparison {
  std::string title;           // one line for the Training panel: "soft-cap at lr 0.03, 200 steps"
  TrainPanelState baseline;    // the Training panel's controls for the first run (pinned when it ends)
  TrainPanelState variant;     // ... for the second run, which stays the current run
  std::string baseline_label;  // legend name of the pinned run: "without soft-cap"
  std::string variant_label;   // what the current run is: "with soft-cap (c = 5)"
};

// Replaces a comparison posted and not taken yet, and asks the app to show the Training panel.
void post_train_comparison(TrainComparison c);
std::optional<TrainComparison> take_train_comparison();

// [SECTION] the latest run

// The Training panel's latest snapshot (null until a Training panel has published one). The snapshot is
// immutable; holding it keeps that state alive, never the trainer.
void publish_training_run(std::shared_ptr<const TrainSnapshot> snapshot);
std::shared_ptr<const TrainSnapshot> latest_training_run();

// [SECTION] Training panel state from settings

// The Training panel's state that describes `t` for a run of `steps` steps: the inverse of train_settings_of_state
// (t's task, model and optimizer configs are the state's; a text task's text is typed, not a file). The panel's runs
// always decay the learning rate to `steps` (cosine), whatever t.optimizer.total_steps says.
// Defined beside its inverse in views/train/train_settings.cpp.
TrainPanelState train_state_of_settings(const TrainSettings& t, int steps);

}  // namespace tw
