#pragma once
// Drawing figures on screen with Dear ImGui: hover readout, zoom and pan, export menu.
//
//   void MyPanel::draw(const DrawContext& ctx) {
//     plot::Figure fig = make_probs_figure(result_);            // or one of figures()
//     plot::draw_figure(fig, ctx, "softmax");                   // full width, height from the figure's aspect
//   }
//
// Interaction: hover shows the exact value under the cursor (heatmap cell i, j and value; nearest point of a
// line); mouse wheel zooms around the cursor, left-drag pans, double-click resets; right-click opens the export
// menu (PNG 1×–4×, SVG, CSV into the export directory) which reports the files written or the error.
// View state (zoom, heatmap textures) lives in the plot layer keyed by the ImGui ID of the figure
// (window ID stack + figure id), so panels keep no state for it. PushID when drawing the same figure id twice.

#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

#include "views/plot/figure.h"
#include "views/plot/math.h"
#include "views/plot/text.h"
#include "views/plot/theme.h"

namespace tw::plot {

enum FigureDrawFlags_ {
  FigureDrawFlags_None = 0,
  FigureDrawFlags_NoInteraction = 1 << 0,  // no zoom/pan (hover and the export menu still work)
  FigureDrawFlags_NoExportMenu = 1 << 1,   // no right-click export menu
  FigureDrawFlags_NoBackground = 1 << 2,   // let the window background show through
  FigureDrawFlags_NoMinSize = 1 << 3,      // draw at `size` even below the readable minimum (thumbnails)
};
using FigureDrawFlags = int;

// Draws `fig` at the cursor and advances it. `size` in screen pixels; 0 for a component means "fill the
// available width" / "height from the figure's aspect". A figure narrower than kMinReadableFraction of its export
// width (plot/layout.h) is grown in proportion instead, so the column scrolls rather than cut its labels short.
// `panel_id` prefixes exported file names.
// Returns true while the figure is hovered.
bool draw_figure(const Figure& fig, const DrawContext& ctx, const char* panel_id, ImVec2 size = ImVec2(0, 0),
                 FigureDrawFlags flags = FigureDrawFlags_None);

// Set, in the current window's state storage, by a figure still wider than its column at the smallest scale it may
// take: the figures column (views/widgets.h) scrolls sideways only while one does. A column that always could
// scroll sideways sized its text and figures to last frame's content, so a few pixels too wide once stayed too wide.
ImGuiID figure_too_wide_key();

// The figure a lesson step points at ("look at"): drawn with an accent frame around it, and scrolled into view the
// first time it is drawn after being set. ("", "") clears it.
void set_highlighted_figure(const std::string& panel_id, const std::string& figure_id);

// Items the app adds at the end of every figure's right-click menu (slide mode's "Show as slide", app/slide_mode.h),
// called inside the open popup with the panel and figure id. nullptr: none.
using FigureMenuExtra = void (*)(const char* panel_id, const std::string& figure_id);
void set_figure_menu_extra(FigureMenuExtra extra);

// [SECTION] screen fonts
// The ImGui font of each face of the font chain, installed by app/ whenever it builds the atlas (app/fonts.cpp).
// A face that was not installed draws with ImGui::GetFont().
void set_screen_font(FontStyle style, ImFont* font);
ImFont* screen_font(FontStyle style);

// [SECTION] math text
// Draws a typeset line (plot/math.h) with its baseline's left end at `origin`, each run in its screen face;
// unsupported commands' source in `warning`. Panels use views/widgets.h math_text, which wraps and advances.
void draw_math(ImDrawList* dl, const MathLayout& m, ImVec2 origin, ImU32 color, ImU32 warning);
// A tooltip with `text`, its formulas typeset (one line per '\n').
void math_tooltip(const std::string& text);

// [SECTION] layout report
// What the layouts drawn since the last call made of their figures: how many were laid out, and every problem they
// reported (plot::Layout::problems: a title or label cut short, tick labels touching), each prefixed by the figure
// id and the size it got. Forgets both. Tests draw panels through the GUI path at a zoom and require no problems.
struct LayoutReport {
  int layouts = 0;
  std::vector<std::string> problems;
};
LayoutReport take_layout_report();

// [SECTION] figures on screen (the GUI test's report, app/gui_report.cpp)
struct FigureOnScreen {
  std::string id;                    // the figure's id
  float x = 0, y = 0, w = 0, h = 0;  // screen rectangle in the frame it was last drawn
  float window_scroll_y = 0;         // the scroll of the window it is drawn in
  bool zoomed = false;               // any axes zoomed or panned (the Reset view marker shows)
  // The part of the window it is drawn in that shows content (scrollbars excluded), screen pixels: a figure inside
  // it is whole on screen, caption included.
  float visible_x = 0, visible_y = 0, visible_w = 0, visible_h = 0;
  std::vector<std::string> problems;  // its layout's at the size drawn (plot::Layout::problems: a title cut "…")
};
// The message of the last right-click export (the files written, or why none was), once; "" when there was none
// since the last call. The app shows it in its status line, so it replaces an older message there.
std::string take_export_status();
// The figures drawn in the current or previous frame.
std::vector<FigureOnScreen> figures_on_screen();

// [SECTION] texture backend
// The plot layer never includes GL: app/ installs these (app/render/texture_gl.cpp) so heatmaps draw as one texture.
// Pixels are RGBA8, row 0 at the top, `width` · `height` · 4 bytes. Without a backend, heatmaps are drawn as
// (down-sampled) rectangles.
struct TextureBackend {
  ImTextureID (*create)(int width, int height, const uint8_t* rgba) = nullptr;
  void (*update)(ImTextureID texture, int width, int height, const uint8_t* rgba) = nullptr;
  void (*destroy)(ImTextureID texture) = nullptr;
};
void set_texture_backend(const TextureBackend& backend);
// Frees every texture the plot layer holds (call before the GL context goes away).
void release_textures();

}  // namespace tw::plot
