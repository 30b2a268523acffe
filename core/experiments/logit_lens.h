#pragma once
// Logit lens (nostalgebraist, 2020): read the residual stream after every layer as if it were the last one.
//
// The LM head only ever sees x_f = FinalNorm(x_L) of the last layer. Applying the same final norm and head to the
// stream after layer l, logits_l = FinalNorm(x_l) · W_headᵀ, shows what the model "would say" at that depth: the
// top token per position per layer, and how much probability each layer already gives the token the full model
// finally predicts. The last row equals the model's own output exactly (same tensor, same ops), which the tests
// check; post-norm models have no final norm, their stream is already normalised after each block.

#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/trace.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace tw {

struct LogitLens {
  std::vector<std::string> rows;   // "embed", "layer 0", …, "layer L-1" (R = L + 1 rows)
  std::vector<std::string> steps;  // the trace step read for each row (embed / pos_embed, layers.l.mlp.residual)
  int T = 0;                       // positions
  std::vector<int> top_token;      // (R, T) row-major: argmax of softmax(logits_l) at each position
  MatD top_prob;                   // (R, T) probability of that top token
  std::vector<int> final_token;    // (T) the model's prediction at each position (top token of the last row)
  MatD final_prob;                 // (R, T) probability row l gives final_token[t]
  int top(int row, int t) const { return top_token[static_cast<size_t>(row * T + t)]; }
};

// Computes the lens from a traced forward pass (core/model/forward.h) of `weights`/`config`. Fails with one
// line when the trace lacks a residual step (an untraced or partial pass). Cost: R products (T, C)·(C, V).
bool logit_lens(LogitLens* out, const Trace& trace, const ModelWeights& weights, const ModelConfig& config,
                std::string* error);

}  // namespace tw
