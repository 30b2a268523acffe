#include "app/damage.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>

namespace tw {

namespace {

// splitmix64's finaliser: a bijection that spreads every input bit over the output.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t hash_vertex(uint64_t h, const ImDrawVert& v) {
  uint32_t w[5];
  static_assert(sizeof(ImDrawVert) == sizeof(w));
  std::memcpy(w, &v, sizeof(w));
  h = mix(h ^ (uint64_t(w[0]) | uint64_t(w[1]) << 32));
  h = mix(h ^ (uint64_t(w[2]) | uint64_t(w[3]) << 32));
  return mix(h ^ w[4]);
}

uint64_t hash_rect(uint64_t h, const PixelRect& r) {
  h = mix(h ^ (uint64_t(uint32_t(r.x0)) | uint64_t(uint32_t(r.y0)) << 32));
  return mix(h ^ (uint64_t(uint32_t(r.x1)) | uint64_t(uint32_t(r.y1)) << 32));
}

int tiles_along(int pixels) { return pixels <= 0 ? 0 : (pixels + kDamageTile - 1) / kDamageTile; }

// The pixels whose centres a triangle with these vertices can cover (a little wider, never narrower), within s.
PixelRect triangle_pixels(const ImVec2& a, const ImVec2& b, const ImVec2& c, const PixelRect& s) {
  const float min_x = std::min({a.x, b.x, c.x}), max_x = std::max({a.x, b.x, c.x});
  const float min_y = std::min({a.y, b.y, c.y}), max_y = std::max({a.y, b.y, c.y});
  if (!(min_x <= max_x) || !(min_y <= max_y)) return {};  // NaN: nothing drawn
  auto clamp_to = [](float v, int lo, int hi) { return v < float(lo) ? lo : v > float(hi) ? hi : int(v); };
  const PixelRect r{clamp_to(std::floor(min_x - 0.5f), s.x0, s.x1), clamp_to(std::floor(min_y - 0.5f), s.y0, s.y1),
                    clamp_to(std::ceil(max_x) + 1.0f, s.x0, s.x1), clamp_to(std::ceil(max_y) + 1.0f, s.y0, s.y1)};
  return r;
}

// The backend's scissor for a command, in pixels.
PixelRect command_scissor(const ImDrawCmd& cmd, int fb_width, int fb_height) {
  return scissor_pixels(cmd.ClipRect.x, cmd.ClipRect.y, cmd.ClipRect.z, cmd.ClipRect.w, fb_width, fb_height);
}

}  // namespace

PixelRect intersect(const PixelRect& a, const PixelRect& b) {
  PixelRect r{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
  return r.empty() ? PixelRect{} : r;
}

PixelRect scissor_pixels(float x0, float y0, float x1, float y1, int fb_width, int fb_height) {
  if (!(x1 > x0) || !(y1 > y0)) return {};  // the backend skips it (NaN included)
  auto to_int = [](float v) { return v >= 2e9f ? 2000000000 : v <= -2e9f ? -2000000000 : int(v); };
  // glScissor(int(x0), int(fb_height - y1), int(x1 - x0), int(y1 - y0)), bottom-left origin; rows counted from the top
  // the window spans rows [fb_height - gl_y - h, fb_height - gl_y).
  const int gx = to_int(x0), gw = to_int(x1 - x0);
  const int gy = to_int(float(fb_height) - y1), gh = to_int(y1 - y0);
  const PixelRect pixels{gx, fb_height - gy - gh, gx + gw, fb_height - gy};
  return intersect(pixels, {0, 0, fb_width, fb_height});
}

TileHashes hash_tiles(const ImDrawData& draw_data, int fb_width, int fb_height, const TextureVersionFn& version) {
  TileHashes tiles;
  tiles.width = std::max(fb_width, 0);
  tiles.height = std::max(fb_height, 0);
  tiles.tiles_x = tiles_along(tiles.width);
  tiles.tiles_y = tiles_along(tiles.height);
  tiles.hash.assign(size_t(tiles.tiles_x) * tiles.tiles_y, 0);
  uint64_t state = 0;  // render state set by callbacks (blending off for solid fills, reset)
  for (int l = 0; l < draw_data.CmdListsCount; ++l) {
    const ImDrawList& list = *draw_data.CmdLists[l];
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) {
        state = mix(state ^ uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallback)) ^
                    mix(uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallbackData))));
        continue;
      }
      const PixelRect s = command_scissor(cmd, tiles.width, tiles.height);
      if (s.empty()) continue;
      const auto texture = reinterpret_cast<uintptr_t>(cmd.TextureId);
      const uint64_t command = mix(mix(state ^ texture) ^ version(texture));
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      for (unsigned i = 0; i < n; i += 3) {
        const ImDrawVert &a = vtx[idx[i]], &b = vtx[idx[i + 1]], &c = vtx[idx[i + 2]];
        const PixelRect p = triangle_pixels(a.pos, b.pos, c.pos, s);
        if (p.empty()) continue;
        const uint64_t triangle = hash_vertex(hash_vertex(hash_vertex(command, a), b), c);
        for (int ty = p.y0 / kDamageTile; ty <= (p.y1 - 1) / kDamageTile; ++ty) {
          for (int tx = p.x0 / kDamageTile; tx <= (p.x1 - 1) / kDamageTile; ++tx) {
            const PixelRect tile{tx * kDamageTile, ty * kDamageTile, (tx + 1) * kDamageTile, (ty + 1) * kDamageTile};
            uint64_t& h = tiles.hash[size_t(ty) * tiles.tiles_x + tx];
            h = mix(h ^ hash_rect(triangle, intersect(s, tile)));  // in order: the last triangle drawn is on top
          }
        }
      }
    }
  }
  return tiles;
}

std::vector<PixelRect> damaged_rects(const TileHashes& before, const TileHashes& now, int max_rects) {
  const PixelRect frame{0, 0, now.width, now.height};
  if (before.width != now.width || before.height != now.height || before.hash.size() != now.hash.size())
    return frame.empty() ? std::vector<PixelRect>{} : std::vector<PixelRect>{frame};
  // Runs of damaged tiles per row, in tile units; a run continues the rectangle above it when it spans the same
  // columns (then the rectangle grows by a row).
  struct Open {
    int tx0, tx1, ty0, ty1;
  };
  std::vector<Open> done, open, next;
  for (int ty = 0; ty < now.tiles_y; ++ty) {
    next.clear();
    for (int tx = 0; tx < now.tiles_x;) {
      auto changed = [&](int x) {
        const size_t k = size_t(ty) * now.tiles_x + x;
        return before.hash[k] != now.hash[k];
      };
      if (!changed(tx)) {
        ++tx;
        continue;
      }
      int end = tx + 1;
      while (end < now.tiles_x && changed(end)) ++end;
      auto above = std::find_if(open.begin(), open.end(), [&](const Open& o) { return o.tx0 == tx && o.tx1 == end; });
      if (above != open.end()) {
        next.push_back({tx, end, above->ty0, ty + 1});
        open.erase(above);
      } else {
        next.push_back({tx, end, ty, ty + 1});
      }
      tx = end;
    }
    done.insert(done.end(), open.begin(), open.end());  // not continued in this row
    open.swap(next);
  }
  done.insert(done.end(), open.begin(), open.end());
  std::vector<PixelRect> rects;
  for (const Open& o : done)
    rects.push_back(
        intersect({o.tx0 * kDamageTile, o.ty0 * kDamageTile, o.tx1 * kDamageTile, o.ty1 * kDamageTile}, frame));
  if (int(rects.size()) > max_rects) {
    PixelRect box = rects.front();
    for (const PixelRect& r : rects)
      box = {std::min(box.x0, r.x0), std::min(box.y0, r.y0), std::max(box.x1, r.x1), std::max(box.y1, r.y1)};
    rects = {box};
  }
  return rects;
}

namespace {

PixelRect bounding_box(const PixelRect& a, const PixelRect& b) {
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

}  // namespace

std::vector<PixelRect> limit_rects(std::vector<PixelRect> rects, int max_rects) {
  max_rects = std::max(max_rects, 1);
  while (int(rects.size()) > max_rects) {
    size_t bi = 0, bj = 1;
    long long best = -1;
    for (size_t i = 0; i < rects.size(); ++i)
      for (size_t j = i + 1; j < rects.size(); ++j) {
        const long long added = bounding_box(rects[i], rects[j]).area() - rects[i].area() - rects[j].area();
        if (best < 0 || added < best) best = added, bi = i, bj = j;
      }
    PixelRect merged = bounding_box(rects[bi], rects[bj]);
    rects.erase(rects.begin() + long(bj));
    rects.erase(rects.begin() + long(bi));
    // The box may overlap others: it takes them in until it overlaps none (the rectangles stay disjoint).
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t k = 0; k < rects.size(); ++k) {
        if (intersect(merged, rects[k]).empty()) continue;
        merged = bounding_box(merged, rects[k]);
        rects.erase(rects.begin() + long(k));
        grew = true;
        break;
      }
    }
    rects.push_back(merged);
  }
  return rects;
}

std::vector<PixelRect> damaged_rects_outside(const TileHashes& before, const TileHashes& now, const PixelRect& keep,
                                             int max_rects_per_band) {
  const std::vector<PixelRect> tiles = damaged_rects(before, now, 1 << 30);
  if (keep.empty()) return limit_rects(tiles, max_rects_per_band);
  const int w = now.width, h = now.height;
  const PixelRect bands[] = {{0, 0, w, keep.y0},
                             {0, keep.y1, w, h},
                             {0, keep.y0, keep.x0, keep.y1},
                             {keep.x1, keep.y0, w, keep.y1}};
  std::vector<PixelRect> out;
  for (const PixelRect& band : bands) {
    std::vector<PixelRect> pieces;
    for (const PixelRect& t : tiles)
      if (const PixelRect p = intersect(t, band); !p.empty()) pieces.push_back(p);
    for (const PixelRect& p : limit_rects(std::move(pieces), max_rects_per_band)) out.push_back(p);
  }
  return out;
}

DrawSnapshot snapshot_draw_data(const ImDrawData& draw_data, const std::vector<ListOwner>& owners, int fb_width,
                                int fb_height, const TextureVersionFn& version) {
  DrawSnapshot snap;
  snap.width = fb_width;
  snap.height = fb_height;
  snap.lists.resize(size_t(std::max(draw_data.CmdListsCount, 0)));
  for (int l = 0; l < draw_data.CmdListsCount; ++l) {
    const ImDrawList& list = *draw_data.CmdLists[l];
    DrawSnapshot::List& out = snap.lists[size_t(l)];
    if (size_t(l) < owners.size()) {
      out.root = owners[size_t(l)].root;
      out.root_x = owners[size_t(l)].root_x;
      out.root_y = owners[size_t(l)].root_y;
    }
    out.vtx.assign(list.VtxBuffer.Data, list.VtxBuffer.Data + list.VtxBuffer.Size);
    out.idx.assign(list.IdxBuffer.Data, list.IdxBuffer.Data + list.IdxBuffer.Size);
    out.cmd.assign(list.CmdBuffer.Data, list.CmdBuffer.Data + list.CmdBuffer.Size);
    for (const ImDrawCmd& cmd : out.cmd)
      out.version.push_back(cmd.UserCallback ? 0 : version(reinterpret_cast<uintptr_t>(cmd.TextureId)));
  }
  return snap;
}

namespace {

// Calls fn(command, its scissor, a, b, c, command hash) for every triangle of lists [first, last) whose pixels can
// reach `region`, the scissor given narrowed to the region; `state` follows the callbacks as hash_tiles does.
template <class Fn>
void for_triangles_reaching(const DrawSnapshot& snap, size_t first, size_t last, const PixelRect& region, Fn&& fn) {
  uint64_t state = 0;
  for (size_t l = first; l < last; ++l) {
    const DrawSnapshot::List& list = snap.lists[l];
    for (size_t c = 0; c < list.cmd.size(); ++c) {
      const ImDrawCmd& cmd = list.cmd[c];
      if (cmd.UserCallback) {
        state = mix(state ^ uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallback)) ^
                    mix(uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallbackData))));
        continue;
      }
      const PixelRect s = intersect(command_scissor(cmd, snap.width, snap.height), region);
      if (s.empty()) continue;
      const uint64_t command = mix(mix(state ^ reinterpret_cast<uintptr_t>(cmd.TextureId)) ^ list.version[c]);
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      if (size_t(cmd.IdxOffset) + n > list.idx.size()) continue;
      const ImDrawIdx* idx = list.idx.data() + cmd.IdxOffset;
      for (unsigned i = 0; i < n; i += 3) {
        const size_t ia = cmd.VtxOffset + idx[i], ib = cmd.VtxOffset + idx[i + 1], ic = cmd.VtxOffset + idx[i + 2];
        if (std::max({ia, ib, ic}) >= list.vtx.size()) continue;
        const ImDrawVert &a = list.vtx[ia], &b = list.vtx[ib], &c3 = list.vtx[ic];
        if (triangle_pixels(a.pos, b.pos, c3.pos, s).empty()) continue;
        fn(s, a, b, c3, command);
      }
    }
  }
}

// The pixels a window's list surely paints opaque: the run of opaque, white-filled triangles it starts with (its
// background), their bounding box `inset` pixels in (rounded corners), within those commands' scissors.
PixelRect opaque_background(const DrawSnapshot::List& list, int fb_width, int fb_height, const OpaqueFill& opaque,
                            float inset) {
  float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
  PixelRect scissor{0, 0, fb_width, fb_height};
  bool any = false;
  double area = 0;
  auto opaque_vertex = [&](const ImDrawVert& v, bool white_texture) {
    return (v.col >> IM_COL32_A_SHIFT & 0xFF) == 0xFF && (white_texture || (v.uv.x == opaque.white_u &&
                                                                            v.uv.y == opaque.white_v));
  };
  for (const ImDrawCmd& cmd : list.cmd) {
    if (cmd.UserCallback) continue;  // render state (blending off for solid fills): opaque stays opaque
    const bool white = opaque.white_texture != 0 && reinterpret_cast<uintptr_t>(cmd.TextureId) == opaque.white_texture;
    const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
    if (size_t(cmd.IdxOffset) + n > list.idx.size()) break;
    unsigned i = 0;
    for (; i < n; i += 3) {
      const ImDrawVert* v[3] = {};
      for (unsigned k = 0; k < 3; ++k) {
        const size_t at = cmd.VtxOffset + list.idx[cmd.IdxOffset + i + k];
        v[k] = at < list.vtx.size() && opaque_vertex(list.vtx[at], white) ? &list.vtx[at] : nullptr;
      }
      if (!v[0] || !v[1] || !v[2]) break;
      area += std::fabs((v[1]->pos.x - v[0]->pos.x) * (v[2]->pos.y - v[0]->pos.y) -
                        (v[2]->pos.x - v[0]->pos.x) * (v[1]->pos.y - v[0]->pos.y)) /
              2;
      for (const ImDrawVert* p : v) {
        x0 = std::min(x0, p->pos.x), y0 = std::min(y0, p->pos.y);
        x1 = std::max(x1, p->pos.x), y1 = std::max(y1, p->pos.y);
      }
    }
    if (i > 0) {
      scissor = intersect(scissor, command_scissor(cmd, fb_width, fb_height));
      any = true;
    }
    if (i < n) break;
  }
  // Covered without gaps (a background, not two fills apart): the triangles' area is the box's, less the corners.
  const double box_area = double(x1 - x0) * double(y1 - y0);
  if (any && (area < box_area - 2.0 * (double(x1 - x0) + double(y1 - y0)) * inset || area > box_area * 1.001))
    return {};
  if (!any || !(x1 - x0 > 2 * inset) || !(y1 - y0 > 2 * inset)) return {};
  const PixelRect box{int(std::ceil(x0 + inset)), int(std::ceil(y0 + inset)), int(std::floor(x1 - inset)),
                      int(std::floor(y1 - inset))};
  return intersect(box, scissor);
}

struct Group {
  size_t first = 0, last = 0;  // lists [first, last)
  float x = 0, y = 0;
};

// Each root window's run of consecutive draw lists; a root met in two runs is left out.
std::vector<std::pair<unsigned, Group>> root_groups(const DrawSnapshot& snap) {
  std::vector<std::pair<unsigned, Group>> groups;
  std::vector<unsigned> twice;
  for (size_t l = 0; l < snap.lists.size();) {
    const unsigned root = snap.lists[l].root;
    size_t end = l + 1;
    while (end < snap.lists.size() && snap.lists[end].root == root) ++end;
    if (root != 0) {
      for (const auto& [id, g] : groups)
        if (id == root) twice.push_back(root);
      groups.push_back({root, {l, end, snap.lists[l].root_x, snap.lists[l].root_y}});
    }
    l = end;
  }
  std::erase_if(groups, [&](const auto& g) { return std::find(twice.begin(), twice.end(), g.first) != twice.end(); });
  return groups;
}

bool whole(float v) { return std::floor(v) == v && std::fabs(v) < 1e6f; }

// The group's triangles reaching `region`, positions relative to (ox, oy), scissors narrowed to the region and
// relative too, each with its command's hash (texture, version, render state).
struct RelativeTriangle {
  ImDrawVert v[3];
  PixelRect scissor;
  uint64_t command;
};
std::vector<RelativeTriangle> relative_triangles(const DrawSnapshot& snap, const Group& g, const PixelRect& region,
                                                 float ox, float oy) {
  std::vector<RelativeTriangle> out;
  const int ix = int(ox), iy = int(oy);
  for_triangles_reaching(snap, g.first, g.last, region,
                         [&](const PixelRect& s, const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c,
                             uint64_t command) {
                           RelativeTriangle t{{a, b, c}, {s.x0 - ix, s.y0 - iy, s.x1 - ix, s.y1 - iy}, command};
                           for (ImDrawVert& v : t.v) v.pos.x -= ox, v.pos.y -= oy;
                           out.push_back(t);
                         });
  return out;
}

// The same triangles in the same order: uv, colour, command and scissor equal, positions within `tolerance` pixels
// (ImGui adds a window's position to every vertex in floats, so a moved window's vertices differ in the last bits).
bool same_triangles(const std::vector<RelativeTriangle>& a, const std::vector<RelativeTriangle>& b, float tolerance) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].command != b[i].command || !(a[i].scissor == b[i].scissor)) return false;
    for (int k = 0; k < 3; ++k) {
      const ImDrawVert &p = a[i].v[k], &q = b[i].v[k];
      if (p.uv.x != q.uv.x || p.uv.y != q.uv.y || p.col != q.col) return false;
      if (!(std::fabs(p.pos.x - q.pos.x) <= tolerance) || !(std::fabs(p.pos.y - q.pos.y) <= tolerance)) return false;
    }
  }
  return true;
}

bool reached_after(const DrawSnapshot& snap, size_t first, const PixelRect& region) {
  bool reached = false;
  for_triangles_reaching(snap, first, snap.lists.size(), region,
                         [&](const PixelRect&, const ImDrawVert&, const ImDrawVert&, const ImDrawVert&, uint64_t) {
                           reached = true;
                         });
  return reached;
}

}  // namespace

MovedRegion find_moved_region(const DrawSnapshot& before, const DrawSnapshot& now, const OpaqueFill& opaque,
                              float inset, float position_tolerance) {
  MovedRegion best;
  if (before.width != now.width || before.height != now.height || now.width <= 0 || now.height <= 0) return best;
  const PixelRect screen{0, 0, now.width, now.height};
  const auto old_groups = root_groups(before);
  for (const auto& [root, g] : root_groups(now)) {
    const auto old = std::find_if(old_groups.begin(), old_groups.end(), [&](const auto& o) { return o.first == root; });
    if (old == old_groups.end()) continue;
    const Group& o = old->second;
    const float fdx = g.x - o.x, fdy = g.y - o.y;
    if (!whole(fdx) || !whole(fdy) || !whole(g.x) || !whole(g.y) || (fdx == 0 && fdy == 0)) continue;
    const int dx = int(fdx), dy = int(fdy);
    const PixelRect in_now = opaque_background(now.lists[g.first], now.width, now.height, opaque, inset);
    const PixelRect in_old = opaque_background(before.lists[o.first], before.width, before.height, opaque, inset);
    const PixelRect old_moved{in_old.x0 + dx, in_old.y0 + dy, in_old.x1 + dx, in_old.y1 + dy};
    const PixelRect to = intersect(intersect(in_now, screen), old_moved);
    if (to.empty() || to.area() <= best.to.area()) continue;
    const MovedRegion candidate{to, dx, dy};
    const PixelRect from = candidate.from();
    if (reached_after(now, g.last, to) || reached_after(before, o.last, from)) continue;
    if (!same_triangles(relative_triangles(now, g, to, g.x, g.y), relative_triangles(before, o, from, o.x, o.y),
                        position_tolerance))
      continue;
    best = candidate;
  }
  return best;
}

void restrict_to_rects(ImDrawData* draw_data, const std::vector<PixelRect>& rects, int fb_width, int fb_height) {
  std::vector<ImDrawCmd> out;
  for (int l = 0; l < draw_data->CmdListsCount; ++l) {
    ImDrawList& list = *draw_data->CmdLists[l];
    out.clear();
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) {
        out.push_back(cmd);
        continue;
      }
      const PixelRect s = command_scissor(cmd, fb_width, fb_height);
      if (s.empty()) continue;
      // Where the command's triangles can draw: the union of their pixels, within the scissor.
      PixelRect reach{fb_width, fb_height, 0, 0};
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      for (unsigned i = 0; i < n; i += 3) {
        const PixelRect p = triangle_pixels(vtx[idx[i]].pos, vtx[idx[i + 1]].pos, vtx[idx[i + 2]].pos, s);
        if (p.empty()) continue;
        reach = {std::min(reach.x0, p.x0), std::min(reach.y0, p.y0), std::max(reach.x1, p.x1),
                 std::max(reach.y1, p.y1)};
      }
      if (reach.empty()) continue;
      for (const PixelRect& r : rects) {
        if (intersect(reach, r).empty()) continue;
        const PixelRect clip = intersect(s, r);
        ImDrawCmd part = cmd;
        part.ClipRect = ImVec4(float(clip.x0), float(clip.y0), float(clip.x1), float(clip.y1));
        out.push_back(part);
      }
    }
    list.CmdBuffer.resize(static_cast<int>(out.size()));
    for (size_t c = 0; c < out.size(); ++c) list.CmdBuffer[static_cast<int>(c)] = out[c];
  }
}

}  // namespace tw
