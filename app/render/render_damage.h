#pragma once
// Damage-tracked rendering: only the rectangles whose content changed since the last frame are cleared and drawn
// again (app/render/damage.h); the rest of the window keeps the last frame's pixels. On Mesa's software renderers under
// X11 the back buffer keeps them across a swap, so the frame is drawn there; elsewhere (a GPU driver may hand out
// another buffer after a swap) it is drawn into a persistent offscreen image (an OpenGL framebuffer object) copied to
// the back buffer. A frame where nothing changed (the pointer over nothing, a --frames run at rest) draws nothing; a
// slider drag draws the slider, its figure and the read-outs; a window dragged by its title bar is copied, and only
// what is around it drawn (app/render/window_move.h). A resize, a new clear colour or a rebuilt font atlas
// (request_full_redraw) draws everything.
//
// One run-time switch, TW_DAMAGE=off, and one build option, -DTW_FAST_RENDER=OFF (which leaves the tracking out
// of the program), turn app/render/'s shortcuts off together (fast_render_on): every frame is drawn in full straight
// into the back buffer, flat fills are left to ImGui (app/render/solid_fills.h) and windows behind others are built
// and drawn like the rest (app/render/window_culling.h).
// The references the GUI tests compare with exist only in the test build of the app, transformer-workbench-render-check
// (compiled with TW_RENDER_CHECK, never installed): TW_DAMAGE=full draws every frame in full along the tracked path
// (its pixels must equal the tracked ones); offscreen uses the offscreen image even on llvmpipe; nomove draws a
// dragged window as usual instead of copying its image (app/render/window_move.h), the reference for measuring that;
// check draws each frame both ways and counts the pixels that differ (printed on stderr), which
// tests/gui/damage_test.sh requires to be zero over a scripted session, except in frames that copied a dragged
// window (a few edge pixels: counted apart, bounded). Words combine: TW_DAMAGE=check,offscreen.

#include <cstdint>
#include <memory>

struct ImDrawData;

namespace tw {

// What the last frame drew (for --perf-report).
struct DamageStats {
  int rects = 0;               // rectangles drawn
  double damaged_pixels = 0;   // their area
  double frame_pixels = 0;     // the framebuffer's
  bool full = false;           // drawn in full (first frame, resize, forced, or tracking off)
  bool window_moving = false;  // ImGui was moving a window (dragged by its title bar)
  bool window_copied = false;  // the moved window's image was copied (app/render/window_move.h)
};

// TW_DAMAGE's words; in a build without TW_RENDER_CHECK only "off" (and "0") is read.
struct DamageMode {
  bool off = false;
  bool full = false, check = false, offscreen = false, nomove = false;  // TW_RENDER_CHECK builds only
};
// TW_DAMAGE, read once; a reference word in a production build is named on stderr and ignored.
DamageMode damage_mode_from_environment();
// False when built with -DTW_FAST_RENDER=OFF or run with TW_DAMAGE=off (see above).
bool fast_render_on();

// Draws ImGui's frames into the window's back buffer, holding what it needs from frame to frame (the last frame's
// tiles, the offscreen image, a dragged window's image). One per GL context; create and destroy it while the context
// is current.
class DamageRenderer {
 public:
  explicit DamageRenderer(DamageMode mode);
  ~DamageRenderer();
  DamageRenderer(const DamageRenderer&) = delete;
  DamageRenderer& operator=(const DamageRenderer&) = delete;

  // Draws the frame's draw data into the back buffer of the current context (fb_width × fb_height pixels), cleared
  // to `clear` (r, g, b) first. Call after ImGui::Render (and split_solid_fills). Rewrites the draw data's commands.
  void render(ImDrawData* draw_data, int fb_width, int fb_height, const float clear[3]);
  // The next frame is drawn in full (the font atlas was rebuilt: same texture name, new glyphs).
  void request_full_redraw();
  const DamageStats& stats() const;
  // Makes the driver compile the image-copy code before the first window drag needs it (llvmpipe compiles it on
  // first use: 20–40 ms, which would stall the drag's first frame). Call once the main loop has nothing to draw and
  // is about to wait (it costs no frame); later calls do nothing.
  void prepare_window_copies();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace tw
