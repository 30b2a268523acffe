#pragma once
// Random numbers drawn the same way on every platform and standard library (the std:: distributions are
// implementation-defined), for experiments and tests whose figures or expected values depend on exact draws.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace tw {

// A uniform double in [0, 1) from the top 53 bits of one draw.
inline double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// A standard normal by Box–Muller from two draws; u1 is in (0, 1], so log never sees 0. The sine half is dropped.
inline double standard_normal(std::mt19937_64& rng) {
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = uniform01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace tw
