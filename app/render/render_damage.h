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
// TW_DAMAGE=full draws every frame in full along the same path (the reference: its pixels must equal the tracked
// ones); TW_DAMAGE=off draws every frame straight into the back buffer, as before; TW_DAMAGE=offscreen uses the
// offscreen image even on llvmpipe (llvmpipe rounds a few blended pixels of an image by one level differently from
// the window's own buffer); TW_DAMAGE=nomove draws a window being dragged as usual instead of copying its image
// (app/render/window_move.h), the reference for measuring that; TW_DAMAGE=check draws each frame both ways and counts
// the pixels that differ (printed on stderr), which tests/gui/damage_test.sh requires to be zero over a scripted
// sequence of interactions, except in frames that copied a dragged window (a few edge pixels: counted apart, bounded).
// Words combine: TW_DAMAGE=check,offscreen.

#include <cstdint>

struct ImDrawData;

namespace tw {

// Called by the texture backend whenever a texture's pixels are created or replaced (heatmaps, pictures).
void note_texture_changed(uintptr_t texture);
// The next frame is drawn in full (the font atlas was rebuilt: same texture name, new glyphs).
void request_full_redraw();

// What the last frame drew (for --perf-report).
struct DamageStats {
  int rects = 0;               // rectangles drawn
  double damaged_pixels = 0;   // their area
  double frame_pixels = 0;     // the framebuffer's
  bool full = false;           // drawn in full (first frame, resize, forced, or tracking off)
  bool window_moving = false;  // ImGui was moving a window (dragged by its title bar)
  bool window_copied = false;  // the moved window's image was copied (app/render/window_move.h)
};
const DamageStats& last_damage_stats();

// Draws the frame's draw data into the back buffer of the current context (fb_width × fb_height pixels), cleared
// to `clear` (r, g, b) first. Call after ImGui::Render (and split_solid_fills). Rewrites the draw data's commands.
void render_with_damage(ImDrawData* draw_data, int fb_width, int fb_height, const float clear[3]);

// Makes the renderer compile its image-copy code before the first window drag needs it (llvmpipe compiles it on
// first use: 20–40 ms, which would stall the drag's first frame). Call once the main loop has nothing to draw and is
// about to wait (it costs no frame); later calls do nothing.
void prepare_window_copies();

// Frees the offscreen image (before the GL context goes).
void release_damage_renderer();

}  // namespace tw
