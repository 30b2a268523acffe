#pragma once
// The Training panel's fine-tuning section: start the run from a loaded model instead of a fresh init, and train
// every weight (full fine-tuning) or LoRA adapters (rank r, α, rsLoRA, target modules; core/train/lora_finetune.h).
// Also: save the run's adapter in peft's layout, and load a peft adapter onto the base (merged into its weights).
// The merged model of a LoRA run is what the checkpoint row's Save writes (its weights are W + s·B A). UI thread only.

#include <cstdint>
#include <memory>
#include <string>

#include "core/experiments/stepper_model.h"
#include "core/train/trainer_session.h"

namespace tw {

struct TrainFinetune {
  bool enabled = false;                       // start from `model`
  std::shared_ptr<const StepperModel> model;  // the loaded model (shipped checkpoint, train checkpoint, HF folder)
  bool lora = true;                           // LoRA adapters; false = full fine-tuning
  int r = 8;
  float alpha = 16.0f;
  bool rslora = false;
  bool targets[7] = {true, true, true, true, true, true, true};  // q, k, v, o, gate, up, down
  char dir[512] = {};                                            // model folder to load, adapter folder to save / load
  std::string status;                                            // what the last button did, or why it could not
  uint64_t version = 0;  // increases with every change that must restart the run

  TrainFinetune();
  // The section's widgets; a change that restarts the run increases `version`.
  void draw(const TrainSnapshot& snap);
  // Fine-tuning on: the run's model becomes the loaded one (its config, its weights as the start) and LoRA is set.
  // False + one line when on without a model. Off: `t` stays as it is.
  bool apply(TrainSettings* t, std::string* error) const;
  // For a pinned run's name: ", LoRA r = 8, α = 16 (trained sort)", ", full fine-tune (trained sort)", or "" when off.
  std::string label() const;
};

}  // namespace tw
