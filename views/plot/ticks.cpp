// Tick placement and number formatting for axes and colour bars (declared in layout.h).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "views/plot/layout.h"

namespace tw::plot {

namespace {

const char* const kMinus = "\xE2\x88\x92";  // U+2212, the typographic minus sign

std::string with_minus(std::string s) {
  if (!s.empty() && s[0] == '-') s = kMinus + s.substr(1);
  return s;
}

// Superscript digits for 10ⁿ labels.
std::string superscript(int n) {
  static const char* const digits[] = {"\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",     "\xE2\x81\xB4",
                                       "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7", "\xE2\x81\xB8", "\xE2\x81\xB9"};
  std::string out = n < 0 ? "\xE2\x81\xBB" : "";  // superscript minus
  const std::string d = std::to_string(std::abs(n));
  for (char c : d) out += digits[c - '0'];
  return out;
}

}  // namespace

std::string tick_label(double v, double step) {
  if (std::fabs(v) < step * 1e-9) v = 0;  // -0.0 and rounding noise print as 0
  const double mag = std::max(std::fabs(v), step);
  char buf[64];
  if (mag >= 1e5 || mag < 1e-4) {
    // Scientific: as many mantissa digits as the step needs, trailing zeros trimmed ("2.5e-05" → "2.5e-5").
    const int digits = std::clamp(
        static_cast<int>(std::floor(std::log10(mag))) - static_cast<int>(std::floor(std::log10(step))), 0, 6);
    std::snprintf(buf, sizeof buf, "%.*e", digits, v);
    std::string s = buf;
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e), ex = s.substr(e + 1);
    if (mant.find('.') != std::string::npos) {
      while (mant.back() == '0') mant.pop_back();
      if (mant.back() == '.') mant.pop_back();
    }
    int exponent = std::atoi(ex.c_str());
    return with_minus(mant) + "e" +
           (exponent < 0 ? std::string(kMinus) + std::to_string(-exponent) : std::to_string(exponent));
  }
  const int decimals = std::clamp(-static_cast<int>(std::floor(std::log10(step) + 1e-9)), 0, 8);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return with_minus(buf);
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "\xE2\x88\x9E" : std::string(kMinus) + "\xE2\x88\x9E";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return with_minus(buf);
}

std::vector<Tick> nice_ticks(double lo, double hi, int target) {
  std::vector<Tick> ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= 0) {
    ticks.push_back({lo, tick_label(lo, std::max(std::fabs(lo), 1.0) * 0.01)});
    return ticks;
  }
  target = std::max(target, 2);
  const double raw = (hi - lo) / target;
  // 1, 2, 5 × 10ⁿ: the smallest nice step at least `raw`.
  int n = static_cast<int>(std::floor(std::log10(raw)));
  int m = 0;  // index into {1, 2, 5}
  static const double kNice[] = {1.0, 2.0, 5.0};
  while (kNice[m] * std::pow(10.0, n) < raw * 0.999) {
    if (++m == 3) m = 0, ++n;
  }
  // A short range (a colour bar from −0.014 to 0.014 asks for a step of 0.02) can leave a single tick; a scale
  // with one number cannot be read, so step down through the nice values until at least two fit.
  for (int attempt = 0; attempt < 6; ++attempt) {
    const double step = kNice[m] * std::pow(10.0, n);
    const double eps = step * 1e-6;
    const double first = std::ceil((lo - eps) / step);
    ticks.clear();
    for (double k = first;; k += 1) {
      const double v = k * step;  // multiply (not accumulate) so 0.1 · 3 stays on the grid
      if (v > hi + eps) break;
      ticks.push_back({v, tick_label(v, step)});
      if (ticks.size() > 1000) break;
    }
    if (ticks.size() >= 2) break;
    if (--m < 0) m = 2, --n;
  }
  return ticks;
}

std::vector<Tick> log_ticks(double lo, double hi, int target) {
  std::vector<Tick> ticks;
  if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi)) return ticks;
  if (lo > hi) std::swap(lo, hi);
  const double llo = std::log10(lo), lhi = std::log10(hi);
  const int d0 = static_cast<int>(std::ceil(llo - 1e-9)), d1 = static_cast<int>(std::floor(lhi + 1e-9));
  const int decades = d1 - d0 + 1;
  if (decades >= 3) {
    const int every = std::max(1, (decades + std::max(target, 2) - 1) / std::max(target, 2));
    for (int d = d0; d <= d1; ++d)
      if ((d - d0) % every == 0) ticks.push_back({std::pow(10.0, d), "10" + superscript(d)});
    return ticks;
  }
  // Narrow range: 1, 2, 5 × 10ⁿ, or linear ticks if even those are too sparse.
  for (int d = d0 - 1; d <= d1 + 1; ++d)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, d);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back({v, tick_label(v, std::pow(10.0, d))});
    }
  if (ticks.size() < 2) return nice_ticks(lo, hi, target);
  return ticks;
}

}  // namespace tw::plot
