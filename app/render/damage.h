#pragma once
// Damage tracking: which pixels of a frame can differ from the last frame's.
//
// On a software renderer (llvmpipe) a frame's cost is the pixels it shades, and most frames change a few controls
// and a figure while the rest of the window stays as it was. The frame's draw data is compared with the last
// frame's on a grid of tiles (kDamageTile pixels square): per tile, a hash of every triangle that can touch a pixel of
// it, in draw order (vertex positions, uv and colour, texture and that texture's content version, the command's
// scissor within the tile, the render state set by callbacks). Tiles whose hash changed are merged into a few
// disjoint rectangles, and only those are cleared and drawn again into the persistent image
// (app/render/render_damage.h). Pure functions on ImGui's draw data: no GL, tested in tests/app/test_damage.cpp.

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

struct ImDrawData;
struct ImDrawList;
struct ImVec2;

namespace tw {

// Tile edge in framebuffer pixels. Smaller tiles follow a changed curve more closely (a dragged slider moves the
// curves of a figure, not its axes: 0.42 against 0.53 million pixels redrawn per frame for the softmax panel at
// 1920×1080), for more hashing per large fill.
constexpr int kDamageTile = 32;

// A rectangle of framebuffer pixels, top row first: columns [x0, x1), rows [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
  long long area() const { return empty() ? 0 : (long long)(x1 - x0) * (y1 - y0); }
  bool operator==(const PixelRect&) const = default;
};
PixelRect intersect(const PixelRect& a, const PixelRect& b);
// The smallest rectangle holding both (an empty one adds nothing).
PixelRect bounding_box(const PixelRect& a, const PixelRect& b);

// The pixels ImGui's OpenGL3 backend lets a command with clip rectangle (x0, y0, x1, y1) write in a framebuffer of
// fb_height rows (its glScissor: truncation toward zero, origin bottom-left), clamped to the fb_width × fb_height
// framebuffer. Empty when the backend skips the command.
PixelRect scissor_pixels(float x0, float y0, float x1, float y1, int fb_width, int fb_height);

// The pixels whose centres a triangle with these vertices can cover (a little wider, never narrower), within the
// scissor s. Empty when none (or a coordinate is NaN).
PixelRect triangle_reach(const ImVec2& a, const ImVec2& b, const ImVec2& c, const PixelRect& s);

// One hash per tile, row-major (tiles_x × tiles_y), for a frame of fb_width × fb_height pixels.
struct TileHashes {
  int width = 0, height = 0;     // framebuffer size the tiles cover
  int tile = kDamageTile;        // tile edge in pixels
  int tiles_x = 0, tiles_y = 0;  // ceil(width / tile), ceil(height / tile)
  std::vector<uint64_t> hash;
};

// The content version of a texture (bumped whenever its pixels change: app/render/texture_gl.h texture_version).
using TextureVersionFn = std::function<uint64_t(uintptr_t texture)>;

// Draw lists [first, end) of a frame's draw data.
struct ListRange {
  int first = 0, end = 0;
  bool empty() const { return end <= first; }
  bool contains(int list) const { return list >= first && list < end; }
};

// Hashes the draw data (positions in framebuffer pixels: DisplayPos (0, 0), FramebufferScale 1) onto tiles. The
// lists in `skip` add no triangles (their callbacks still set the render state of what follows).
TileHashes hash_tiles(const ImDrawData& draw_data, int fb_width, int fb_height, const TextureVersionFn& version,
                      const ListRange& skip = {}, int tile_size = kDamageTile);

// The indices (row-major) of the tiles touching `pixels`.
std::vector<size_t> tiles_touching(const TileHashes& tiles, const PixelRect& pixels);

// hash_tiles for a sequence of frames: each draw list's share of the tile hashes is kept, and a list whose bytes
// (vertices, indices, commands, its textures' versions) and starting render state are the last frame's adds that
// share again instead of hashing its triangles: a frame where one figure changes hashes that figure's list only.
// The tiles are hashed list by list (a list's triangles in order, then the lists in order), so its hashes equal
// hash_tiles'.
class TileHasher {
 public:
  explicit TileHasher(bool remember = true) : remember_(remember) {}
  TileHashes hash(const ImDrawData& draw_data, int fb_width, int fb_height, const TextureVersionFn& version,
                  const ListRange& skip = {}, int tile_size = kDamageTile);

 private:
  struct Grid {
    int width, height, tile, tiles_x;
  };
  struct ListShare {
    uint64_t key = 0;                                  // what the share was computed from
    uint64_t state_in = 0, state_out = 0;              // render state before and after the list
    std::vector<std::pair<uint32_t, uint64_t>> tiles;  // (tile, the list's hash of its triangles there)
  };
  void hash_list(const ImDrawList& list, bool skipped, const TextureVersionFn& version, const Grid& grid,
                 ListShare& share);
  bool remember_;
  std::unordered_map<const ImDrawList*, ListShare> lists_;
  std::vector<uint64_t> scratch_;  // per tile, while one list is hashed (0: not touched)
  std::vector<uint32_t> touched_;
};

// Sets every tile touching `pixels` to `value` (a value no frame hashes to, so those tiles count as changed next
// frame).
void mark_tiles(TileHashes& tiles, const PixelRect& pixels, uint64_t value);

// The bounding box of the pixels the triangles of lists [first, end) can touch, within their scissors (empty when
// they draw nothing).
PixelRect lists_reach(const ImDrawData& draw_data, const ListRange& lists, int fb_width, int fb_height);

// `a` without `hole`: at most four disjoint rectangles (rows above and below the hole, then its left and right).
std::vector<PixelRect> subtract(const PixelRect& a, const PixelRect& hole);

// Adds the pixels of `r` not yet in `rects` (disjoint), keeping them disjoint.
void add_disjoint(std::vector<PixelRect>& rects, const PixelRect& r);

// The tiles whose hash differs, as disjoint rectangles covering exactly those tiles (clamped to the framebuffer):
// runs of damaged tiles along each row, joined with the runs of the rows below that span the same columns. When
// more than max_rects would result, merged by limit_rects (below). All of the frame when the grids differ in
// size. Empty when nothing changed.
std::vector<PixelRect> damaged_rects(const TileHashes& before, const TileHashes& now, int max_rects);

// The tiles flagged (row-major, tiles.tiles_x × tiles.tiles_y flags) as disjoint rectangles covering exactly those
// tiles, clamped to the frame (not limited in number).
std::vector<PixelRect> tile_rects(const std::vector<char>& flagged, const TileHashes& tiles);

// Merges rectangles until at most max_rects are left, keeping them disjoint: each step joins the two whose bounding
// box adds the fewest pixels, and that box then takes in every rectangle it overlaps. The result covers the input.
std::vector<PixelRect> limit_rects(std::vector<PixelRect> rects, int max_rects);

// Rewrites the draw data so the backend draws only inside `rects` (disjoint): every command is repeated once per
// rectangle its triangles can touch, with its clip rectangle narrowed to the rectangle (whole pixels, so the
// backend's scissor is exactly the intersection) and, when it reaches beyond the rectangle, only its triangles that
// touch it (their indices appended to the list's index buffer, in order); commands touching none are dropped;
// callbacks are kept in place.
// Drawn over the last frame's pixels (cleared inside the rectangles), this gives the frame drawn in full.
void restrict_to_rects(ImDrawData* draw_data, const std::vector<PixelRect>& rects, int fb_width, int fb_height);

}  // namespace tw
