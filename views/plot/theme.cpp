#include "views/plot/theme.h"

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

}  // namespace tw::plot
