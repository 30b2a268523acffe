#pragma once
// Trace: the ordered record of every step of a forward pass, so a student can step through it.
//
// Each step has a stable dotted name ("embed", "layers.0.attn.probs", "logits") that tests, the stepper panel and
// `dump` file names rely on; renaming a step is an interface change. The output tensor is kept as a 2-D matrix
// (attention maps (H, T, T) are H stacked (T, T) blocks, (H*T, T)) together with its logical shape, each
// dimension named with its meaning. Recording can be switched off: forward() then copies nothing.

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

struct TraceDim {
  std::string symbol;   // key letter from core/tensor.h: "T", "C", "H", "KV", "D", "F", "V"
  int64_t size = 0;     // extent of this dimension
  std::string meaning;  // "tokens", "query heads", ... (English, a msgid: shape_string() translates it)
  // The symbol as TeX, as the formulas name it: "KV" is $H_{kv}$ (one variable, not K times V), the rest as stored.
  std::string tex() const { return symbol == "KV" ? "H_{kv}" : symbol; }
};

struct TraceStep {
  std::string name;                 // stable dotted id, e.g. "layers.0.attn.probs"
  std::string title;                // one line for a heading: "Attention probabilities"
  std::string formula;              // what was computed, e.g. "P = softmax(S)"
  std::vector<std::string> inputs;  // names of the steps and parameters (HF tensor names) this step reads
  Mat value;                        // the output, stored 2-D (see shape for its logical dimensions)
  std::vector<TraceDim> shape;      // logical shape; the product of sizes equals value.size()
  int layer = -1;                   // block index, or -1 for steps outside the blocks (embedding, head)
  double flops = 0;                 // floating-point operations (a multiply-add counts as 2)
  double bytes = 0;                 // bytes read and written if every input, weight and output is touched once

  // "(T=5 tokens, H=4 query heads, D=16 head dim)"
  std::string shape_string() const;
  std::vector<int64_t> sizes() const;
  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }  // FLOPs per byte
};

class Trace {
 public:
  explicit Trace(bool enabled = true) : enabled_(enabled) {}

  bool enabled() const { return enabled_; }
  void set_enabled(bool on) { enabled_ = on; }
  void clear() { steps_.clear(); }
  // Records only the steps with these names from now on (all of them when the list is empty): a caller that reads
  // two steps of each pass does not copy the dozens of others.
  void keep_only(std::vector<std::string> names) { keep_only_ = std::move(names); }

  // Appends a step (value copied) when enabled; does nothing when disabled.
  void record(std::string name, std::string title, std::string formula, std::vector<std::string> inputs,
              const Mat& value, std::vector<TraceDim> shape, int layer, double flops, double bytes);
  // The same, taking the value over (no copy): a pass that is done with its activation hands it to the trace.
  void record(std::string name, std::string title, std::string formula, std::vector<std::string> inputs, Mat&& value,
              std::vector<TraceDim> shape, int layer, double flops, double bytes);

  const std::vector<TraceStep>& steps() const { return steps_; }
  // The step with this name, or nullptr.
  const TraceStep* find(const std::string& name) const;
  int index_of(const std::string& name) const;  // -1 when absent
  double total_flops() const;

 private:
  bool wanted(const std::string& name) const;

  bool enabled_ = true;
  std::vector<std::string> keep_only_;
  std::vector<TraceStep> steps_;
};

}  // namespace tw
