#pragma once
// Two read-outs of the Training panel, drawn from a snapshot of the run: its parameters and what training them
// holds in memory, and the probe example with each answer token marked right or wrong.

#include "core/train/trainer_session.h"

namespace tw {

// Parameters of the current run (total; a MoE model also its active ones) and what they cost to train.
void draw_parameter_estimate(const TrainSnapshot& snap);
// The probe example: prompt tokens grey, answer tokens green when predicted right, red when wrong.
void draw_train_probe(const TrainSnapshot& snap);

}  // namespace tw
