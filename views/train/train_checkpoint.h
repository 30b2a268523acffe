#pragma once
// The Training panel's checkpoint row: save the current run's model (model.safetensors + config.json, Hugging Face
// names), load one into the session, or hand a copy of the weights to the forward stepper (through the panel's
// Handoffs). UI thread only.

#include <string>

#include "core/train/trainer_session.h"
#include "views/file_browser.h"

namespace tw {

class Handoffs;  // views/handoffs.h

// Posts a copy of the run's model to the forward stepper of these hand-offs (what "Open in forward stepper" does).
void open_in_stepper(const TrainSnapshot& snap, Handoffs& handoffs);

struct TrainCheckpoint {
  char dir[512] = {};  // where Save writes and Load reads; starts absolute, under the home folder
  std::string status;  // what the last button did, or why it could not
  FileBrowser browser{{.folders_only = true, .extensions = {}}};  // the row's Browse... button

  TrainCheckpoint();
  // The directory field and the Save / Load / Open in forward stepper buttons, then the status line.
  void draw(const TrainSnapshot& snap, TrainerSession& session, Handoffs& handoffs);
};

}  // namespace tw
