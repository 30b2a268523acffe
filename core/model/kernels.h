#pragma once
// The one place that maps ModelConfig's architecture enums onto the kernels of core/ops that run them. The traced
// forward (core/model/forward.cpp) and the batched training pass (core/train/model_train.cpp) both call these, so a
// new activation or MLP kind is wired here once.

#include "core/model/config.h"
#include "core/ops/mlp.h"

namespace tw {

// The MLP's shape: plain (down(act(up))) or gated (down(act(gate) ⊙ up)).
inline MlpKind mlp_kind(ActivationKind a) {
  switch (a) {
    case ActivationKind::SwiGLU: return MlpKind::SwiGLU;
    case ActivationKind::GeGLU: return MlpKind::GeGLU;
    default: return MlpKind::Plain;
  }
}

// The non-linearity inside it; GELU and GeGLU use the exact erf form unless `tanh` (the config's gelu_tanh: GPT-2's
// gelu_new, Gemma's gelu_pytorch_tanh).
inline Activation mlp_activation(ActivationKind a, bool tanh = false) {
  switch (a) {
    case ActivationKind::ReLU: return Activation::ReLU;
    case ActivationKind::SwiGLU: return Activation::SiLU;
    default: return tanh ? Activation::GeluTanh : Activation::GeluExact;
  }
}

}  // namespace tw
