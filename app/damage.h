#pragma once
// Damage tracking: which pixels of a frame can differ from the last frame's.
//
// On a software renderer (llvmpipe) a frame's cost is the pixels it shades, and most frames change a few controls
// and a figure while the rest of the window stays as it was. The frame's draw data is compared with the last
// frame's on a grid of tiles (kDamageTile pixels square): per tile, a hash of every triangle that can touch a pixel of
// it, in draw order (vertex positions, uv and colour, texture and that texture's content version, the command's
// scissor within the tile, the render state set by callbacks). Tiles whose hash changed are merged into a few
// disjoint rectangles, and only those are cleared and drawn again into the persistent image (app/render_damage.h).
// Pure functions on ImGui's draw data: no GL, tested in tests/views/test_damage.cpp.

#include <imgui.h>

#include <cstdint>
#include <functional>
#include <vector>



namespace tw {

constexpr int kDamageTile = 64;  // tile edge in framebuffer pixels

// A rectangle of framebuffer pixels, top row first: columns [x0, x1), rows [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  long long area() const { return empty() ? 0 : (long long)(x1 - x0) * (y1 - y0); }
  bool operator==(const PixelRect&) const = default;
};
PixelRect intersect(const PixelRect& a, const PixelRect& b);

// The pixels ImGui's OpenGL3 backend lets a command with clip rectangle (x0, y0, x1, y1) write in a framebuffer of
// fb_height rows (its glScissor: truncation toward zero, origin bottom-left), clamped to the fb_width × fb_height
// framebuffer. Empty when the backend skips the command.
PixelRect scissor_pixels(float x0, float y0, float x1, float y1, int fb_width, int fb_height);

// One hash per tile, row-major (tiles_x × tiles_y), for a frame of fb_width × fb_height pixels.
struct TileHashes {
  int width = 0, height = 0;     // framebuffer size the tiles cover
  int tiles_x = 0, tiles_y = 0;  // ceil(width / kDamageTile), ceil(height / kDamageTile)
  std::vector<uint64_t> hash;
};

// The content version of a texture (bumped whenever its pixels change: app/render_damage.h note_texture_changed).
using TextureVersionFn = std::function<uint64_t(uintptr_t texture)>;

// Hashes the draw data (positions in framebuffer pixels: DisplayPos (0, 0), FramebufferScale 1) onto tiles.
TileHashes hash_tiles(const ImDrawData& draw_data, int fb_width, int fb_height, const TextureVersionFn& version);

// The tiles whose hash differs, as disjoint rectangles covering exactly those tiles (clamped to the framebuffer):
// runs of damaged tiles along each row, joined with the runs of the rows below that span the same columns. When
// more than max_rects would result, their bounding box (one rectangle). All of the frame when the grids differ in
// size. Empty when nothing changed.
std::vector<PixelRect> damaged_rects(const TileHashes& before, const TileHashes& now, int max_rects);

// Merges rectangles until at most max_rects are left, keeping them disjoint: each step joins the two whose bounding
// box adds the fewest pixels, and that box then takes in every rectangle it overlaps. The result covers the input.
std::vector<PixelRect> limit_rects(std::vector<PixelRect> rects, int max_rects);

// The damaged tiles as rectangles that avoid `keep` (pixels already right: a moved window's copied content): the
// tile rectangles of damaged_rects cut into the bands above, below, left and right of `keep`, at most max_rects per
// band (limit_rects). With `keep` empty, damaged_rects merged by limit_rects.
std::vector<PixelRect> damaged_rects_outside(const TileHashes& before, const TileHashes& now, const PixelRect& keep,
                                             int max_rects_per_band);

// A frame's draw data kept for the next frame: copies of its draw lists, each with the ImGui root window it belongs
// to (a window and its child windows share one) and that window's position, and each command's texture version.
struct DrawSnapshot {
  struct List {
    unsigned root = 0;  // ImGui id of the root window, 0: none (the foreground list, ...)
    float root_x = 0, root_y = 0;
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
    std::vector<ImDrawCmd> cmd;
    std::vector<uint64_t> version;  // per command: its texture's content version
  };
  std::vector<List> lists;
  int width = 0, height = 0;
};
struct ListOwner {
  unsigned root = 0;
  float root_x = 0, root_y = 0;
};
DrawSnapshot snapshot_draw_data(const ImDrawData& draw_data, const std::vector<ListOwner>& owners, int fb_width,
                                int fb_height, const TextureVersionFn& version);

// What the renderer treats as opaque filling: white-pixel uv of the font atlas (any texture drawn with uv there
// samples an opaque white texel) and a texture that is entirely opaque white (app/solid_fills.h).
struct OpaqueFill {
  float white_u = -1, white_v = -1;
  uintptr_t white_texture = 0;
};

// A window dragged by whole pixels: its pixels in `to` are the last frame's in `to` moved by (-dx, -dy), so they can
// be copied rather than drawn. Found when a root window's position changed by whole pixels (dx, dy), it is opaque in
// `to` (its first triangles are an opaque background; `to` lies `inset` pixels inside it, for rounded corners) in
// both frames, no later draw list reaches into `to` in either frame, and its triangles reaching `to` are the same in
// both frames relative to the window (positions, uv, colour, texture and version, scissor within `to`, render state).
// The largest such region of any window, or empty.
struct MovedRegion {
  PixelRect to;
  int dx = 0, dy = 0;
  bool empty() const { return to.empty(); }
  PixelRect from() const { return {to.x0 - dx, to.y0 - dy, to.x1 - dx, to.y1 - dy}; }
};
MovedRegion find_moved_region(const DrawSnapshot& before, const DrawSnapshot& now, const OpaqueFill& opaque,
                              float inset, float position_tolerance);

// Rewrites the draw data so the backend draws only inside `rects` (disjoint): every command is repeated once per
// rectangle its triangles can touch, with its clip rectangle narrowed to the rectangle (whole pixels, so the
// backend's scissor is exactly the intersection); commands touching none are dropped; callbacks are kept in place.
// Drawn over the last frame's pixels (cleared inside the rectangles), this gives the frame drawn in full.
void restrict_to_rects(ImDrawData* draw_data, const std::vector<PixelRect>& rects, int fb_width, int fb_height);

}  // namespace tw
