#pragma once
// Inputs shared by the attention kernel tests (test_attention.cpp, test_flash_attention.cpp).
#include <random>

#include "core/ops/alibi.h"
#include "core/ops/attention.h"
#include "core/ops/mask.h"

namespace tw {

// A rows × cols matrix of N(0, scale²) entries drawn from rng: consecutive calls continue one stream.
inline Mat randn(int rows, int cols, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> n(0.0f, scale);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}

// A KV-cache check's inputs: random q (T_q rows) then k and v (T_k rows) of H heads of width D (MHA), under a
// causal ∧ sliding-window(window) mask with ALiBi biases. opt points at mask, so the struct stays where it is built;
// the caller sets opt.q_offset.
struct SlidingAlibiInputs {
  Mat q, k, v;
  Mask mask;
  AttentionOptions opt;

  SlidingAlibiInputs(std::mt19937& rng, int T_q, int T_k, int H, int D, int window)
      : q(randn(T_q, H * D, rng)),
        k(randn(T_k, H * D, rng)),
        v(randn(T_k, H * D, rng)),
        mask(mask_and({causal_mask(), sliding_window_mask(window)})) {
    opt.mask = &mask;
    opt.bias.kind = AttentionBias::Kind::Alibi;
    opt.bias.slopes = alibi_slopes(H);
  }
  SlidingAlibiInputs(const SlidingAlibiInputs&) = delete;
  SlidingAlibiInputs& operator=(const SlidingAlibiInputs&) = delete;
};

}  // namespace tw
