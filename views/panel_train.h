#pragma once
// The Training panel's pieces that `transformer-workbench train` shares (app/cli/cmd_train.cpp): reading the panel's
// controls as TrainSettings, and the panel's figures built from a TrainSnapshot.

#include <string>
#include <vector>

#include "core/train/trainer_session.h"
#include "views/panel.h"
#include "views/plot/figure.h"

namespace tw {

// The settings the "train" panel's controls describe (reads train.text_file when set). False + one-line *error
// when `panel` is not the Training panel or its settings are invalid.
// memory_cap_mb > 0 replaces the model's memory cap (train --memory-cap).
bool train_settings_of_panel(Panel& panel, TrainSettings* out, int* steps, std::string* error,
                             double memory_cap_mb = 0);

// The current run's model, for "open in forward stepper": a copy of the weights and the config of the latest
// snapshot (the worker keeps training). False when `panel` is not the Training panel or has no run yet.
bool trained_model_of_panel(Panel& panel, ModelConfig* config, ModelWeights* weights);

// Every figure of the Training panel for a snapshot: loss, accuracy, gradient norms, learning rate, attention
// maps on the probe example, per-head scores; MoE models add the load per expert and the balance-loss curve.
// `total_steps` sets the schedule figure's x range.
std::vector<plot::Figure> train_figures(const TrainSnapshot& snap, int total_steps);

}  // namespace tw
