#pragma once
// ImGui pieces of the forward stepper that are larger than a few lines: the layer's block diagram, token chips,
// the step tree, the step's header (formula, shapes, costs) and the parameter tables.

#include <string>
#include <vector>

#include "views/forward/forward_state.h"
#include "views/panel.h"

namespace tw {

// The block as boxes in the order of its norm placement, the box of `step_name` highlighted.
void draw_block_diagram(const ModelConfig& config, const std::string& step_name, const DrawContext& ctx);
// One chip per token: label above, id below; the last `highlight_last` chips (appended tokens) in another colour.
void draw_token_chips(const TokenVocabulary& vocab, const std::vector<int>& tokens, int highlight_last,
                      const DrawContext& ctx);
// model → layer → sub-step. Returns the step index the user clicked, or -1.
// `reveal` opens the group of the current step (after stepping with the buttons or keys).
int draw_step_tree(const Trace& trace, int current, bool reveal);
// Title, formula, inputs with their shapes, output shape with meanings, FLOPs, bytes, arithmetic intensity.
void draw_step_header(const ForwardResult& r, int step_index);
// Which of the most likely next tokens each sampling filter keeps (shown_candidates of the choice).
void draw_next_token_table(const NextTokenChoice& next, const TokenVocabulary& vocab);
// parameter_table(config) as a table; for the Small sizes also the check of a commonly quoted table of them.
void draw_parameter_tables(const ModelConfig& config);

}  // namespace tw
