#pragma once
// The Training panel's state (one field per control) and how it becomes TrainSettings for the core trainer;
// shared by views/panel_train.cpp and `transformer-workbench train` (through views/panel_train.h).

#include <string>

#include "core/train/trainer_session.h"

namespace tw {

// What the Training panel's controls hold.
struct TrainPanelState {
  // task
  int task = 1;              // TaskKind: copy, sort, reverse, modadd, text
  int length = 6;            // symbols in the prompt
  int alphabet = 3;          // symbols to draw from
  bool vary_period = false;  // copy: random period, so only an induction head solves it
  int modulus = 23;          // p of modadd
  std::string text;          // text task: typed text
  std::string text_file;     // text task: file to read instead (when set)
  int context = 32;          // text task: window length
  int val_examples = 256;
  // model
  int layers = 2;
  int dim = 48;
  int heads = 3;
  int kv_heads = 3;
  int hidden = 96;     // 0: 4·dim
  int vocab = 0;       // 0: the task's vocabulary
  int positions = 3;   // PositionType: none, learned, sinusoidal, rope, alibi
  int norm = 0;        // NormType: rmsnorm, layernorm
  int placement = 0;   // NormPlacement: pre, post
  int activation = 0;  // ActivationKind: relu, gelu, swiglu, geglu
  int attn_scale = 0;  // ScaleMode: 1/sqrt(d_k), none, 1/d_k
  bool qk_norm = false;
  float softcap = 0.0f;
  bool tie = false;
  // mixture of experts (experts < 2: the dense MLP)
  int experts = 0;               // E expert MLPs per block, each of hidden size F
  int top_k = 2;                 // experts each token goes to
  float capacity_factor = 0.0f;  // 0 = no limit
  float aux_coef = 0.01f;        // coefficient of the load-balancing loss
  // optimization
  int optimizer = 0;  // OptimizerKind: adamw, sgd
  float lr = 3e-3f;
  int batch = 32;
  int steps = 600;
  int warmup = 20;
  float weight_decay = 0.01f;
  bool decay_all = false;  // also decay norms and embeddings
  float clip = 1.0f;
  float z_loss = 0.0f;  // coef of z-loss (coef·log² Z added to the loss); 0 = off
  int seed = 1;
  int eval_every = 25;
  // speed (does not restart the run)
  int steps_per_frame = 4;
};

// The settings the state describes (reads text_file when set). False + one-line *error when they are invalid.
bool train_settings_of_state(const TrainPanelState& s, TrainSettings* out, std::string* error);

}  // namespace tw
