#include "core/experiments/family_steps.h"

#include <algorithm>
#include <map>

#include "core/model/forward.h"
#include "core/model/forward_steps.h"
#include "core/model/weights.h"

namespace tw {

namespace {

struct RecordedStep {
  std::string title, formula;
};

// The steps outside the blocks and those of block 0 by their step-table name, or an error.
bool recorded_steps(const ModelConfig& c, uint64_t seed, std::map<std::string, RecordedStep>* out, std::string* error) {
  const std::vector<int> tokens = {72, 101, 108, 108, 111};  // "Hello" in the byte vocabulary
  // Checked before the weights are drawn: init_weights expects a valid config.
  if (const std::vector<std::string> problems = validate(c); !problems.empty()) {
    *error = problems.front();
    return false;
  }
  Trace trace;
  Mat logits;
  if (!forward(logits, &trace, init_weights(c, seed), c, tokens, error)) return false;
  const std::string block0 = "layers.0.";
  for (const TraceStep& s : trace.steps()) {
    if (s.layer > 0) continue;
    const std::string name = s.layer == 0 ? s.name.substr(block0.size()) : s.name;
    out->emplace(name, RecordedStep{s.title, s.formula});
  }
  return true;
}

}  // namespace

ModelConfig gpt2_shaped_config() {
  ModelConfig c{.dim = 64, .n_layers = 2, .n_heads = 4, .n_kv_heads = 4, .vocab = 259, .hidden = 256, .max_seq = 64};
  c.family = Family::GPT2;
  c.norm = NormType::LayerNorm;
  c.positions = PositionType::Learned;
  c.activation = ActivationKind::GELU;
  c.gelu_tanh = c.attn_bias = c.linear_bias = c.tie_embeddings = true;
  return c;
}

ModelConfig llama_shaped_config() {
  return ModelConfig{
      .dim = 64, .n_layers = 2, .n_heads = 4, .n_kv_heads = 4, .vocab = 259, .hidden = 172, .max_seq = 64};
}

int FamilyComparison::changed() const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [](const FamilyStepRow& r) { return r.match != StepMatch::Same; }));
}

FamilyComparison compare_family_steps(const ModelConfig& a, const ModelConfig& b, uint64_t seed) {
  FamilyComparison out;
  std::map<std::string, RecordedStep> sa, sb;
  if (!recorded_steps(a, seed, &sa, &out.error) || !recorded_steps(b, seed, &sb, &out.error)) return out;
  for (const StepRow& row : forward_step_table()) {
    const auto ia = sa.find(row.name), ib = sb.find(row.name);
    const bool in_a = ia != sa.end(), in_b = ib != sb.end();
    if (!in_a && !in_b) continue;
    FamilyStepRow r{.step = row.name};
    if (in_a) r.title_a = ia->second.title, r.formula_a = ia->second.formula;
    if (in_b) r.title_b = ib->second.title, r.formula_b = ib->second.formula;
    r.match = !in_b                                                  ? StepMatch::OnlyA
              : !in_a                                                ? StepMatch::OnlyB
              : r.title_a == r.title_b && r.formula_a == r.formula_b ? StepMatch::Same
                                                                     : StepMatch::Differs;
    out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace tw
