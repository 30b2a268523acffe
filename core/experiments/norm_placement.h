#pragma once
// Pre-norm vs post-norm at initialisation: the gradient norm of each block's parameters after one backward pass
// of the untrained model, for a range of depths (the norms panel's last figure).
//
//   pre-norm   h = x + f(Norm(x)): the residual path from the loss to every block is the identity, so each
//              block receives a gradient of similar size however deep the stack is.
//   post-norm  h = Norm(x + f(x)): every block's output passes through the norms of all blocks above it, so the
//              gradient a block receives changes layer by layer (Xiong et al., 2020: large near the output at
//              init), which is why post-norm Transformers needed learning-rate warmup.
// The gradients come from train_forward_backward (core/train/model_train.h): the real backward pass.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/config.h"

namespace tw {

struct PlacementGradients {
  int depth = 0;
  std::vector<double> pre;             // (depth) ‖∂loss/∂θ_l‖₂ of block l's parameters, pre-norm
  std::vector<double> post;            // (depth) the same for post-norm (same seed, same batch)
  double pre_loss = 0, post_loss = 0;  // the loss at init (≈ ln V for both)
};

struct PlacementParams {
  std::vector<int> depths = {2, 4, 8, 16, 32, 48};  // 1 ≤ depth ≤ 64 each
  int dim = 32;                                     // C
  int seq = 16;                                     // T tokens per sequence
  int batch = 4;                                    // B sequences of random tokens
  uint64_t seed = 1;
  NormType norm = NormType::RMSNorm;
};

// "" when usable, else one sentence naming the field.
std::string validate(const PlacementParams& p);
// Multiply-adds, roughly: the panel waits for it when small.
double placement_work(const PlacementParams& p);
// One entry per depth. `keep_going(fraction_done)` returning false stops early (the result then has fewer depths).
std::vector<PlacementGradients> placement_gradients(const PlacementParams& p,
                                                    const std::function<bool(float)>& keep_going = {});

// The model one depth uses (exposed for tests): a small RMSNorm/LayerNorm model with 4 heads and a 64-token vocab.
ModelConfig placement_config(const PlacementParams& p, int depth, NormPlacement placement);

}  // namespace tw
