#pragma once
// Damage-tracked rendering: ImGui's frame is drawn into a persistent offscreen image (an OpenGL framebuffer object)
// and only the rectangles whose content changed since the last frame are cleared and drawn again (app/damage.h);
// the image is then copied to the window's back buffer. A frame where nothing changed (the pointer over nothing, a
// --frames run at rest) costs the copy; a slider drag costs the slider, its figure and the read-outs.
// A resize, a new clear colour or a rebuilt font atlas (request_full_redraw) draws everything.
//
// TW_DAMAGE=full draws every frame in full into the same image (the reference: its pixels must equal the tracked
// ones); TW_DAMAGE=off draws every frame straight into the back buffer, without the image (as before; llvmpipe
// rounds a few blended pixels of the window's own buffer differently, by one level); TW_DAMAGE=check draws each
// frame both ways and counts the pixels that differ (printed on stderr per frame), which tests/gui/damage_test.sh
// requires to be zero over a scripted sequence of interactions.

#include <cstdint>

struct ImDrawData;

namespace tw {

// Called by the texture backend whenever a texture's pixels are created or replaced (heatmaps, pictures).
void note_texture_changed(uintptr_t texture);
// The next frame is drawn in full (the font atlas was rebuilt: same texture name, new glyphs).
void request_full_redraw();

// What the last frame drew (for --perf-report).
struct DamageStats {
  int rects = 0;              // rectangles drawn
  double damaged_pixels = 0;  // their area
  double frame_pixels = 0;    // the framebuffer's
  bool full = false;          // drawn in full (first frame, resize, forced, or tracking off)
};
const DamageStats& last_damage_stats();

// Draws the frame's draw data into the back buffer of the current context (fb_width × fb_height pixels), cleared
// to `clear` (r, g, b) first. Call after ImGui::Render (and split_solid_fills). Rewrites the draw data's commands.
void render_with_damage(ImDrawData* draw_data, int fb_width, int fb_height, const float clear[3]);

// Frees the offscreen image (before the GL context goes).
void release_damage_renderer();

}  // namespace tw
