#pragma once
// Colormaps: viridis and magma (sequential), a blue-white-red diverging map centred at zero for signed
// values, and the Okabe–Ito colour-blind-safe categorical palette. Colours are 0xRRGGBBAA.
// The sequential maps are approximated by interpolating a few published anchor colours in sRGB.

#include <cstdint>
#include <string>

namespace tw::plot {

enum class Colormap {
  Viridis,    // sequential, dark blue → yellow; default for probabilities
  Magma,      // sequential, black → pale yellow
  Diverging,  // blue (negative) → white (0) → red (positive); range made symmetric around 0
};
// No grey map on purpose: grey is reserved for masked cells (kMaskedColor).

const char* colormap_name(Colormap map);  // "viridis", "magma", "diverging"

// Colour at t ∈ [0, 1] (clamped).
uint32_t colormap_at(Colormap map, double t);

// Position of `value` on the scale [vmin, vmax]; Diverging maps 0 to 0.5 and ±max(|vmin|, |vmax|) to the ends.
double colormap_position(Colormap map, double value, double vmin, double vmax);

// Colour of a heatmap cell: masked (-inf) and invalid (NaN) cells get kMaskedColor, never a scale colour.
uint32_t cell_color(Colormap map, double value, double vmin, double vmax);

inline constexpr uint32_t kMaskedColor = 0x8C8C8CFF;  // neutral mid grey, far from every scale colour

// Okabe–Ito palette in an order readable on both dark and white backgrounds, then five more colours from Paul
// Tol's schemes that stay apart from those seven; index wraps around.
uint32_t categorical(int index);
inline constexpr int kCategoricalCount = 12;
// Colour of series `index` out of `count` drawn together: the categorical palette while it has a colour for
// each; beyond that, evenly spaced viridis colours in series order (neighbours alike, order readable), never a
// repeated colour.
uint32_t series_color(int index, int count);

// Helpers on 0xRRGGBBAA colours.
inline uint8_t red(uint32_t c) { return static_cast<uint8_t>(c >> 24); }
inline uint8_t green(uint32_t c) { return static_cast<uint8_t>(c >> 16); }
inline uint8_t blue(uint32_t c) { return static_cast<uint8_t>(c >> 8); }
inline uint8_t alpha(uint32_t c) { return static_cast<uint8_t>(c); }
inline uint32_t rgba(int r, int g, int b, int a = 255) {
  return (uint32_t(r & 255) << 24) | (uint32_t(g & 255) << 16) | (uint32_t(b & 255) << 8) | uint32_t(a & 255);
}
inline uint32_t with_alpha(uint32_t c, int a) { return (c & 0xFFFFFF00u) | uint32_t(a & 255); }
std::string css_hex(uint32_t c);  // "#rrggbb" (alpha dropped)

}  // namespace tw::plot
