#pragma once
// Reference implementations the tests check core against, written the plain way Hugging Face's modeling code does
// it: the app never runs them.
//   repeat_kv    keys or values copied once per query head (modeling_llama's repeat_kv), against which grouped
//                attention that reads KV head h / n_rep in place is checked;
//   mlp_forward  the whole MLP block (up, gate, activation, down) from core's kernels, one call per block.

#include <cassert>

#include "core/ops/linear.h"
#include "core/ops/mlp.h"

namespace tw::testing {

// kv: (T, KV*D)  →  out: (T, KV*n_rep*D), out head h = kv head h / n_rep.
inline void repeat_kv(Mat& out, const Mat& kv, int T, int KV, int n_rep, int D) {
  // kv: (T, KV*D)   out: (T, H*D) with H = KV*n_rep
  assert(kv.rows() == T && kv.cols() == KV * D && &out != &kv);
  const int H = KV * n_rep;
  out.resize(T, H * D);
  for (int t = 0; t < T; ++t)  // one work item per (token, query head)
    for (int h = 0; h < H; ++h) out.row(t).segment(h * D, D) = kv.row(t).segment((h / n_rep) * D, D);
}

// Intermediates of one MLP block, kept by name.
struct MlpActivations {
  Mat gate;    // (T, F) x · W_gateᵀ (empty for Plain)
  Mat up;      // (T, F) x · W_upᵀ
  Mat hidden;  // (T, F) what enters down_proj: act(up) for Plain, act(gate) ⊙ up for the GLUs
};

// out: (T, C); x: (T, C). `act` is the activation of Plain (and picks the GELU variant of GeGLU).
inline void mlp_forward(Mat& out, MlpActivations& acts, const Mat& x, const MlpWeights& w, MlpKind kind, Activation act,
                        int T, int C, int F) {
  // x: (T, C)   w.gate, w.up: (F, C)   w.down: (C, F)   acts.*: (T, F)   out: (T, C)
  assert(x.rows() == T && x.cols() == C);
  assert(w.up.rows() == F && w.up.cols() == C && w.down.rows() == C && w.down.cols() == F);
  assert(kind == MlpKind::Plain || (w.gate.rows() == F && w.gate.cols() == C));
  acts.up.resize(T, F);
  out.resize(T, C);
  linear_forward(acts.up, x, w.up);
  if (kind == MlpKind::Plain) {
    acts.gate.resize(0, 0);
    activation_forward_t(acts.hidden, acts.up, act);  // the SIMD kernel training runs (exp, tanh in packets)
  } else {
    linear_forward(acts.gate, x, w.gate);
    Activation gate_act = Activation::SiLU;
    if (kind == MlpKind::ReGLU) gate_act = Activation::ReLU;
    if (kind == MlpKind::GeGLU) gate_act = act == Activation::GeluTanh ? Activation::GeluTanh : Activation::GeluExact;
    if (gate_act == Activation::SiLU) {
      swiglu_forward(acts.hidden, acts.gate, acts.up);
    } else {
      glu_forward(acts.hidden, acts.gate, acts.up, gate_act);  // act(gate) ⊙ up in one pass, as training runs it
    }
  }
  linear_forward(out, acts.hidden, w.down);
}

}  // namespace tw::testing
