#include "core/model/trace.h"

#include <algorithm>

#include "core/base/i18n.h"

namespace tw {

std::string TraceStep::shape_string() const {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    // "$T_k = 12$ keys": the symbol and its size as math, the meaning (a msgid) as words
    s += "$" + shape[i].tex() + " = " + std::to_string(shape[i].size) + "$ " + tr(shape[i].meaning.c_str());
  }
  return s + ")";
}

std::vector<int64_t> TraceStep::sizes() const {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const TraceDim& d : shape) out.push_back(d.size);
  return out;
}

void Trace::record(std::string name, std::string title, std::string formula, std::vector<std::string> inputs,
                   const Mat& value, std::vector<TraceDim> shape, int layer, double flops, double bytes) {
  if (!enabled_ || !wanted(name)) return;
  record(std::move(name), std::move(title), std::move(formula), std::move(inputs), Mat(value), std::move(shape), layer,
         flops, bytes);
}

void Trace::record(std::string name, std::string title, std::string formula, std::vector<std::string> inputs,
                   Mat&& value, std::vector<TraceDim> shape, int layer, double flops, double bytes) {
  if (!enabled_ || !wanted(name)) return;
  TraceStep step;
  step.name = std::move(name);
  step.title = std::move(title);
  step.formula = std::move(formula);
  step.inputs = std::move(inputs);
  step.value = std::move(value);
  step.shape = std::move(shape);
  step.layer = layer;
  step.flops = flops;
  step.bytes = bytes;
  steps_.push_back(std::move(step));
}

bool Trace::wanted(const std::string& name) const {
  return keep_only_.empty() || std::find(keep_only_.begin(), keep_only_.end(), name) != keep_only_.end();
}

const TraceStep* Trace::find(const std::string& name) const {
  const int i = index_of(name);
  return i < 0 ? nullptr : &steps_[static_cast<size_t>(i)];
}

int Trace::index_of(const std::string& name) const {
  for (size_t i = 0; i < steps_.size(); ++i)
    if (steps_[i].name == name) return static_cast<int>(i);
  return -1;
}

double Trace::total_flops() const {
  double total = 0;
  for (const TraceStep& s : steps_) total += s.flops;
  return total;
}

}  // namespace tw
