#pragma once
// The LoRA panel's state and result, shared by views/panel_lora.cpp (controls, recompute, draw) and views/lora/*.cpp
// (the fine-tuning mode's computation and the figures of both modes).

#include <memory>
#include <string>

#include "core/experiments/lora_experiment.h"
#include "core/experiments/lora_rank_sweep.h"
#include "core/model/stepper_model.h"
#include "views/plot/figure.h"
#include "views/recompute.h"

namespace tw::lora_panel {

enum class LoraMode { Synthetic, Finetune };
enum class FinetuneBase { Sort, Induction, TrainingRun, Poems, Quotes };
enum class FinetuneTask { Reverse, Copy, Sort, Text };  // Text: a language model's new text
enum class FinetuneText { Auto, SongCi, TangPoems, Quotes, File };

struct LoraState {
  LoraMode mode = LoraMode::Synthetic;
  int d_in = 64;        // columns of ΔW
  int d_out = 64;       // rows of ΔW
  int rank = 4;         // r (clamped to min(d_in, d_out))
  float alpha = 8.0f;   // lora_alpha
  bool rslora = false;  // α/√r instead of α/r
  int true_rank = 8;    // rank of ΔW's signal (clamped)
  float decay = 0.7f;   // σ_i = decay^i
  float noise = 0.02f;  // full-rank noise on ΔW
  int steps = 300;      // gradient steps per adapter
  float lr = 0.01f;     // learning rate
  LoraOptimizer optimizer = LoraOptimizer::Adam;
  bool train_sweep = true;  // train an adapter at every rank of the error plot
  int seed = 1;
  // fine-tuning mode
  FinetuneBase ft_base = FinetuneBase::Sort;     // the model fine-tuned
  FinetuneTask ft_task = FinetuneTask::Reverse;  // the new task
  int ft_length = 6;                             // symbols per prompt
  int ft_alphabet = 3;                           // symbols to draw from
  FinetuneText ft_text = FinetuneText::Auto;     // the new text (ft_task = Text)
  // FinetuneText::File (and Auto for quotes): English the shipped quotes model never read (it learned every fortune
  // file), on every Debian system (base-files).
  std::string ft_text_file = "/usr/share/common-licenses/GPL-3";
  int ft_steps = 200;                             // optimizer steps per run
  int ft_batch = 16;                              // sequences per step
  float ft_alpha = 16.0f;                         // lora_alpha of every rank
  bool ft_rslora = false;                         // α/√r
  float ft_lr = 0.01f;                            // AdamW lr of the adapters
  float ft_lr_full = 0.003f;                      // AdamW lr of full fine-tuning
  std::shared_ptr<const StepperModel> run_model;  // the Training panel's model (ft_base = TrainingRun)
};

using SyntheticResult = Checked<LoraExperimentParams, LoraExperiment>;
struct LoraResult {
  LoraMode mode = LoraMode::Synthetic;
  std::shared_ptr<const SyntheticResult> syn;  // synthetic mode
  LoraSweepParams ft_params;                   // fine-tuning mode: what ran
  std::string ft_base, ft_task;                // names for titles ("trained sort", "reverse", "100 Song ci")
  std::string ft_error;                        // why it could not run
  LoraSweep ft;
};
using ResultPtr = std::shared_ptr<const LoraResult>;

// The synthetic mode's parameters from the controls (ranks clamped to the matrix).
LoraExperimentParams params_of(const LoraState& s);

// [SECTION] fine-tuning mode (views/lora/lora_finetune.cpp)
// The base model fine-tuned on the new task or text at ranks 1 … 16 and fully, on the worker.
ResultPtr compute_finetune(const LoraState& s, Progress& progress);

// [SECTION] figures of the synthetic mode (views/lora/lora_figures.cpp)
plot::Figure spectrum_figure(const SyntheticResult& r);
plot::Figure error_figure(const SyntheticResult& r);
plot::Figure params_figure(const SyntheticResult& r);
plot::Figure loss_figure(const SyntheticResult& r);
plot::Figure heatmaps_figure(const SyntheticResult& r);
plot::Figure scale_figure(const SyntheticResult& r);

// [SECTION] figures of the fine-tuning mode (views/lora/lora_finetune_figures.cpp)
plot::Figure ft_loss_rank_figure(const LoraResult& r);
plot::Figure ft_loss_params_figure(const LoraResult& r);
plot::Figure ft_curves_figure(const LoraResult& r);
plot::Figure ft_accuracy_figure(const LoraResult& r);
plot::Figure ft_spectra_figure(const LoraResult& r);
plot::Figure ft_energy_figure(const LoraResult& r);

}  // namespace tw::lora_panel
