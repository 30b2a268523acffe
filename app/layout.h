#pragma once
// Window layout: where the overview, the start page and the panel windows open, as a pure function of the work area
// (no ImGui, no GLFW), so a test can check that every window is inside the screen and no two overlap partially.
//
// The work area is split into a side column (the overview) and the panel area to its right. Panels are tiled into
// a grid of equal cells no smaller than a readable minimum; when more panels are open than cells fit, the grid is
// repeated as pages: page 2 uses exactly the cells of page 1, so two windows either share a cell exactly (one is
// in front, the overview's Open/Focus buttons bring the other forward) or do not touch at all. A partial overlap,
// where one window hides part of another's controls or figures, never happens.
//
//   const WorkLayout w = split_work_area({0, 20, 1280, 700}, 1.0f);
//   const TilePlan plan = tile_panels(w.panels, 17, min_panel_cell(1.0f), gap);
//   for (int i = 0; i < 17; ++i) place(window i, plan.cells[i]);

#include <string>
#include <vector>

namespace tw {

struct WinRect {
  float x = 0, y = 0, w = 0, h = 0;
  float right() const { return x + w; }
  float bottom() const { return y + h; }
};

// True when the rectangles share interior area (touching edges do not count).
bool overlaps(const WinRect& a, const WinRect& b);
// True when `inner` lies inside `outer` (edges included, with a small tolerance for float rounding).
bool contains(const WinRect& outer, const WinRect& inner);

// [SECTION] side column + panel area
struct WorkLayout {
  WinRect side;          // the overview: the full height of the work area on the left
  WinRect panels;        // the rest: the start page and the panel windows
  bool stacked = false;  // too narrow for both: side and panels are the whole work area (pages of one stack)
};
// `scale` is the UI scale (DPI × zoom): the side column is 28% of the width, between 300 and 520 logical pixels,
// and never more than half the work area. When what is left is narrower than `min_panel_width` (a panel's
// controls and two figures side by side), the overview gets no column of its own: it and the panels each take
// the whole work area, so they cover one another exactly instead of squeezing the panel into a sideways scroll.
WorkLayout split_work_area(const WinRect& work, float scale, float min_panel_width = 0);

// [SECTION] tiling
struct TilePlan {
  int cols = 1, rows = 1;      // cells per page
  int pages = 0;               // ceil(count / (cols · rows)); 0 for no panels
  std::vector<WinRect> cells;  // one per panel, in order; panel i is on page i / (cols · rows)
  std::vector<int> page_of;    // page of each panel
};
// Cells for `count` panels inside `area`: as many columns and rows as keep a cell at least `min_cell` (w, h) big,
// but no more cells than panels (one panel gets the whole area); `gap` pixels between cells. When the area is
// smaller than `min_cell` the one cell is the whole area (a window never sticks out of the screen).
TilePlan tile_panels(const WinRect& area, int count, const WinRect& min_cell, float gap);
// The smallest readable panel cell at a UI scale: the controls column (330 px) beside two figures at the widest
// minimum figure width a panel asks for (380 px each), with padding: no panel scrolls sideways in it.
WinRect min_panel_cell(float scale);

// [SECTION] UI state (plain data, in AppState)
struct WindowTiling {
  std::vector<std::string> placed;       // panels whose window has been given its first position
  bool retile = false;                   // View > Tile open panels: place every open panel again next frame
  bool start_page_was_open = false;      // to bring the start page to the front when it opens
  bool place_start_page = false;         // the start page goes back to the panel area next frame (zoom, resize)
  bool place_overview = false;           // the overview goes back to its side column next frame (resize)
  float display_w = 0, display_h = 0;    // the window's size last frame (0: not drawn yet): a resize lays out again
  std::vector<std::string> bring_front;  // window names to focus next frame (the first page of a new grid)
};

}  // namespace tw
