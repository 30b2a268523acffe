#pragma once
// Trainer: one training run of the Transformer on a toy task, as plain data and plain calls (no threads inside;
// TrainerSession runs one on a worker thread for the GUI, `train` runs one directly).
//
//   Trainer t;  t.init(settings, &error);        // model, weights, optimizer state, task, held-out set, RNG
//   t.step(&error);                              // batch → forward + backward → clip → optimizer
//   t.history().back()                           // train loss, grad norm (total and per layer), lr ...
//   t.probe_attention(); t.head_scores();        // what each head does on a fixed probe example
//
// Same settings → bit-identical weights after every step on one thread: the task, the init and the optimizer are
// seeded and sequential. Divergence (non-finite loss, gradient or weight) stops the run with a message and keeps the
// weights of the last good step.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/train/lora_finetune.h"
#include "core/train/model_train.h"
#include "core/train/optimizer.h"
#include "core/train/tasks.h"

namespace tw {

struct TrainSettings {
  ModelConfig model;          // the architecture (vocab and max_seq must cover the task)
  TaskConfig task;            // what to learn
  OptimizerConfig optimizer;  // AdamW / SGD, lr, schedule, clipping
  int batch = 32;             // B: sequences per step
  uint64_t seed = 1;          // weights, training batches, held-out set and probe all derive from it
  int eval_every = 25;        // evaluate on the held-out set every this many steps (and after step 1)
  double z_loss = 0.0;   // coef of the z-loss term coef·mean(log² Z) added to the training loss (PaLM: 1e-4); 0 = off
  double dropout = 0.0;  // probability of dropping each attention and MLP output during training (GPT-2: 0.1); 0 = off
  // Fine-tuning: start from these weights (of `model`) instead of a seeded init; null = train from scratch.
  std::shared_ptr<const ModelWeights> start_weights{};
  // Train LoRA adapters (core/train/lora_finetune.h) on the frozen starting weights instead of every parameter.
  bool lora = false;
  LoraSpec lora_spec{};
  int sample_every = 100;  // language task: a sample every this many steps (and after step 1); 0 = never
  int sample_tokens = 64;  // tokens per sample
};

inline constexpr double kSampleTemperature = 0.8;

// An upper bound of the bytes a run of these settings allocates, T being the task's sequence length: the weights
// with their gradients, backup and optimizer moments, and the activations of the training batch, the held-out set
// and the probe (train_state_floats), plus the user's training text and what is made of it (copies, token ids,
// the tokenizer's training counts, the held-out windows): kTextBytesPerByte per byte of it. check_settings refuses
// settings above the model's memory cap.
double estimated_training_bytes(const TrainSettings& s, int T);
// Bytes a run holds per byte of a user's training text (measured: a 16 MB text of one character peaked 600 MiB
// above the rest of the estimate; words 13 MB, 1.32× the estimate without it).
inline constexpr double kTextBytesPerByte = 48;

// "" when the settings can train, else the first problem as one line.
std::string check_settings(const TrainSettings& s);

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct MetricsRow {
  int step = 0;                         // optimizer steps taken when the row was recorded (1 = after the first)
  double train_loss = kNoValue;         // loss of this step's batch (before its update)
  double val_loss = kNoValue;           // held-out loss on answer tokens (NaN on rows without an evaluation)
  double accuracy = kNoValue;           // held-out answer-token accuracy in [0, 1] (NaN without an evaluation)
  double log_z = kNoValue;              // held-out mean log Z = log Σ_v exp(logit_v) over answer positions (NaN
                                        // without an evaluation): what z-loss keeps near 0
  double bits_per_char = kNoValue;      // language task: held-out bits per character (NaN without an evaluation)
  double grad_norm = kNoValue;          // ‖g‖₂ over every parameter, before clipping
  double lr = kNoValue;                 // learning rate this step used
  std::vector<double> layer_grad_norm;  // (n_layers) ‖g‖₂ of each block's parameters, before clipping
  double balance_loss = kNoValue;       // MoE: mean over layers of E·Σ f_e P̄_e on this batch (NaN when dense)
  int dropped = 0;                      // MoE: assignments past a full expert on this batch, summed over layers
};

struct Evaluation {
  double loss = kNoValue;           // mean −log p(answer) over the held-out answer tokens
  double accuracy = kNoValue;       // fraction of held-out answer tokens whose arg-max prediction is right
  double log_z = kNoValue;          // mean log Σ_v exp(logit_v) over the same tokens (the softmax normaliser)
  double bits_per_char = kNoValue;  // language task: total −log₂ p over the held-out text / its characters
};

// The evaluation a metrics row holds (NaN fields when the row's step did not evaluate).
inline Evaluation evaluation_of(const MetricsRow& row) {
  return {.loss = row.val_loss, .accuracy = row.accuracy, .log_z = row.log_z, .bits_per_char = row.bits_per_char};
}

// A text the model wrote during training: after `step` steps, at temperature kSampleTemperature.
struct TrainSample {
  int step = 0;
  std::string text;
};

// What each head does, measured on a repeated random sequence r₁…rₙ r₁…rₙ (the induction probe).
struct HeadScores {
  int layers = 0, heads = 0;
  std::vector<double> previous_token;  // (L*H) mean attention of query t to key t−1
  std::vector<double> induction;       // (L*H) mean attention of second-copy query t to key t−n+1: the token that
                                       // followed the first occurrence of the current token
};

class Trainer {
 public:
  // Builds a fresh run; on failure returns false + one-line *error and leaves the trainer as it was.
  bool init(const TrainSettings& settings, std::string* error);
  bool ready() const { return ready_; }

  // One optimizer step. Returns false when the run cannot continue (not initialised, or it diverged: then
  // stop_message() says why and the weights are those of the last good step).
  bool step(std::string* error);
  // Loss and accuracy on the fixed held-out set; also stored into the latest history row.
  Evaluation evaluate();

  int steps_done() const { return steps_; }
  bool stopped() const { return !stop_message_.empty(); }
  const std::string& stop_message() const { return stop_message_; }
  const std::vector<MetricsRow>& history() const { return history_; }
  const TrainSettings& settings() const { return settings_; }
  const ModelConfig& model_config() const { return settings_.model; }
  const ModelWeights& weights() const { return weights_; }
  const Task& task() const { return task_; }
  // LoRA runs: the adapters (null for full training), the frozen base, and the adapter in peft's layout.
  // weights() is then the merged model W + s·B A the passes run.
  const LoraModel* lora() const { return settings_.lora && ready_ ? &lora_ : nullptr; }
  const ModelWeights& base_weights() const { return settings_.lora ? base_ : weights_; }
  int64_t trainable_parameters() const;
  // MoE models: what the last training batch routed (load per expert and layer, drops); empty when dense.
  MoeStats moe_stats() const { return train_moe_stats(train_state_); }

  // The fixed probe example of the task and the attention maps of every layer on it: (H*T, T) per layer.
  const TaskSample& probe() const { return probe_; }
  std::vector<Mat> probe_attention();
  // The model's prediction (arg-max token) at each probe position.
  std::vector<int> probe_predictions();
  // Language task: `tokens` sampled at `temperature` from the first held-out token, seeded (same seed and weights →
  // same text), decoded by the task's tokenizer (bytes of an unfinished character as U+FFFD); "" for other tasks.
  // Samples taken every sample_every steps:
  std::string sample_text(uint64_t seed, int tokens, double temperature);
  const std::vector<TrainSample>& samples() const { return samples_; }
  // The repeated random sequence the head scores use, and the scores.
  const TaskSample& induction_probe() const { return induction_probe_; }
  HeadScores head_scores();

  // model.safetensors + config.json in `dir` (created if missing); the language task adds its tokenizer.json.
  bool save_checkpoint(const std::string& dir, std::string* error) const;
  // Replaces the model by a checkpoint (config.json + model.safetensors in `dir`); the task, optimizer and seed
  // settings stay, the optimizer state and history restart. On failure nothing changes.
  bool load_checkpoint(const std::string& dir, std::string* error);

 private:
  bool attach_model(const ModelConfig& model, ModelWeights weights, std::string* error);
  TrainSettings settings_;
  Task task_;
  ModelWeights weights_, grads_, backup_;
  OptimizerState opt_;
  ModelWeights base_;             // LoRA: the frozen starting weights
  LoraModel lora_, lora_backup_;  // LoRA: the adapters and those of the last good step
  LoraGrads lora_grads_;          // LoRA: ∂L/∂A, ∂L/∂B of the last step
  LoraOptimizerState lora_opt_;   // LoRA: AdamW moments of A and B
  TaskRng rng_;
  Batch held_out_;
  TaskSample probe_, induction_probe_;
  TrainState train_state_, eval_state_, probe_state_;
  std::vector<MetricsRow> history_;
  std::vector<TrainSample> samples_;
  int steps_ = 0;
  bool ready_ = false;
  std::string stop_message_;
};

// [SECTION] measurements on any forward pass (exposed for tests)
// Mean loss, arg-max accuracy and mean log Z over the positions with target ≥ 0, from logits (B*T, V).
Evaluation score_logits(const Mat& logits, const std::vector<int>& targets);
// Head scores from one layer's attention (H*T, T) on a sequence r₁…rₙ r₁…rₙ (T = 2n).
void head_scores_of_layer(const Mat& probs, int heads, int n, double* previous_token, double* induction);

}  // namespace tw
