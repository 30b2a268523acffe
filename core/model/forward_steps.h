#pragma once
// The step table of the forward pass: one row per step a Trace records, in trace order (pre-norm order; post-norm
// records each block norm after its residual add). forward_cached() records a step with one short call naming its
// row; the stable name, the title, the formula and the shape come from here. Where the config changes a title or
// formula (the norm kind, a sliding window, the activation) forward.cpp passes the variant. The list in the header
// of core/model/forward.h is checked against this table (tests/core/model/test_forward_steps.cpp).
//
// Shape symbols (key in core/tensor.h): T new tokens, T_k keys in the cache, C channels, H query heads,
// KV key/value heads, D head dim, F MLP hidden, V vocabulary, E experts (mixture-of-experts configs).

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/trace.h"

namespace tw {

// One id per row of forward_step_table(), in the same order.
// clang-format off
enum class StepId {
  Embed, PosEmbed,                                                               // model, before the blocks
  AttnNorm, Q, K, V, QNorm, KNorm, QRope, KRope, Scores, Probs, AttnOut, Proj,  // a block's attention half
  AttnPostNorm, AttnResidual,
  MlpNorm, RouterProbs, ExpertGates, ExpertLoad, ExpertDropped,                 // MLP half: MoE routing
  Gate, Up, Hidden, Down, MlpPostNorm, MlpResidual,                              // a block's MLP half
  FinalNorm, Logits,                                                             // model, after the blocks
};
// clang-format on

struct StepRow {
  StepId id;
  const char* name;     // stable trace name; block steps are recorded as "layers.<L>." + name
  bool in_block;        // recorded once per layer
  const char* title;    // one line for a heading (the default variant); an English msgid, views show tr(title)
  const char* formula;  // what is computed (the default variant), as $…$ math: the same in every language
  const char* shape;    // logical shape as space-separated symbols, e.g. "T H D"
};

// Every row, in trace order.
const std::vector<StepRow>& forward_step_table();
const StepRow& step_row(StepId id);

// The sizes behind the shape symbols for one pass.
struct StepSizes {
  int64_t T = 0, T_k = 0, C = 0, H = 0, KV = 0, D = 0, F = 0, V = 0, E = 0;
};
// The row's shape with sizes and meanings, e.g. {T=5 tokens, H=4 query heads, D=16 head dim}.
std::vector<TraceDim> step_shape(const StepRow& row, const StepSizes& sizes);

}  // namespace tw
