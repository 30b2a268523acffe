#pragma once
// The Training panel's fine-tuning section: start the run from a loaded model instead of a fresh init, and train
// every weight (full fine-tuning) or LoRA adapters (rank r, α, rsLoRA, target modules; core/train/lora_finetune.h).
// Also: save the run's adapter in peft's layout, and load a peft adapter onto the base (merged into its weights).
// The merged model of a LoRA run is what the checkpoint row's Save writes (its weights are W + s·B A). UI thread only.
//
// A model folder loads on a worker (progress and Cancel under the start model; `poll` adopts it); the run and the
// loaded model stay as they were until it has loaded, and stay when it fails or is cancelled.
//
// The choices are the Training panel's controls (bind), so a scene, preset, lesson or `--set` sets them:
//   train.ft_enabled = true, train.ft_start = "sort" | "induction" | a model folder, train.ft_lora = true (false:
//   full fine-tuning), train.ft_r, train.ft_alpha, train.ft_rslora, train.ft_q_proj … train.ft_down_proj.

#include <cstdint>
#include <memory>
#include <string>

#include "core/model/stepper_model.h"
#include "core/train/trainer_session.h"
#include "views/controls.h"
#include "views/recompute.h"

namespace tw {

struct TrainFinetune {
  bool enabled = false;                       // start from `model`
  std::string start;                          // what `model` is loaded from: "sort", "induction", a model folder;
                                              // "" = whatever was loaded by hand (a merged adapter)
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
  // Declares the choices above as controls (keys ft_*; the Training panel's bind calls it after its own).
  void bind(Controls& c);
  // True for the keys bind declares: the Training panel's control loop leaves them to draw().
  static bool owns_control(const std::string& key) { return key.rfind("ft_", 0) == 0; }
  // The section's widgets (the ft_* controls and the buttons); a change that restarts the run increases `version`.
  void draw(const TrainSnapshot& snap, const Controls& controls);
  // Once a frame (the panel's update): adopts a finished load. `worker`: load folders on the worker (the GUI); off,
  // a load blocks (headless export, tests). True when a load finished (the run restarts through `version`).
  bool poll(bool worker);
  // Blocks until a load on the worker is done, then adopts it.
  void wait();
  bool loading() const { return !loading_.empty(); }
  // Loads `start` when it names another model than the one loaded; false + one line while it loads on the worker
  // or when it cannot be loaded (the loaded model stays). Nothing to do when off or when `start` is "".
  bool sync(std::string* error);
  // Fine-tuning on: sync(), then the run's model becomes the loaded one (its config, its weights as the start) and
  // LoRA is set; a language task encodes with the model's tokenizer.json. False + one line when on without a model,
  // or on a text the model has no tokenizer for. Off: `t` stays as it is.
  bool apply(TrainSettings* t, std::string* error);
  // The tokenizer.json a language task must encode its text with: the loaded model's own when fine-tuning one that
  // has it, else "" (the task trains its own).
  std::string language_tokenizer() const;
  // For a pinned run's name: ", LoRA r = 8, α = 16 (trained sort)", ", full fine-tune (trained sort)", or "" when off.
  std::string label() const;

 private:
  struct Load {
    std::string start;
    bool ok = false;
    StepperModel model;
    std::string error;
  };
  bool adopt();
  std::string loaded_start_;                 // the `start` that `model` was loaded from
  std::string loading_;                      // the `start` being loaded on the worker ("" when none)
  std::string failed_start_, failed_error_;  // the last `start` that could not be loaded, and why
  bool worker_ = false;
  Recompute<Load> load_job_;  // declared last: its worker is joined before the members above go away
};

}  // namespace tw
