#pragma once
// Optimizers for training the Transformer, written to match PyTorch step for step so a student can check a run
// against torch.optim: AdamW (torch.optim.AdamW), SGD with momentum (torch.optim.SGD), a linear-warmup + cosine
// learning-rate schedule, and clipping by the global gradient norm (torch.nn.utils.clip_grad_norm_).
//
// Parameters and gradients are ModelWeights of the same config; visit_parameters (core/model/weights.h) pairs
// each tensor with its gradient and says whether it is a Matrix, a Norm or an Embedding, which decides decay.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"

namespace tw {

enum class OptimizerKind { AdamW, SGD };

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::AdamW;
  float lr = 1e-3f;           // peak learning rate (the schedule scales it)
  float beta1 = 0.9f;         // AdamW: decay of the first moment (mean of g)
  float beta2 = 0.999f;       // AdamW: decay of the second moment (mean of g²)
  float eps = 1e-8f;          // AdamW: added to √v̂ so a parameter with g ≈ 0 does not take a huge step
  float weight_decay = 0.0f;  // λ: AdamW decoupled (w ← w − lr·λ·w); SGD adds λ·w to the gradient (L2), as torch
  bool decay_norms = false;       // also decay norm γ/β (off by default, as nanoGPT/PyTorch practice)
  bool decay_embeddings = false;  // also decay token / learned position embeddings
  float momentum = 0.9f;          // SGD: momentum buffer b ← μ·b + g (torch: first step b = g); 0 = plain SGD
  float clip_norm = 1.0f;         // clip the global gradient norm to this; 0 = no clipping
  int warmup_steps = 0;           // linear warmup: step s < W uses lr·(s+1)/W
  int total_steps = 0;            // cosine decay from the end of warmup to min_lr at total_steps; 0 = constant lr
  float min_lr_ratio = 0.1f;      // the cosine ends at lr·min_lr_ratio
};

// "" when valid, else one line naming the bad field (lr ≤ 0, β outside [0, 1), NaN, ...).
std::string check_optimizer(const OptimizerConfig& config);

// [SECTION] schedule
// Learning rate used by the optimizer step with 0-based index `step`:
//   step < W:            lr · (step + 1) / W
//   W ≤ step < total:    min + ½(1 + cos(π · (step − W) / (total − W))) · (lr − min),  min = lr · min_lr_ratio
//   step ≥ total:        min                     (total_steps = 0: lr after warmup, no decay)
double scheduled_lr(const OptimizerConfig& config, int step);

// [SECTION] gradient norm and clipping
// ‖g‖₂ over every parameter (accumulated in double, so the value does not depend on tensor order rounding).
double global_grad_norm(ModelWeights& grads, const ModelConfig& config);
// torch.nn.utils.clip_grad_norm_: when ‖g‖ > max_norm, scales every gradient by max_norm / (‖g‖ + 1e-6).
// Returns the norm before clipping (what training curves plot). max_norm ≤ 0: no clipping.
double clip_grad_norm(ModelWeights& grads, const ModelConfig& config, double max_norm);

// [SECTION] optimizer state and step
struct OptimizerState {
  ModelWeights m;  // AdamW first moment / SGD momentum buffer (same shapes as the weights)
  ModelWeights v;  // AdamW second moment (empty for SGD)
  int64_t t = 0;   // optimizer steps taken (AdamW bias correction uses t after increment)
};
OptimizerState make_optimizer_state(const OptimizerConfig& opt, const ModelConfig& config);

// The AdamW update of one tensor of n values (what optimizer_step runs on each tensor; LoRA's A and B use it too):
// t = optimizer steps taken including this one (bias correction), decay = apply λ to this tensor.
void adamw_update(float* w, const float* g, float* m, float* v, int64_t n, const OptimizerConfig& opt, double lr,
                  int64_t t, bool decay);

// One update of every parameter with learning rate `lr` (usually scheduled_lr(opt, state.t)). Increments state.t.
// Decay applies to ParamKind::Matrix tensors, plus norms / embeddings when the config asks.
void optimizer_step(ModelWeights& weights, ModelWeights& grads, OptimizerState& state, const OptimizerConfig& opt,
                    const ModelConfig& config, double lr);

}  // namespace tw
