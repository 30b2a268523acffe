#pragma once
// "What to look for" in each step of the forward pass: one sentence per step kind of core/model/forward_steps.h, an
// English msgid (views show tr()), with formulas as $…$ math. The forward stepper shows it under the step's formula
// and lessons can quote it.

#include <string_view>

#include "core/model/forward_steps.h"

namespace tw {

// The sentence for a step kind (never null).
const char* forward_look_for(StepId id);
// The same for a trace name ("embed", "layers.3.attn.probs"); nullptr for a name no step kind records.
const char* forward_look_for(std::string_view trace_name);

}  // namespace tw
