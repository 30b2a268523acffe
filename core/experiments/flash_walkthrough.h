#pragma once
// FlashAttention step by step: one head of the tiled kernel (core/ops/flash_attention) on a small random
// problem, recorded tile by tile through the kernel's own observer, beside the reference attention and the
// memory traffic of both.
//
// HBM traffic, counted in floats moved between main memory and the chip, for one head of T tokens, head dim D:
//   standard attention (FlashAttention paper, Algorithm 0): read Q, K (2TD), write S (T²); read S, write P (2T²);
//     read P and V (T² + TD), write O (TD)                          → 4TD + 4T²
//   tiled: read each Q tile once (TD in all), and for every (query tile, key tile) the kernel computes, read
//     that K and V tile (2·nk·D); write O once (TD)                  → 2TD + 2D·Σ nk over computed tiles
//     without a mask every query tile reads all T keys: 2TD + 2TD·⌈T / tile_q⌉; a causal mask skips the tiles
//     above the diagonal, close to half.

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/flash_attention.h"
#include "core/tensor.h"

namespace tw {

struct FlashWalkParams {
  int T = 16;          // tokens (queries = keys)
  int D = 8;           // head dim
  int tile_q = 4;      // query rows per tile
  int tile_k = 4;      // keys per tile
  bool causal = true;  // causal mask: tiles above the diagonal are skipped
  uint64_t seed = 1;
};
std::string validate(const FlashWalkParams& p);  // "" when usable, else one sentence naming the field

struct FlashStep {
  int q_tile = 0, k_tile = 0;  // tile indices
  int q0 = 0, nq = 0, k0 = 0, nk = 0;
  bool skipped = false;     // masked tile: nothing loaded
  std::vector<float> m, l;  // (nq) running max and sum after this tile
  Mat acc;                  // (nq, D) unnormalised accumulator after this tile
  Mat p;                    // (nq, nk) exp(S − m_new) of this tile (empty when skipped)
};

struct FlashWalkthrough {
  Mat q, k, v;                      // (T, D) inputs, seeded Gaussian
  Mat scores, probs, reference;     // reference attention: S (T, T) with −∞ where masked, P, and O (T, D)
  Mat output;                       // the tiled kernel's O (T, D)
  float max_abs_diff = 0;           // max |output − reference|
  std::vector<FlashStep> steps;     // every (query tile, key tile) in the kernel's order
  FlashStats stats;                 // the kernel's tile counts
  double standard_floats = 0;       // HBM traffic of standard attention, floats (formula above)
  double tiled_floats = 0;          // HBM traffic of the tiled kernel, floats (formula above)
  double tiled_floats_counted = 0;  // the same, summed from the tiles the kernel reported
};

FlashWalkthrough flash_walkthrough(const FlashWalkParams& params);

// Traffic curves for the panel: floats moved for one head.
double standard_attention_floats(int T, int D);
double tiled_attention_floats(int T, int D, int tile_q, int tile_k, bool causal);

// Work of flash_walkthrough in multiply-adds (T² · D, plus a few copies per tile): the panel waits for a result
// only when this is small (4e6 is a few milliseconds).
double flash_walkthrough_work(const FlashWalkParams& params);

}  // namespace tw
