#pragma once
// The LoRA panel's real mode: fine-tune one model (a shipped checkpoint, or the model the app holds) on a new task
// with LoRA at several ranks r and with full fine-tuning, each run the same Trainer (core/train/trainer.h) from the
// same weights, seed and batches; then compare what each run bought against what it trained:
//   - held-out loss (and answer accuracy) against r and against trainable parameters,
//   - the singular values of the learned update ΔW = s·B A of every adapted matrix, against the full fine-tune's
//     ΔW = W_after − W_before of the same matrix (full rank in general; a rank-r adapter has at most r non-zero σ).
// The new task is a toy task for a task model, or a new text for a language model (TaskKind::Language with the
// model's own tokenizer.json in task.language.tokenizer_json, as the Training panel's fine-tuning sets it: the
// vocabulary stays the model's); then the held-out set is the text's held-out part and bits per character are kept.
// Plain data and calls; the panel runs it on its worker with progress and Cancel.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"
#include "core/train/lora_finetune.h"
#include "core/train/tasks.h"

namespace tw {

struct LoraSweepParams {
  ModelConfig model;                          // the base model's architecture
  std::shared_ptr<const ModelWeights> base;   // its weights (frozen for LoRA; the start of every run)
  TaskConfig task;                            // what to fine-tune on (the vocabulary must fit the model)
  std::vector<int> ranks = {1, 2, 4, 8, 16};  // LoRA ranks (those above a target's smallest side are skipped)
  bool full = true;                           // also fine-tune every parameter
  float alpha = 16.0f;                        // lora_alpha, the same for every rank
  bool rslora = false;                        // s = α/√r
  uint32_t targets = kAllLoraTargets;         // modules to adapt
  int steps = 200;                            // optimizer steps per run
  int batch = 16;                             // sequences per step
  float lr_lora = 3e-3f;                      // AdamW learning rate of the adapters
  float lr_full = 1e-3f;                      // AdamW learning rate of full fine-tuning
  int eval_every = 20;                        // held-out evaluation interval (steps)
  uint64_t seed = 1;                          // batches, held-out set and the adapters' init
};

// One matrix of one run: σ of its ΔW, descending.
struct LoraSweepSpectrum {
  int layer = 0;
  LoraModule module = LoraModule::Q;
  VecD sigma;
};

struct LoraSweepRun {
  int rank = 0;                            // 0 = full fine-tuning
  int64_t trainable = 0;                   // parameters the run trained
  std::vector<int> eval_steps;             // steps of the held-out evaluations (0 = the base model)
  std::vector<double> val_loss;            // held-out loss at those steps (nats per predicted token)
  std::vector<double> val_bits;            // language task: held-out bits per character at those steps, else empty
  double final_loss = 0;                   // held-out loss after the last step
  double final_bits = 0;                   // language task: held-out bits per character after the last step
  double final_accuracy = 0;               // held-out answer accuracy after the last step
  std::vector<LoraSweepSpectrum> spectra;  // every adapted (layer, module), in LoraModel slot order
  std::string stopped;                     // why the run ended early (divergence), else ""
};

struct LoraSweep {
  double base_loss = 0, base_accuracy = 0;  // the base model on the new task's held-out set
  double base_bits = 0;                     // language task: the base model's held-out bits per character
  bool language = false;                    // the new task is a text (bits per character are filled in)
  int64_t base_parameters = 0;              // parameters of the whole model
  std::vector<LoraSweepRun> runs;           // LoRA ranks ascending, then full fine-tuning
  bool cancelled = false;                   // progress returned false: runs holds the finished runs only
};

// "" when the sweep can run; else one line (no weights, weights/config mismatch, the task does not fit the model,
// no usable rank, LoRA refused for this model, steps or batch out of range).
std::string check_lora_sweep(const LoraSweepParams& p);

// Work estimate in training steps (runs × steps), for the panel's progress text.
int lora_sweep_steps(const LoraSweepParams& p);

// Assumes check_lora_sweep(p) is empty. progress(fraction) is called after every step; returning false cancels.
LoraSweep run_lora_sweep(const LoraSweepParams& p, const std::function<bool(float)>& progress = {});

}  // namespace tw
