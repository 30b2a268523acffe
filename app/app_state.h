#pragma once
// The one application state: which windows are open, the theme, messages for the user.
// Panels own their own control state; this struct owns the panels.

#include <imgui.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/file_dialogs.h"
#include "app/fonts.h"
#include "app/layout.h"
#include "views/panel.h"

namespace tw {

class Handoffs;      // views/handoffs.h
class StartPresets;  // app/start_presets.h
struct LessonRun;    // app/lesson_bar.cpp

// [SECTION] presentation: window layout, zoom, focus (saved in scenes and the last session, app/scene.h)

// Where a window was on screen, in logical pixels (screen pixels / dpi_scale) so a scene reopens the same on a
// monitor with another DPI. Zoom does not change it: zooming grows the text inside the windows, not the windows.
struct WindowLayout {
  bool known = false;  // false: the window was never placed; the first-use placement applies
  float x = 0, y = 0;  // top-left corner, relative to the main viewport
  float w = 0, h = 0;
  bool collapsed = false;  // title bar only

  bool operator==(const WindowLayout&) const = default;
};

// The ImGui zoom steps: Ctrl+= and Ctrl+- walk them, Ctrl+0 returns to 1.
inline constexpr float kZoomSteps[] = {0.75f, 0.9f, 1.0f, 1.1f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f};
inline constexpr float kZoomMin = 0.75f, kZoomMax = 3.0f;
inline constexpr float kMinWindowSize = 100.0f;  // logical pixels; smaller saved sizes are clamped up
// The next step above (direction > 0) or below `zoom`; the end step when already there.
float next_zoom(float zoom, int direction);

struct PanelSlot {
  std::unique_ptr<Panel> panel;
  PanelInfo info;
  bool open = false;
  WindowLayout layout;              // last seen on screen (the pre-focus place while the panel is focused)
  bool place_next_frame = false;    // a scene set `layout`: the next frame moves the window there
  bool controls_collapsed = false;  // the controls column is a slim strip (Ctrl+B), giving figures the width
};

// Slide mode (app/slide_mode.h): one figure of one panel and the one or two controls that drive it fill the window at
// 16:9, for a projector. Saved in scenes and the session as "slide" (no window place: it always fills the window).
struct SlideMode {
  std::string panel;                  // id of the panel whose figure is shown; "" : slide mode is off
  std::string figure;                 // the figure's id within that panel
  std::vector<std::string> controls;  // keys of the controls shown above the figure (at most two)
  bool on() const { return !panel.empty(); }
  bool operator==(const SlideMode&) const = default;
};

struct AppState {
  std::vector<PanelSlot> panels;  // every registered panel, sorted by category then name
  // What the panels hand each other ("Open in forward stepper"), shared by every panel above (make_app_state). A
  // scratch state (the start page's thumbnails) has its own, so a preview never touches the user's panels.
  std::shared_ptr<Handoffs> handoffs;
  bool show_overview = true;
  bool show_about = false;
  bool show_shortcuts = false;
  bool show_start_page = false;                 // the lecture presets as cards: fresh start and Help > Start page
  std::shared_ptr<StartPresets> start_presets;  // created when the start page first shows (thumbnail worker)
  std::shared_ptr<LessonRun> lessons;           // the lesson bar and lesson progress (app/lesson_bar.h), made on use
  WindowTiling tiling;                          // first positions of the panel windows (app/layout.h)
  Theme theme = Theme::Dark;
  float dpi_scale = 1.0f;
  std::string font_warning;  // non-empty when the bundled font could not be loaded
  std::string status;        // last message for the status line (errors from file operations, exports)
  bool quit_requested = false;
  // The last session (app/scene.h): with --fresh, the state at start-up as scene text; the saved session is only
  // rewritten at exit when the state differs from it. `keep_last_session` stops the save at exit from overwriting a
  // session file that failed to load and could not be moved aside.
  std::string fresh_session_baseline;
  bool keep_last_session = false;
  FileDialogs file_dialogs;  // File menu popups: open/save scene, export figures (app/file_menu.cpp)
  ExportSettings exports;    // where and how figures are exported: File > Export and every figure's menu
  std::string model_dir;     // --model DIR: a Hugging Face model folder to open at start-up (empty: none)
  // A model folder being opened (File > Open model folder, --model): the status line says how it ended.
  struct ModelOpening {
    std::string dir;
    bool from_command_line = false;  // a failure is also printed to the terminal
    int wait_frames = 1;             // the stepper starts the load in its next update: judged after that
  };
  std::optional<ModelOpening> opening_model;

  // Presentation mode: zoom scales text, controls and figure text (fonts rebuilt at the new size between frames);
  // the focused panel fills the window below the menu bar while the others stay as they were.
  float zoom = 1.0f;
  std::string focused;      // id of the panel filling the window, "" for the normal layout
  std::string last_active;  // id of the panel window that last had keyboard focus (F11 focuses it)
  std::string unfocused;    // the panel that just left focus: the frame after, it returns to its place in front
  // A scene's "front" (the panel the user left in front): brought in front once the windows exist and the first
  // placement (which fronts the first page of tiled panels) is done.
  std::string front_request;
  SlideMode slide;              // on: the slide fills the window instead of the panels (Esc leaves)
  float placed_at_zoom = 1.0f;  // the zoom windows were last placed at (a change places them again, app/ui.cpp)
  int zoom_waited_frames = 0;   // frames a zoom change waited for its fonts and menu bar (app/ui.cpp)
  WindowLayout overview_layout;
  bool place_overview_next_frame = false;
  // Screen pixels per logical pixel for everything drawn: the monitor's scale times the zoom.
  float ui_scale() const { return dpi_scale * zoom; }
  // Focus on a panel (opening it) or leave focus ("" or the focused id again). Unknown ids are ignored.
  void toggle_focus(const std::string& id);

  PanelSlot* find(const std::string& id);
  // Opens a panel by id; returns false (and leaves state unchanged) if no panel has that id.
  bool open_panel(const std::string& id);
  // Opens a panel, expanded and in front of the others (focus moves to it when another panel fills the window).
  void show_panel(const std::string& id);
  // The panel in front: the one that last had keyboard focus, if still open ("" when none).
  std::string front_panel() const;
};

AppState make_app_state();

// Start-up work that needs neither the window nor ImGui, done on a second thread while the window and its GL
// context are created (the slowest step of start-up): the font atlas, the figure font, and the first update() of
// every open panel (the recomputes a first frame would otherwise wait for). The UI thread must not touch the panels
// or create an ImGui context until it has finished.
struct StartupWork {
  std::unique_ptr<ImFontAtlas> fonts;  // for Window::init_imgui
  std::string font_warning;            // as add_fonts (app/fonts.h)
  double fonts_ms = 0;                 // building the atlas
  double panels_ms = 0;                // the open panels' first update() and the figure font
};
StartupWork prepare_startup(AppState& state, const std::string& font_dir, float font_pixels);

// Applies the ImGui colours and sizes of a theme (dark for screens, print: white background, dark text).
void apply_theme(Theme theme, float dpi_scale);

// [SECTION] UI: menus, overview, help windows, panel windows (app/ui.cpp)
void draw_main_menu(AppState& state);
void draw_windows(AppState& state);
void handle_shortcuts(AppState& state);
// The bottom edge of the main menu bar as drawn this frame (its height grows with the zoom; the viewport's work area
// follows it only a frame later); the viewport's top plus a frame height before the bar was first drawn.
float menu_bar_bottom();

}  // namespace tw
