#include "views/plot/colormap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/enum_names.h"

namespace tw::plot {

namespace {

// Anchor colours at evenly spaced positions, interpolated linearly in sRGB. Eleven anchors keep the
// maps within a few levels of the published 256-entry tables while staying readable here.
constexpr uint32_t kViridis[] = {0x440154FF, 0x482475FF, 0x414487FF, 0x355F8DFF, 0x2A788EFF, 0x21918CFF,
                                 0x22A884FF, 0x44BF70FF, 0x7AD151FF, 0xBDDF26FF, 0xFDE725FF};
constexpr uint32_t kMagma[] = {0x000004FF, 0x140E36FF, 0x3B0F70FF, 0x641A80FF, 0x8C2981FF, 0xB73779FF,
                               0xDE4968FF, 0xF7705CFF, 0xFE9F6DFF, 0xFECF92FF, 0xFCFDBFFF};
// Blue → white → red (ColorBrewer RdBu, reversed so positive is red).
constexpr uint32_t kDiverging[] = {0x2166ACFF, 0x4393C3FF, 0x92C5DEFF, 0xD1E5F0FF, 0xF7F7F7FF,
                                   0xFDDBC7FF, 0xF4A582FF, 0xD6604DFF, 0xB2182BFF};
// Okabe & Ito (2008), ordered so the first colours read well on dark and white backgrounds.
// Then olive, rose, grey, purple and teal from Tol (2021), each far from the seven above.
constexpr uint32_t kOkabeIto[] = {0x0072B2FF, 0xE69F00FF, 0x009E73FF, 0xD55E00FF, 0xCC79A7FF, 0x56B4E9FF,
                                  0xF0E442FF, 0x999933FF, 0xEE6677FF, 0xBBBBBBFF, 0xAA3377FF, 0x44AA99FF};
static_assert(sizeof(kOkabeIto) / sizeof(kOkabeIto[0]) == kCategoricalCount);

template <size_t N>
uint32_t interpolate(const uint32_t (&anchors)[N], double t) {
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * double(N - 1);
  const size_t i = std::min(static_cast<size_t>(t), N - 2);
  const double f = t - double(i);
  const uint32_t a = anchors[i], b = anchors[i + 1];
  auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
  return rgba(mix(red(a), red(b)), mix(green(a), green(b)), mix(blue(a), blue(b)));
}

}  // namespace

namespace {
constexpr const char* kColormapNames[] = {"viridis", "magma", "diverging"};
static_assert(names_every(kColormapNames, Colormap::Diverging));
}  // namespace

// A bad value names the default map, as colormap_at draws it.
const char* colormap_name(Colormap map) { return enum_name(kColormapNames, map, kColormapNames[0]); }

uint32_t colormap_at(Colormap map, double t) {
  switch (map) {
    case Colormap::Viridis: return interpolate(kViridis, t);
    case Colormap::Magma: return interpolate(kMagma, t);
    case Colormap::Diverging: return interpolate(kDiverging, t);
  }
  return interpolate(kViridis, t);
}

double colormap_position(Colormap map, double value, double vmin, double vmax) {
  if (map == Colormap::Diverging) {
    const double m = std::max(std::fabs(vmin), std::fabs(vmax));
    return m > 0 ? 0.5 + 0.5 * value / m : 0.5;
  }
  return vmax > vmin ? (value - vmin) / (vmax - vmin) : 0.5;
}

uint32_t cell_color(Colormap map, double value, double vmin, double vmax) {
  if (std::isnan(value) || value == -INFINITY) return kMaskedColor;
  return colormap_at(map, colormap_position(map, value, vmin, vmax));
}

uint32_t categorical(int index) {
  const int n = static_cast<int>(sizeof(kOkabeIto) / sizeof(kOkabeIto[0]));
  return kOkabeIto[((index % n) + n) % n];
}

uint32_t series_color(int index, int count) {
  if (count <= kCategoricalCount) return categorical(index);
  return colormap_at(Colormap::Viridis, 0.92 * double(index) / double(std::max(count - 1, 1)));
}

std::string css_hex(uint32_t c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", red(c), green(c), blue(c));
  return buf;
}

}  // namespace tw::plot
