#include "app/render/window_move.h"

#include <imgui_internal.h>  // the moving window, its child windows and their draw lists

#include <algorithm>
#include <cmath>

namespace tw {

std::optional<MovingWindow> find_moving_window(const ImDrawData& draw_data) {
  const ImGuiContext* g = GImGui;
  if (!g || !g->MovingWindow || !g->MovingWindow->RootWindow) return {};
  const ImGuiWindow* root = g->MovingWindow->RootWindow;
  // ImGui keeps a moved window's position whole (SetWindowPos floors it); a fractional one would make the copy
  // land between pixels.
  if (root->Pos.x != std::floor(root->Pos.x) || root->Pos.y != std::floor(root->Pos.y)) return {};
  auto own = [&](const ImDrawList* list) {
    for (const ImGuiWindow* w : g->Windows)
      if (w->RootWindow == root && w->DrawList == list) return true;
    return false;
  };
  int first = -1;
  for (int l = 0; l < draw_data.CmdListsCount && first < 0; ++l)
    if (draw_data.CmdLists[l] == root->DrawList) first = l;
  if (first < 0) return {};
  int end = first + 1;
  while (end < draw_data.CmdListsCount && own(draw_data.CmdLists[end])) ++end;
  for (int l = 0; l < draw_data.CmdListsCount; ++l)
    if ((l < first || l >= end) && own(draw_data.CmdLists[l])) return {};
  MovingWindow m;
  m.id = root;
  m.lists = {first, end};
  m.rect = {int(root->Pos.x), int(root->Pos.y), int(std::ceil(root->Pos.x + root->Size.x)),
            int(std::ceil(root->Pos.y + root->Size.y))};
  // Rounded corners and the border (drawn half a pixel inside the edge, anti-aliased) blend with what is behind.
  m.margin = int(std::ceil(root->WindowRounding)) + int(std::ceil(root->WindowBorderSize)) + 1;
  return m;
}

ListsSnapshot snapshot_lists(const ImDrawData& draw_data, const ListRange& lists, ImVec2 origin, int fb_width,
                             int fb_height, const TextureVersionFn& version) {
  ListsSnapshot s;
  s.origin = origin;
  ImDrawCallback state = nullptr;
  void* state_data = nullptr;
  for (int l = std::max(lists.first, 0); l < std::min(lists.end, draw_data.CmdListsCount); ++l) {
    const ImDrawList& list = *draw_data.CmdLists[l];
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) {
        state = cmd.UserCallback;
        state_data = cmd.UserCallbackData;
        continue;
      }
      const PixelRect scissor =
          scissor_pixels(cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w, fb_width, fb_height);
      if (scissor.empty()) continue;
      const auto texture = reinterpret_cast<uintptr_t>(cmd.TextureId);
      const uint64_t texture_version = version(texture);
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      for (unsigned i = 0; i < n; i += 3) {
        const PixelRect reach = triangle_reach(vtx[idx[i]].pos, vtx[idx[i + 1]].pos, vtx[idx[i + 2]].pos, scissor);
        s.triangles.push_back({{vtx[idx[i]], vtx[idx[i + 1]], vtx[idx[i + 2]]},
                               scissor,
                               reach,
                               texture,
                               texture_version,
                               state,
                               state_data});
        s.reach = bounding_box(s.reach, reach);
      }
    }
  }
  return s;
}

bool moved_unchanged(const ListsSnapshot& before, const ListsSnapshot& now, const PixelRect& region, float tolerance) {
  const float fx = now.origin.x - before.origin.x, fy = now.origin.y - before.origin.y;
  const int dx = int(fx), dy = int(fy);
  if (float(dx) != fx || float(dy) != fy) return false;  // whole pixels only
  const PixelRect region_before{region.x0 - dx, region.y0 - dy, region.x1 - dx, region.y1 - dy};
  using Triangle = ListsSnapshot::Triangle;
  auto touches = [](const Triangle& t, const PixelRect& r) { return !intersect(t.reach, r).empty(); };
  auto next = [&](const std::vector<Triangle>& ts, size_t k, const PixelRect& r) {
    while (k < ts.size() && !touches(ts[k], r)) ++k;
    return k;
  };
  auto near = [&](float moved, float was, float by) { return std::abs(moved - (was + by)) <= tolerance; };
  size_t i = next(before.triangles, 0, region_before), j = next(now.triangles, 0, region);
  for (; i < before.triangles.size() && j < now.triangles.size();
       i = next(before.triangles, i + 1, region_before), j = next(now.triangles, j + 1, region)) {
    const Triangle &a = before.triangles[i], &b = now.triangles[j];
    if (a.texture != b.texture || a.texture_version != b.texture_version || a.state != b.state ||
        a.state_data != b.state_data)
      return false;
    const PixelRect sa = intersect(a.scissor, region_before), sb = intersect(b.scissor, region);
    if (PixelRect{sa.x0 + dx, sa.y0 + dy, sa.x1 + dx, sa.y1 + dy} != sb) return false;
    for (int k = 0; k < 3; ++k) {
      const ImDrawVert &va = a.v[k], &vb = b.v[k];
      if (va.col != vb.col || va.uv.x != vb.uv.x || va.uv.y != vb.uv.y) return false;
      if (!near(vb.pos.x, va.pos.x, fx) || !near(vb.pos.y, va.pos.y, fy)) return false;
    }
  }
  return i == before.triangles.size() && j == now.triangles.size();
}

std::vector<PixelRect> moved_frame_rects(const TileHashes& last, const TileHashes& rest_now, const PixelRect& footprint,
                                         const PixelRect& last_footprint, const PixelRect& inner, int max_rects) {
  const bool same_grid =
      last.width == rest_now.width && last.height == rest_now.height && last.hash.size() == rest_now.hash.size();
  std::vector<char> changed(rest_now.hash.size(), 1);
  if (same_grid)
    for (size_t k = 0; k < changed.size(); ++k) changed[k] = last.hash[k] != rest_now.hash[k];
  const PixelRect frame{0, 0, rest_now.width, rest_now.height};
  std::vector<PixelRect> parts;
  for (const PixelRect& area : {intersect(footprint, frame), intersect(last_footprint, frame)})
    for (const PixelRect& p : subtract(area, inner)) add_disjoint(parts, p);
  for (const PixelRect& r : tile_rects(changed, rest_now))
    for (const PixelRect& p : subtract(r, inner)) add_disjoint(parts, p);
  return limit_rects(std::move(parts), max_rects);
}

}  // namespace tw
