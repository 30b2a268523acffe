#pragma once
// The Training panel's state and how it becomes TrainSettings for the core trainer (and back: train_state_of_settings);
// shared by views/panel_train.cpp and `transformer-workbench train` (through
// views/panel_train.h).

#include <string>

#include "core/train/trainer_session.h"

namespace tw {

// What the Training panel's controls hold: the core's configs themselves, each control bound to its field, and
// beside them the panel's own settings. A config field no control sets keeps its value: the core's default, or
// what train_state_of_settings was given.
struct TrainPanelState {
  TaskConfig task;         // what to learn (task.text: the typed text)
  std::string text_file;   // text task: a file to read instead of the typed text (when set); language task: the
                           // user's corpus when corpus is "file"
  int corpus = 0;          // language task: index into language_corpus_names() (views/train/train_language.h)
  int sample_every = 100;  // language task: steps between samples
  // The model. Its hidden, vocab, capacity_factor and aux_loss_coef are the four fields below; max_seq is the
  // task's sequence length.
  ModelConfig model{.dim = 48, .n_layers = 2, .n_heads = 3, .n_kv_heads = 3, .activation = ActivationKind::ReLU};
  int hidden = 96;  // 0: 4·dim
  int vocab = 0;    // 0: exactly the task's vocabulary
  // The MoE floats are float controls, and the run uses exactly the float a control shows (the core's are double).
  float capacity_factor = 0.0f;  // 0 = no limit
  float aux_coef = 0.01f;        // coefficient of the load-balancing loss
  // The optimizer. Its total_steps is `steps` (the cosine ends where the run does); decay_all sets both
  // decay_norms and decay_embeddings.
  OptimizerConfig optimizer{.lr = 3e-3f, .weight_decay = 0.01f, .warmup_steps = 20};
  bool decay_all = false;
  int steps = 600;
  int batch = 32;
  float z_loss = 0.0f;   // coef of z-loss (coef·log² Z added to the loss); 0 = off
  float dropout = 0.0f;  // probability of dropping each attention and MLP output while training; 0 = off
  int seed = 1;
  int eval_every = 25;
  // speed (does not restart the run)
  int steps_per_frame = 4;
};

// The settings the state describes (reads text_file when set). False + one-line *error when they are invalid.
bool train_settings_of_state(const TrainPanelState& s, TrainSettings* out, std::string* error);
// A user's UTF-8 text file (at most 16 MiB), read for a text or language task; false + one line naming the file.
bool read_text_file(const std::string& path, std::string* out, std::string* error);
// The language task's corpus, tokenizer and vocabulary (reads the text file of corpus "file"), without building
// its data; false + one-line *error when the file cannot be read.
bool language_source_of_state(const TrainPanelState& s, LanguageSource* out, std::string* error);

// The Training panel's state that describes `t` for a run of `steps` steps: the inverse of train_settings_of_state
// (t's task, model and optimizer configs are the state's; a text task's text is typed, not a file). The panel's runs
// always decay the learning rate to `steps` (cosine), whatever t.optimizer.total_steps says.
TrainPanelState train_state_of_settings(const TrainSettings& t, int steps);

}  // namespace tw
