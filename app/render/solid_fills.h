#pragma once
// Large opaque fills drawn the cheap way on a software renderer.
//
// ImGui draws everything with one shader that samples the font atlas: a flat rectangle (window, child and plot
// backgrounds) samples the atlas's white pixel with bilinear filtering and is blended over what is below. On Mesa's
// llvmpipe that per-pixel work is most of a frame (perf: ~75% of the process's CPU in the JIT-compiled fragment
// shader; bilinear filtering about a third of it, blending about a sixth), and the large flat fills cover most of
// the pixels shaded (about 3.6 of 4.2 million per 1920×1080 frame with one panel). split_solid_fills moves each run
// of opaque, untextured triangles covering at least kMinSolidRunPixels into its own draw command that samples a
// 1×1 white texture with nearest filtering and draws without blending: the same pixels (white × colour, alpha 1
// replaces the destination exactly), for a fraction of the cost. Text, anti-aliased edges and images are untouched.

struct ImDrawData;

namespace tw {

// Runs smaller than this (pixels, unclipped triangle area) stay in their command: splitting costs two draw calls.
constexpr float kMinSolidRunPixels = 16384.0f;

// Splits the draw lists' commands in place (call after ImGui::Render, before the renderer). Needs the current GL
// context (creates the white texture once).
void split_solid_fills(ImDrawData* draw_data);

// What split_solid_fills did in the last frame (for --perf-report).
struct SolidFillStats {
  int runs = 0;           // solid runs moved to their own command
  double pixels = 0;      // their triangles' total area
  double all_pixels = 0;  // every triangle's area in the frame (unclipped), for the overdraw ratio
};
const SolidFillStats& last_solid_fill_stats();

}  // namespace tw
