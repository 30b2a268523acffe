#pragma once
// Reading a forward-pass Trace the way the stepper panel presents it.
//
// The Trace (core/model/trace.h) is a flat list of named steps. A student needs more than the list:
//   - where each step sits: model → layer → sub-step, and which box of the block diagram it belongs to;
//   - how big the residual stream is after every step (the norm of each token's vector);
//   - for attention maps, which query heads share a key/value head;
//   - the parameter count per component, and where a commonly quoted Small-config table goes wrong.
// Everything here is plain data computed from a Trace or a config; views/panel_forward.cpp only draws it.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/trace.h"
#include "core/tensor.h"

namespace tw {

// [SECTION] step tree: model → layer → sub-step

struct StepGroup {
  std::string label;       // "input", "layer 0", ..., "output"
  int layer = -1;          // block index, or -1 for the input and output groups
  std::vector<int> steps;  // trace step indices, in trace order
};
// Groups every step of the trace, in order: the steps before the first block ("input"), one group per layer,
// and the steps after the last block ("output"). Every step index appears exactly once.
std::vector<StepGroup> step_groups(const Trace& trace);
// Name of a step inside its group: "layers.1.attn.probs" → "attn.probs"; names outside a layer are unchanged.
std::string sub_step_name(const std::string& name);

// [SECTION] block diagram

// The boxes of one Transformer block. The order they are drawn in depends on the norm placement (block_order).
enum class BlockStage { Norm1, Attention, Residual1, Norm2, Mlp, Residual2 };
inline constexpr int kBlockStages = 6;
// Pre-norm:  Norm1 → Attention → Residual1 → Norm2 → Mlp → Residual2
// Post-norm: Attention → Residual1 → Norm1 → Mlp → Residual2 → Norm2   (the norm follows each residual add)
std::vector<BlockStage> block_order(NormPlacement placement);
// The box a step belongs to, or -1 (as int) for steps outside the blocks. Norm1 is `attn_norm`, Norm2 `mlp_norm`.
int block_stage(const std::string& step_name);

// [SECTION] residual stream

// The residual stream is the (T, C) tensor handed from one sub-block to the next. Its steps are the embedding
// (and the position-added embedding), then per layer: pre-norm `attn.residual`, `mlp.residual`;
// post-norm `attn_norm`, `mlp_norm` (there the norm is applied to the stream itself).
bool is_residual_stream_step(const std::string& name, NormPlacement placement);

struct ResidualNorms {
  std::vector<int> steps;           // trace indices of the stream steps, in order
  std::vector<std::string> labels;  // short axis labels: "embed", "L0 attn+", "L0 mlp+", "L0 norm1", ...
  MatD norms;                       // (n_stream_steps, T): Euclidean norm of each token's vector after the step
};
ResidualNorms residual_norms(const Trace& trace, NormPlacement placement);

// [SECTION] attention maps

// True for steps stored as H stacked (T, T_k) maps: attn.scores and attn.probs.
bool is_attention_map(const TraceStep& step);
// Query heads grouped by the key/value head they read (GQA): groups[g] = {g·n_rep, ..., g·n_rep + n_rep − 1}.
// Empty when the head counts do not divide.
std::vector<std::vector<int>> heads_by_kv_head(int n_heads, int n_kv_heads);

// [SECTION] parameter table vs a commonly quoted table

// One row of a commonly quoted "Small" parameter table (dim 256, 4 layers, 8 heads, 4 KV heads, vocab 8192),
// with the count its own formula gives.
struct NotesParamRow {
  std::string component;   // e.g. "MLP W1 (gate)"
  std::string formula;     // the table's formula, in our symbols
  std::string notes_text;  // the value as printed in the table: "87K"
  double notes_value = 0;  // that value as a number: 87000
  int64_t computed = 0;    // the formula evaluated exactly
  bool agrees = false;     // the printed value is the computed one up to its rounding (within 2%)
  std::string remark;      // why it differs, empty when it agrees
};

struct NotesParamCheck {
  int notes_hidden = 0;             // the MLP hidden size the table's own code gives: int(2 · 4 · dim / 3)
  std::vector<NotesParamRow> rows;  // in the table's order, ending with the block, 4-block and total rows
  int64_t computed_total = 0;       // every parameter of that model (embedding + blocks + final norm + head)
  double notes_rows_sum = 0;        // embedding + 4 blocks + output as printed: what the table's total should be
  int disagreements = 0;            // rows whose printed value is not the computed one
};
// Evaluates the table from its formulas (hidden = the table's rule, no rounding to a multiple) and
// marks the rows where the printed numbers slipped.
NotesParamCheck check_notes_small_table();

// [SECTION] custom config editor

// The validate_fields() messages whose field is `field` (a ModelConfig field name such as "n_kv_heads", or the
// editor's "gqa_ratio"), read from the field, not the text. Field "" gives the problems of fields the editor has no
// control beside (attention scale, rope_scaling, ...).
std::vector<std::string> messages_for_field(const std::vector<ConfigProblem>& problems, const std::string& field);

}  // namespace tw
