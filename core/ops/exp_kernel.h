#pragma once
// e^y for y ≤ 0 as straight-line float arithmetic, and the row loops built on it. A loop of it vectorises: the
// row kernels are compiled for AVX-512, AVX2 and the baseline (target_clones, chosen at run time), each doing the
// same IEEE operations (their files are built with -ffp-contract=off), so every clone gives the same bits.
// Users: cross-entropy's softmax over the vocabulary, the tiled attention's online softmax, SiLU of the GLU.

#include <bit>
#include <cstddef>
#include <cstdint>

namespace tw {

// e^y₀ for y₀ ≤ 0, about 1 ulp: Cody–Waite reduction y = n·ln 2 + r with the split ln 2 = 0.693359375 −
// 2.12194440e-4, the degree-6 polynomial of Cephes' expf for e^r, and 2^n through the exponent bits. Below −87,
// e^y leaves float's normal range: y is clamped there (≈ 1.6e-38). The clamp compares and selects bits (both
// negative: the larger magnitude has the larger pattern), so there is no floating-point branch. NaN or ±∞ in
// gives a non-finite result without undefined behaviour: y is clamped into [−87, 0] by bits (negative NaN counts
// as below −87; +0, +∞ and positive NaN as above 0) so the integer conversion is defined, and y₀ − y₀ (0 when
// finite, NaN otherwise) is added. Always inlined, so each AVX clone of a loop compiles it for its own vectors.
[[gnu::always_inline]] inline float exp_nonpositive(float y0) {
  constexpr uint32_t kMinus87 = 0xC2AE0000u;  // the bits of −87.0f
  constexpr uint32_t kSign = 0x80000000u;
  const uint32_t bits = std::bit_cast<uint32_t>(y0);
  const uint32_t below = 0u - static_cast<uint32_t>(bits > kMinus87);  // all ones where y < −87 (or −NaN)
  const uint32_t above = 0u - static_cast<uint32_t>(bits < kSign);     // all ones where y ≥ +0 (or +∞, +NaN)
  const float y = std::bit_cast<float>((bits & ~below & ~above) | (kMinus87 & below));
  const int n = static_cast<int>(y * 1.44269504088896341f - 0.5f);  // a nearby integer (y ≤ 0)
  const float fn = static_cast<float>(n);
  float r = y - fn * 0.693359375f;
  r = r - fn * -2.12194440e-4f;
  float q = 1.9875691500e-4f;
  q = q * r + 1.3981999507e-3f;
  q = q * r + 8.3334519073e-3f;
  q = q * r + 4.1665795894e-2f;
  q = q * r + 1.6666665459e-1f;
  q = q * r + 5.0000001201e-1f;
  return (q * r * r + r + 1.0f) * std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23) + (y0 - y0);
}

// p[v] = e^(x[v] − shift) for v < n (each ≤ 1 when shift is the row's max); returns Σ p, summed in 16 lanes added
// in a fixed order (the same number on every instruction set). p and x must not overlap.
float exp_row(float* __restrict p, const float* __restrict x, float shift, int n);
// The same in place: x[v] = e^(x[v] − shift); returns Σ x.
float exp_row_inplace(float* x, float shift, int n);

}  // namespace tw
