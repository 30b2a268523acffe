#pragma once
// A window dragged by its title bar moves unchanged: its pixels are the last ones, moved.
//
// Dragging the front page would redraw all of it every frame (~1.1 million pixels at 1920×1080, ~20 ms of CPU on
// llvmpipe). While ImGui moves a window, the render path (app/render/render_damage.h) instead keeps a copy of the
// window's inner pixels taken after a frame drawn as usual, and as long as the window's draw lists are the same up to
// the move, copies that image to the window's new place and draws only what lies around it as usual: what the move
// uncovers, and the window's rounded corners and border, which blend with what is behind them. ImGui adds the
// window's position to every vertex in floats, so the moved vertices differ from the old ones by up to ~1e-4 pixel
// and a fresh drawing may differ from the copy at a few edge pixels; the frame after the move ends draws the window
// afresh, so no such pixel outlives the drag.
//
// Pure functions on ImGui's draw data (find_moving_window also reads the ImGui context); tested in
// tests/app/test_window_move.cpp.

#include <cstdint>
#include <optional>
#include <vector>

#include <imgui.h>

#include "app/render/damage.h"

namespace tw {

// The window ImGui is moving (GImGui->MovingWindow's root) and its draw lists in the frame's draw data.
struct MovingWindow {
  const void* id = nullptr;  // the root window, to tell one move from the next
  ListRange lists;           // the root's list and its child windows' lists, contiguous in draw order
  PixelRect rect;            // the window's rectangle in framebuffer pixels (ImGui keeps its position whole)
  int margin = 0;            // pixels along the inside of its edge that blend with what is behind (rounding, border)
};
// Empty when no window is being moved, or its lists are not one contiguous block of the draw data, or its position
// is not a whole pixel. Call after ImGui::Render, before the draw data is rewritten.
std::optional<MovingWindow> find_moving_window(const ImDrawData& draw_data);

// What some draw lists draw: every triangle in draw order, with the state it is drawn in.
struct ListsSnapshot {
  struct Triangle {
    ImDrawVert v[3];
    PixelRect scissor;  // the backend's scissor of its command
    PixelRect reach;    // the pixels it can touch within the scissor (triangle_reach)
    uintptr_t texture = 0;
    uint64_t texture_version = 0;
    ImDrawCallback state = nullptr;  // the last callback before it (render state: solid fills turn blending off)
    void* state_data = nullptr;
  };
  ImVec2 origin;  // the window's position
  std::vector<Triangle> triangles;
  PixelRect reach;  // the bounding box of every triangle's reach (empty when none can draw)
};
ListsSnapshot snapshot_lists(const ImDrawData& draw_data, const ListRange& lists, ImVec2 origin, int fb_width,
                             int fb_height, const TextureVersionFn& version);

// True when, inside `region` (pixels of `now`'s frame), `now` draws what `before` drew, moved by now.origin −
// before.origin: the triangles that can touch `region` (and those that could touch it moved back) are the same ones
// in the same order, with the same colours, texture coordinates, textures and their content versions, render state
// and scissor within the region, every position within `tolerance` pixels of the moved one. Triangles elsewhere do
// not count: ImGui leaves out items outside the screen, so a window moved partly off it draws fewer of them.
bool moved_unchanged(const ListsSnapshot& before, const ListsSnapshot& now, const PixelRect& region, float tolerance);

// What a frame that copies a moved window's image to `inner` draws as usual, as disjoint rectangles none of which
// overlaps `inner` (until merged): the tiles whose hash changed since the last frame (`rest_now` hashes this frame
// without the window's lists), and the window's footprint now and in the last frame (`footprint`, `last_footprint`:
// its rectangle grown by what its anti-aliased border reaches; empty when the last frame drew the window as usual).
// Merged by limit_rects when more than max_rects (a merged box may overlap `inner`: drawn, then covered by the copy).
std::vector<PixelRect> moved_frame_rects(const TileHashes& last, const TileHashes& rest_now, const PixelRect& footprint,
                                         const PixelRect& last_footprint, const PixelRect& inner, int max_rects);

}  // namespace tw
