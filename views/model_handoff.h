#pragma once
// Hand-offs between panels ("Open in forward stepper"): a panel never includes another panel. The sender posts what
// it hands over under the receiving panel's id; the receiver takes it in its update(); the app opens and focuses the
// window named by take_focus_request(). UI thread only.
//
//   post_model("forward", model);                        // Training panel's button
//   if (auto m = take_posted_model(info().id)) adopt(*m);  // forward panel's update()

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/experiments/stepper_model.h"

namespace tw {

// Replaces any model posted to `panel_id` and not taken yet, and asks the app to show that panel.
void post_model(const std::string& panel_id, StepperModel model);
std::optional<StepperModel> take_posted_model(const std::string& panel_id);
// Asks the app to open and focus `panel_id` (other hand-offs, e.g. views/train_handoff.h, use it too).
void request_focus(const std::string& panel_id);
// Control values handed to a panel ("Train this in the Training panel"): {"experts": 4, ...}, keys without the panel
// prefix. The receiver applies those its controls accept (Control::check) and leaves the others as they were.
void post_values(const std::string& panel_id, nlohmann::json values);
std::optional<nlohmann::json> take_posted_values(const std::string& panel_id);

// The id of a panel some hand-off asked to show ("" when none); cleared by the call.
std::string take_focus_request();

// Hand-offs belong to the panels the user works with. A thread that runs panels for something else (the start
// page's thumbnails) holds a DetachedFromHandoffs while it does: on that thread every post and focus request is
// dropped, every take finds nothing and no training run is seen, so a preview neither steers the user's window nor
// steals what was handed to it (views/train_handoff.h obeys the same switch).
class DetachedFromHandoffs {
 public:
  DetachedFromHandoffs();
  ~DetachedFromHandoffs();
  DetachedFromHandoffs(const DetachedFromHandoffs&) = delete;
  DetachedFromHandoffs& operator=(const DetachedFromHandoffs&) = delete;
};
bool handoffs_detached();  // on this thread

}  // namespace tw
