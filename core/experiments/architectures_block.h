#pragma once
// Serial vs parallel block on a shipped model: the same weights run both ways on the same held-out tokens.
//
//   serial   (LLaMA, trained so):        h = x + Attn(Norm₁(x));   out = h + MLP(Norm₂(h))
//   parallel (GPT-NeoX, GPT-J, PaLM):    out = x + Attn(Norm₁(x)) + MLP(Norm₂(x))
//
// The parallel layout (ModelConfig::parallel_block) keeps both norms, so every weight is used in both runs; only
// the MLP's input changes (Norm₂ of x instead of h). A model trained serial is not trained parallel, so the
// difference measures how much each MLP relies on reading its own block's attention output. When every MLP
// outputs zero the two layouts are the same function (out = x + Attn(Norm₁(x)) either way).
//
//   BlockLayoutComparison r = compare_block_layouts(model, corpus.heldout);
//   if (r.error.empty()) show(r.serial.bits_per_char, r.parallel.bits_per_char, r.logit_rel_diff);
//
// Windows and bits per character are those of model_bits_per_char (core/experiments/model_bits.h).
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/stepper_model.h"

namespace tw {

struct BlockLayoutRun {
  double loss = 0;           // mean −ln p of the scored tokens (nats), the training loss
  double bits_per_char = 0;  // Σ −log₂ p / characters
};

struct BlockLayoutComparison {
  BlockLayoutRun serial, parallel;
  // Over every scored position (each window's positions 0 … T−2): ‖L_par − L_ser‖_F / ‖L_ser‖_F of the logits,
  // the fraction whose most likely next token is the same, and the mean KL(P_ser ‖ P_par) in bits.
  double logit_rel_diff = 0;
  double top1_agreement = 0;
  double kl_bits = 0;
  // (L) ‖x_par − x_ser‖_F / ‖x_ser‖_F of the residual stream after block l (trace step layers.l.mlp.residual), over
  // every token of every window: how the difference grows with depth.
  std::vector<double> layer_rel_diff;
  int64_t tokens_scored = 0, chars = 0;
  int records = 0, windows = 0;
  std::string error;  // one line: no tokenizer, post-norm or MoE model, a record that does not encode
};

// Runs `model` serial and parallel on the first `max_chars` characters' worth of `records` (whole records).
BlockLayoutComparison compare_block_layouts(const StepperModel& model, const std::vector<std::string>& records,
                                            int64_t max_chars = 6000);

}  // namespace tw
