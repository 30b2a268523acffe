#pragma once
// Figure themes: Dark for the screen, Print for lecture notes (white background, dark text, thicker lines).
// Sizes are in logical pixels; renderers multiply by their scale (DPI on screen, 1×–4× for PNG).

#include <cstdint>
#include <string>

namespace tw::plot {

enum class Theme { Dark, Print };

// What the user chose for exports: one struct, owned by the app (AppState::exports), used by File > Export and
// by every figure's right-click menu.
struct ExportSettings {
  std::string dir = "figures";              // written into, created if missing
  bool png = true, svg = true, csv = true;  // File > Export: which formats
  int png_scale = 2;                        // 1..4 PNG pixels per logical pixel
  bool print_theme = true;                  // export in the print theme whatever the screen shows
  bool slide = false;                       // a 16:9 slide (1280 × 720 logical) instead of the figure's own size
  bool caption = true;                      // the title and note above the plot

  bool operator==(const ExportSettings&) const = default;
};

// What a panel needs from the app while drawing.
struct DrawContext {
  Theme theme = Theme::Dark;
  float dpi_scale = 1.0f;
  ExportSettings* exports = nullptr;  // the app's export settings; null: the plot layer's own defaults
  // The panel's "controls column collapsed" flag when the app offers collapsing (in focus, or once collapsed);
  // null: the column is always shown and offers no collapse button (views/widgets.h: begin_controls_column).
  bool* controls_collapsed = nullptr;
  // Figures drawn by draw_figure_rows no taller than the figures column's visible height (caption included), each
  // keeping its shape: a focused panel on a projector shows a whole figure without scrolling.
  bool fit_figures_to_height = false;
};

struct FigureTheme {
  Theme kind = Theme::Dark;
  uint32_t background = 0;       // whole figure
  uint32_t plot_background = 0;  // inside the axes
  uint32_t frame = 0;            // axes box and ticks
  uint32_t grid = 0;             // grid lines
  uint32_t text = 0;             // titles, labels, tick labels
  uint32_t faint = 0;            // unit circles, empty-state text
  uint32_t marker = 0;           // default colour of vertical/horizontal marker lines
  uint32_t legend_background = 0;
  float title_size = 0;  // font pixel sizes
  float label_size = 0;
  float tick_size = 0;
  float line_width = 0;   // default width of line items
  float frame_width = 0;  // axes box, ticks
  float grid_width = 0;
  float marker_size = 0;  // scatter marker radius
  float padding = 0;      // space around the figure and between elements
  float tick_length = 0;
  float colorbar_width = 0;
};

FigureTheme figure_theme(Theme kind);

// Colours with a meaning in the UI around the figures (formulas, checks that pass or fail, warnings, links), per
// theme, each at least WCAG AA contrast (4.5 : 1) against that theme's window background.
enum class UiRole { Formula, Good, Bad, Warning, Link };
uint32_t ui_color(Theme theme, UiRole role);  // 0xRRGGBBAA
uint32_t ui_background(Theme theme);          // the window background the roles are checked against
// WCAG 2 contrast ratio of two opaque colours: (L1 + 0.05) / (L2 + 0.05) with relative luminances L1 ≥ L2.
double contrast_ratio(uint32_t a, uint32_t b);

// Base font size of the app (app/fonts.cpp loads DejaVu Sans at 15 px × DPI); figure text sizes derive from it.
inline constexpr float kBaseFontSize = 15.0f;

}  // namespace tw::plot

namespace tw {
// The app, the panels and the exporters name these without the plot:: prefix.
using plot::DrawContext;
using plot::ExportSettings;
using plot::Theme;
}  // namespace tw
