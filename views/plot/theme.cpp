#include "views/plot/theme.h"

#include <algorithm>
#include <cmath>

#include "views/plot/colormap.h"

namespace tw::plot {

FigureTheme figure_theme(Theme kind) {
  // Each field once, its dark value first. Dark matches ImGui's dark window colours so a figure sits inside a panel
  // without a visible seam; print is white paper and near-black ink, with lines thick enough to survive scaling
  // down in a PDF.
  const bool dark = kind == Theme::Dark;
  return {
      .kind = kind,
      .background = dark ? rgba(21, 22, 26) : rgba(255, 255, 255),
      .plot_background = dark ? rgba(30, 32, 38) : rgba(255, 255, 255),
      .frame = dark ? rgba(150, 154, 162) : rgba(40, 40, 40),
      .grid = dark ? rgba(58, 61, 70) : rgba(222, 222, 222),
      .text = dark ? rgba(225, 227, 232) : rgba(20, 20, 20),
      .faint = dark ? rgba(120, 124, 132) : rgba(140, 140, 140),
      .marker = dark ? rgba(235, 235, 235) : rgba(60, 60, 60),
      .legend_background = dark ? rgba(21, 22, 26, 215) : rgba(255, 255, 255, 230),
      .title_size = kBaseFontSize,
      .label_size = 14.0f,
      .tick_size = 12.5f,
      .line_width = dark ? 1.6f : 2.2f,
      .frame_width = dark ? 1.0f : 1.3f,
      .grid_width = dark ? 1.0f : 0.8f,
      .marker_size = dark ? 3.0f : 3.5f,
      .padding = 8.0f,
      .tick_length = 4.0f,
      .colorbar_width = 14.0f,
  };
}

uint32_t ui_background(Theme theme) { return theme == Theme::Print ? 0xFFFFFFFFu : 0x0F0F0FFFu; }

uint32_t ui_color(Theme theme, UiRole role) {
  const bool print = theme == Theme::Print;
  switch (role) {
    case UiRole::Formula: return print ? 0x0B5394FFu : 0x8CCCFFFFu;
    case UiRole::Good: return print ? 0x1B7A2FFFu : 0x4CC65AFFu;
    case UiRole::Bad: return print ? 0xB3261EFFu : 0xF26B6BFFu;
    case UiRole::Warning: return print ? 0x8A5A00FFu : 0xF2A61AFFu;
    case UiRole::Link: return print ? 0x0645ADFFu : 0x73B3FFFFu;
  }
  return print ? 0x000000FFu : 0xFFFFFFFFu;
}

namespace {
double channel_luminance(uint8_t c) {
  const double v = c / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}
double relative_luminance(uint32_t c) {
  return 0.2126 * channel_luminance(uint8_t(c >> 24)) + 0.7152 * channel_luminance(uint8_t(c >> 16)) +
         0.0722 * channel_luminance(uint8_t(c >> 8));
}
}  // namespace

double contrast_ratio(uint32_t a, uint32_t b) {
  const double la = relative_luminance(a), lb = relative_luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace tw::plot
