#pragma once
// Two model families side by side: a GPT-2-shaped and a LLaMA-shaped config of the same small size, each run once
// through the one forward pass on seeded random weights, and their recorded steps aligned by the step table
// (core/model/forward_steps.h). Every title and formula is the one the pass recorded in its Trace, so the
// comparison shows what the code computes, not a description of it.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/config.h"

namespace tw {

// GPT2LMHeadModel's shape: LayerNorm with bias, learned positions added to the embeddings, fused c_attn, GELU
// (tanh), biases on every projection, tied head. C 64, 2 layers, 4 heads, F 256, byte vocabulary.
ModelConfig gpt2_shaped_config();
// LlamaForCausalLM's shape at the same size: RMSNorm, RoPE, separate q/k/v, SwiGLU (F 172 ≈ 8C/3, the same MLP
// parameter count as GPT-2's 4C), no biases, an untied head.
ModelConfig llama_shaped_config();

enum class StepMatch {
  Same,     // both models record this step with the same title and formula
  Differs,  // both record it, computed differently
  OnlyA,    // only the first model has this step
  OnlyB,    // only the second
};

struct FamilyStepRow {
  std::string step;  // the step table's name ("embed", "attn.q", "mlp.hidden"; block steps of layer 0)
  std::string title_a{}, formula_a{};  // as the first model's trace recorded them (empty when it has no such step)
  std::string title_b{}, formula_b{};  // and the second's
  StepMatch match = StepMatch::Same;
};

struct FamilyComparison {
  std::vector<FamilyStepRow> rows;  // in step-table order: the model's steps, then block 0's, then the head
  std::string error;                // non-empty when a pass failed (rows then empty)
  int changed() const;              // rows that are not Same
};

// Runs both configs (seeded weights, a few byte tokens) and aligns their steps. The block steps are those of layer 0.
FamilyComparison compare_family_steps(const ModelConfig& a, const ModelConfig& b, uint64_t seed = 1);

}  // namespace tw
