#pragma once
// The Training panel's controls: each one's scene key, range, label and help, bound to a field of TrainPanelState,
// and which of them the panel shows for the chosen task and model.

#include <string>

#include "views/controls.h"
#include "views/train/train_settings.h"

namespace tw {

// Declares every control of the Training panel, bound to `s` (scene keys `train.<key>`).
void bind_train_controls(Controls& c, TrainPanelState& s);

// False for a control that does not apply to `s` (the copy task's vary_period under sort, top_k of a dense model).
bool train_control_shown(const TrainPanelState& s, const std::string& key);

// The heading of the group of controls that starts at `key` ("Task", "Model", ...), or null.
const char* train_group_starting_at(const std::string& key);

}  // namespace tw
