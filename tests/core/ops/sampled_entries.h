#pragma once
// A few entries of every tensor of a double-precision model (about three per tensor, spread over it), in the order
// visit_parameters walks them: the places a finite-difference check moves, and the same places of the gradient.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/weights.h"
#include "core/train/model_train.h"

namespace tw::testing {

inline std::vector<double*> sampled_entries(ModelWeightsD& w, const ModelConfig& c) {
  std::vector<double*> out;
  visit_parameters(w, c, [&](const std::string&, double* data, int64_t size) {
    for (int64_t i = 0; i < size; i += std::max<int64_t>(1, size / 3)) out.push_back(data + i);
  });
  return out;
}

}  // namespace tw::testing
