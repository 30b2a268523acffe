#include "views/plot/theme.h"

#include <algorithm>
#include <cmath>

#include "views/plot/colormap.h"

namespace tw::plot {

FigureTheme figure_theme(Theme kind) {
  FigureTheme t;
  t.kind = kind;
  t.title_size = kBaseFontSize;
  t.label_size = 14.0f;
  t.tick_size = 12.5f;
  t.marker_size = 3.0f;
  t.padding = 8.0f;
  t.tick_length = 4.0f;
  t.colorbar_width = 14.0f;
  if (kind == Theme::Dark) {
    // Matches ImGui's dark window colours so a figure sits inside a panel without a visible seam.
    t.background = rgba(21, 22, 26);
    t.plot_background = rgba(30, 32, 38);
    t.frame = rgba(150, 154, 162);
    t.grid = rgba(58, 61, 70);
    t.text = rgba(225, 227, 232);
    t.faint = rgba(120, 124, 132);
    t.marker = rgba(235, 235, 235);
    t.legend_background = rgba(21, 22, 26, 215);
    t.line_width = 1.6f;
    t.frame_width = 1.0f;
    t.grid_width = 1.0f;
  } else {
    // Print: white paper, near-black ink, lines thick enough to survive scaling down in a PDF.
    t.background = rgba(255, 255, 255);
    t.plot_background = rgba(255, 255, 255);
    t.frame = rgba(40, 40, 40);
    t.grid = rgba(222, 222, 222);
    t.text = rgba(20, 20, 20);
    t.faint = rgba(140, 140, 140);
    t.marker = rgba(60, 60, 60);
    t.legend_background = rgba(255, 255, 255, 230);
    t.line_width = 2.2f;
    t.frame_width = 1.3f;
    t.grid_width = 0.8f;
    t.marker_size = 3.5f;
  }
  return t;
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
