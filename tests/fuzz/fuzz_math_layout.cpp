// libFuzzer target: the math layout of any text — deep nesting (${{{…}}}$, \sqrt\sqrt…, x^^^…), long runs, stray
// braces and dollars — finishes within a time budget without overflowing the stack, with finite boxes; nesting past
// the parser's limit is named in MathLayout::unsupported.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "views/plot/math.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto start = std::chrono::steady_clock::now();
  for (bool display : {false, true}) {
    const tw::plot::MathLayout m = tw::plot::layout_math_uncached(text, 15.0f, {.display = display});
    if (!std::isfinite(m.width) || !std::isfinite(m.ascent) || !std::isfinite(m.descent)) std::abort();
    for (const tw::plot::MathRun& r : m.runs)
      if (!std::isfinite(r.x) || !std::isfinite(r.y) || !(r.size > 0)) std::abort();
  }
  // Deep nesting: the limit stops it, and says so (checked once).
  static const bool deep_named = [] {
    const std::string deep = "$" + std::string(5000, '{') + "x" + std::string(5000, '}') + "$";
    return !tw::plot::layout_math_uncached(deep, 15.0f).unsupported.empty();
  }();
  if (!deep_named) std::abort();
  if (std::chrono::steady_clock::now() - start > std::chrono::seconds(2)) std::abort();  // the time budget
  return 0;
}
