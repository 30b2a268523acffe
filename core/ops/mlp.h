#pragma once
// Feed-forward blocks and their activations.
//
// Weights are stored (out_features, in_features) as in Hugging Face checkpoints, so a linear layer on
// activations x (T, in) is x · Wᵀ.
//   Plain:  out = W_down · act(W_up · x)                       (GPT-2 style; act = ReLU or GELU)
//   SwiGLU: out = W_down · (silu(W_gate · x) ⊙ W_up · x)       (LLaMA: gate_proj, up_proj, down_proj)
//   GeGLU:  out = W_down · (gelu(W_gate · x) ⊙ W_up · x)       (GELU exact or tanh, per `act`)
//   ReGLU:  out = W_down · (relu(W_gate · x) ⊙ W_up · x)
// GELU exact is x·Φ(x) = x/2·(1 + erf(x/√2)); the tanh approximation is
// x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³))). SiLU is x·σ(x).

#include <string>

#include "core/tensor.h"

namespace tw {

enum class Activation {
  ReLU,       // max(0, x)
  GeluExact,  // x·Φ(x) with erf
  GeluTanh,   // tanh approximation (GPT-2's "gelu_new", PyTorch approximate="tanh")
  SiLU,       // x·σ(x), also called swish
};

enum class MlpKind {
  Plain,   // W_down act(W_up x)
  SwiGLU,  // W_down (silu(W_gate x) ⊙ W_up x); ignores `act`
  GeGLU,   // W_down (gelu(W_gate x) ⊙ W_up x); `act` picks GeluExact or GeluTanh (others mean exact)
  ReGLU,   // W_down (relu(W_gate x) ⊙ W_up x); ignores `act`
};

const char* to_string(Activation a);
const char* to_string(MlpKind k);

float activate(Activation a, float x);
// out = act(x) elementwise; out may alias x.  x, out: (T, F)
void activation_forward(Mat& out, const Mat& x, Activation a);

struct MlpWeights {
  Mat gate;  // (F, C) gate_proj; unused (may be empty) for Plain
  Mat up;    // (F, C) up_proj (W1 of a plain MLP)
  Mat down;  // (C, F) down_proj (W2 of a plain MLP)
};

// SwiGLU's middle in one vectorised pass: hidden = silu(gate) ⊙ up, silu(g) = g·σ(g); gate, up, hidden: (T, F),
// hidden must not alias them. Compiled for AVX-512 / AVX2 / the baseline with the same bits on each; what the
// forward pass runs. (Training keeps glu_forward: the shipped checkpoints' hashes pin its bits.)
void swiglu_forward(Mat& hidden, const Mat& gate, const Mat& up);

// LLaMA's hidden size rule: h = int(2·(4·dim)/3), optionally h = int(ffn_dim_multiplier·h), then rounded up
// to a multiple of multiple_of. dim 4096, multiple_of 256 → 11008. Assumes dim ≥ 1 and multiple_of ≥ 1.
int llama_hidden_size(int dim, int multiple_of, double ffn_dim_multiplier = 1.0);

}  // namespace tw

// [SECTION] training kernels (float and double)
// Elementwise activations and the GLU product with their derivatives. Backwards accumulate (+=).
namespace tw {

// act(x) and act'(x) for any scalar; activation_value<float> equals activate().
//   ReLU' = [x > 0];  SiLU' = σ(x)·(1 + x·(1 − σ(x)));  GELU' (erf) = Φ(x) + x·φ(x);
//   GELU' (tanh) = ½(1 + t) + ½x·(1 − t²)·√(2/π)·(1 + 3·0.044715·x²), t = tanh(√(2/π)(x + 0.044715x³)).
template <class S>
S activation_value(Activation a, S x);
template <class S>
S activation_derivative(Activation a, S x);

// out = act(x); x, out: (N, F).
template <class S>
void activation_forward_t(MatT<S>& out, const MatT<S>& x, Activation a);
// dx += act'(x) ⊙ dout; dx, dout, x: (N, F). accumulate = false overwrites dx instead (saves zeroing it first).
template <class S>
void activation_backward(MatT<S>& dx, const MatT<S>& dout, const MatT<S>& x, Activation a, bool accumulate = true);

// GLU: out = act(gate) ⊙ up (SwiGLU: act = SiLU, GeGLU: GELU, ReGLU: ReLU). gate, up, out: (N, F).
template <class S>
void glu_forward(MatT<S>& out, const MatT<S>& gate, const MatT<S>& up, Activation act);
// dgate += act'(gate) ⊙ up ⊙ dout; dup += act(gate) ⊙ dout (accumulate = false: = instead of +=).
template <class S>
void glu_backward(MatT<S>& dgate, MatT<S>& dup, const MatT<S>& dout, const MatT<S>& gate, const MatT<S>& up,
                  Activation act, bool accumulate = true);

}  // namespace tw
