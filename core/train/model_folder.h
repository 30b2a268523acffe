#pragma once
// The model folders a training task stands behind: a checkpoint `train` wrote (its scene names the task, so the
// vocabulary is the task's symbols), the Training panel's model handed over in memory, and the one entry point the
// stepper and the panels open any folder through (a Hugging Face folder or a trained checkpoint).
//
//   StepperModel m;  std::string error;
//   if (!load_task_checkpoint(shipped_models_dir() + "/sort", &m, &error)) show(error);   // previous model stays
//   std::vector<int> ids;
//   if (!m.vocabulary->encode("CABCBA", /*bos=*/false, &ids, &error)) show(error);        // "'D' is not ..."

#include <functional>
#include <string>

#include "core/model/stepper_model.h"

namespace tw {

// A checkpoint written by `train` (model.safetensors + config.json + scene.json): the scene's train.* values name
// the task, so the vocabulary is that task's symbols. False + one line when anything is missing or inconsistent;
// *out is untouched then.
bool load_task_checkpoint(const std::string& dir, StepperModel* out, std::string* error);

class Task;
// A model trained on `task` (the Training panel's current run, or a loaded checkpoint): the task's symbols are its
// vocabulary and a held-out example without its last token is its example prompt.
StepperModel task_stepper_model(const ModelConfig& config, std::shared_ptr<const ModelWeights> weights,
                                const Task& task, std::string name, std::string source);

// Any model folder: one `train` wrote (scene.json, no tokenizer.json), such as the shipped assets/models/*, opens
// as load_task_checkpoint does, with its task's vocabulary; every other folder as load_hf_folder_model does.
bool load_hf_stepper_model(const std::string& dir, const std::function<bool(double)>& progress, StepperModel* out,
                           std::string* error);

}  // namespace tw
