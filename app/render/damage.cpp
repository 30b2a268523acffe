#include "app/render/damage.h"

#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

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

int tiles_along(int pixels, int tile) { return pixels <= 0 ? 0 : (pixels + tile - 1) / tile; }

}  // namespace

PixelRect triangle_reach(const ImVec2& a, const ImVec2& b, const ImVec2& c, const PixelRect& s) {
  const float min_x = std::min({a.x, b.x, c.x}), max_x = std::max({a.x, b.x, c.x});
  const float min_y = std::min({a.y, b.y, c.y}), max_y = std::max({a.y, b.y, c.y});
  if (!(min_x <= max_x) || !(min_y <= max_y)) return {};  // NaN: nothing drawn
  auto clamp_to = [](float v, int lo, int hi) { return v < float(lo) ? lo : v > float(hi) ? hi : int(v); };
  const PixelRect r{clamp_to(std::floor(min_x - 0.5f), s.x0, s.x1), clamp_to(std::floor(min_y - 0.5f), s.y0, s.y1),
                    clamp_to(std::ceil(max_x) + 1.0f, s.x0, s.x1), clamp_to(std::ceil(max_y) + 1.0f, s.y0, s.y1)};
  return r;
}

namespace {

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

namespace {

// 64 bits of every byte, at memory speed: four independent multiply-rotate lanes (xxHash64's round), then joined.
uint64_t fingerprint(const void* data, size_t bytes, uint64_t seed) {
  constexpr uint64_t kP1 = 0x9e3779b185ebca87ULL, kP2 = 0xc2b2ae3d27d4eb4fULL;
  auto round = [&](uint64_t acc, uint64_t w) { return std::rotl(acc + w * kP2, 31) * kP1; };
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t lane[4] = {seed + kP1 + kP2, seed + kP2, seed, seed - kP1};
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] = round(lane[k], w);
    }
  uint64_t h = std::rotl(lane[0], 1) + std::rotl(lane[1], 7) + std::rotl(lane[2], 12) + std::rotl(lane[3], 18);
  for (; i < bytes; ++i) h = mix(h ^ p[i]);
  return mix(h ^ bytes);
}

}  // namespace

void TileHasher::hash_list(const ImDrawList& list, bool skipped, const TextureVersionFn& version, const Grid& grid,
                           ListShare& share) {
  const int T = grid.tile;
  const PixelRect frame{0, 0, grid.width, grid.height};
  uint64_t state = share.state_in;
  constexpr uint64_t kSecond = 0x9e3779b97f4a7c15ULL, kThird = 0xc2b2ae3d27d4eb4fULL;
  share.tiles.clear();
  for (const ImDrawCmd& cmd : list.CmdBuffer) {
    if (cmd.UserCallback) {
      state = mix(state ^ uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallback)) ^
                  mix(uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallbackData))));
      continue;
    }
    if (skipped) continue;
    const PixelRect s = command_scissor(cmd, grid.width, grid.height);
    if (s.empty()) continue;
    const auto texture = reinterpret_cast<uintptr_t>(cmd.TextureId);
    const uint64_t command = mix(mix(state ^ texture) ^ version(texture));
    const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
    const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
    const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
    for (unsigned i = 0; i < n; i += 3) {
      const ImDrawVert &a = vtx[idx[i]], &b = vtx[idx[i + 1]], &c = vtx[idx[i + 2]];
      const PixelRect p = triangle_reach(a.pos, b.pos, c.pos, s);
      if (p.empty()) continue;
      // The three vertices in three independent chains (seeded apart, so their order counts), then joined.
      const uint64_t triangle = mix(hash_vertex(command, a) ^ std::rotl(hash_vertex(command ^ kSecond, b), 21) ^
                                    std::rotl(hash_vertex(command ^ kThird, c), 42));
      for (int ty = p.y0 / T; ty <= (p.y1 - 1) / T; ++ty) {
        for (int tx = p.x0 / T; tx <= (p.x1 - 1) / T; ++tx) {
          const PixelRect tile{tx * T, ty * T, (tx + 1) * T, (ty + 1) * T};
          const size_t k = size_t(ty) * grid.tiles_x + tx;
          if (scratch_[k] == 0) touched_.push_back(uint32_t(k));
          // In order: the last triangle drawn is on top. A scissor covering the whole tile clips nothing in it.
          const PixelRect clip = intersect(s, tile);
          scratch_[k] = mix(scratch_[k] ^ (clip == intersect(tile, frame) ? triangle : hash_rect(triangle, clip))) | 1;
        }
      }
    }
  }
  for (uint32_t k : touched_) {
    share.tiles.push_back({k, scratch_[k]});
    scratch_[k] = 0;
  }
  touched_.clear();
  share.state_out = state;
}

TileHashes TileHasher::hash(const ImDrawData& draw_data, int fb_width, int fb_height, const TextureVersionFn& version,
                            const ListRange& skip, int tile_size) {
  TileHashes tiles;
  tiles.tile = std::max(tile_size, 1);
  tiles.width = std::max(fb_width, 0);
  tiles.height = std::max(fb_height, 0);
  tiles.tiles_x = tiles_along(tiles.width, tiles.tile);
  tiles.tiles_y = tiles_along(tiles.height, tiles.tile);
  tiles.hash.assign(size_t(tiles.tiles_x) * tiles.tiles_y, 0);
  const Grid grid{tiles.width, tiles.height, tiles.tile, tiles.tiles_x};
  scratch_.assign(tiles.hash.size(), 0);
  std::unordered_map<const ImDrawList*, ListShare> seen;
  uint64_t state = 0;  // render state set by callbacks (blending off for solid fills, reset)
  for (int l = 0; l < draw_data.CmdListsCount; ++l) {
    const ImDrawList& list = *draw_data.CmdLists[l];
    const bool skipped = skip.contains(l);
    // What the list's share depends on: its bytes, its commands with their textures' versions, the state it
    // starts in, the grid, whether it is skipped.
    uint64_t key = mix(state ^ (skipped ? 0x5d : 0x11)) ^ mix(uint64_t(grid.width) << 32 | uint32_t(grid.height)) ^
                   mix(uint64_t(grid.tile) + 0x77);
    key = fingerprint(list.VtxBuffer.Data, size_t(list.VtxBuffer.Size) * sizeof(ImDrawVert), key);
    key = fingerprint(list.IdxBuffer.Data, size_t(list.IdxBuffer.Size) * sizeof(ImDrawIdx), key);
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      const uint64_t fields[6] = {uint64_t(reinterpret_cast<uintptr_t>(cmd.TextureId)),
                                  cmd.UserCallback ? 0 : version(reinterpret_cast<uintptr_t>(cmd.TextureId)),
                                  uint64_t(cmd.VtxOffset) << 32 | cmd.IdxOffset,
                                  cmd.ElemCount,
                                  uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallback)),
                                  uint64_t(reinterpret_cast<uintptr_t>(cmd.UserCallbackData))};
      key = fingerprint(fields, sizeof(fields), key);
      key = fingerprint(&cmd.ClipRect, sizeof(cmd.ClipRect), key);
    }
    ListShare share;
    const auto cached = lists_.find(&list);
    if (cached != lists_.end() && cached->second.key == key) {
      share = std::move(cached->second);
    } else {
      share.key = key;
      share.state_in = state;
      hash_list(list, skipped, version, grid, share);
    }
    for (const auto& [k, h] : share.tiles) tiles.hash[k] = mix(tiles.hash[k] ^ h);
    state = share.state_out;
    seen[&list] = std::move(share);
  }
  if (remember_) lists_ = std::move(seen);
  return tiles;
}

TileHashes hash_tiles(const ImDrawData& draw_data, int fb_width, int fb_height, const TextureVersionFn& version,
                      const ListRange& skip, int tile_size) {
  TileHasher hasher(false);
  return hasher.hash(draw_data, fb_width, fb_height, version, skip, tile_size);
}

PixelRect bounding_box(const PixelRect& a, const PixelRect& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

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

std::vector<PixelRect> tile_rects(const std::vector<char>& flagged, const TileHashes& tiles) {
  const PixelRect frame{0, 0, tiles.width, tiles.height};
  // Runs of flagged tiles per row, in tile units; a run continues the rectangle above it when it spans the same
  // columns (then the rectangle grows by a row).
  struct Open {
    int tx0, tx1, ty0, ty1;
  };
  std::vector<Open> done, open, next;
  for (int ty = 0; ty < tiles.tiles_y; ++ty) {
    next.clear();
    for (int tx = 0; tx < tiles.tiles_x;) {
      auto on = [&](int x) { return flagged[size_t(ty) * tiles.tiles_x + x] != 0; };
      if (!on(tx)) {
        ++tx;
        continue;
      }
      int end = tx + 1;
      while (end < tiles.tiles_x && on(end)) ++end;
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
    rects.push_back(intersect({o.tx0 * tiles.tile, o.ty0 * tiles.tile, o.tx1 * tiles.tile, o.ty1 * tiles.tile}, frame));
  return rects;
}

std::vector<PixelRect> damaged_rects(const TileHashes& before, const TileHashes& now, int max_rects) {
  const PixelRect frame{0, 0, now.width, now.height};
  if (before.width != now.width || before.height != now.height || before.tile != now.tile ||
      before.hash.size() != now.hash.size())
    return frame.empty() ? std::vector<PixelRect>{} : std::vector<PixelRect>{frame};
  std::vector<char> changed(now.hash.size());
  for (size_t k = 0; k < changed.size(); ++k) changed[k] = before.hash[k] != now.hash[k];
  return limit_rects(tile_rects(changed, now), max_rects);
}

std::vector<size_t> tiles_touching(const TileHashes& tiles, const PixelRect& pixels) {
  std::vector<size_t> indices;
  const PixelRect p = intersect(pixels, {0, 0, tiles.width, tiles.height});
  if (p.empty()) return indices;
  for (int ty = p.y0 / tiles.tile; ty <= (p.y1 - 1) / tiles.tile; ++ty)
    for (int tx = p.x0 / tiles.tile; tx <= (p.x1 - 1) / tiles.tile; ++tx)
      indices.push_back(size_t(ty) * tiles.tiles_x + tx);
  return indices;
}

void mark_tiles(TileHashes& tiles, const PixelRect& pixels, uint64_t value) {
  for (size_t k : tiles_touching(tiles, pixels)) tiles.hash[k] = value;
}

PixelRect lists_reach(const ImDrawData& draw_data, const ListRange& lists, int fb_width, int fb_height) {
  PixelRect reach;
  for (int l = std::max(lists.first, 0); l < std::min(lists.end, draw_data.CmdListsCount); ++l) {
    const ImDrawList& list = *draw_data.CmdLists[l];
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) continue;
      const PixelRect s = command_scissor(cmd, fb_width, fb_height);
      if (s.empty()) continue;
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      for (unsigned i = 0; i < n; i += 3) {
        const PixelRect p = triangle_reach(vtx[idx[i]].pos, vtx[idx[i + 1]].pos, vtx[idx[i + 2]].pos, s);
        reach = bounding_box(reach, p);
      }
    }
  }
  return reach;
}

std::vector<PixelRect> subtract(const PixelRect& a, const PixelRect& hole) {
  const PixelRect h = intersect(a, hole);
  if (h.empty()) return a.empty() ? std::vector<PixelRect>{} : std::vector<PixelRect>{a};
  std::vector<PixelRect> parts;
  for (const PixelRect& p : {PixelRect{a.x0, a.y0, a.x1, h.y0}, PixelRect{a.x0, h.y1, a.x1, a.y1},
                             PixelRect{a.x0, h.y0, h.x0, h.y1}, PixelRect{h.x1, h.y0, a.x1, h.y1}})
    if (!p.empty()) parts.push_back(p);
  return parts;
}

void restrict_to_rects(ImDrawData* draw_data, const std::vector<PixelRect>& rects, int fb_width, int fb_height) {
  std::vector<ImDrawCmd> out;
  std::vector<ImDrawIdx> added;  // indices appended to the list: a command's triangles that touch one rectangle
  std::vector<PixelRect> reach;  // per triangle of a command
  for (int l = 0; l < draw_data->CmdListsCount; ++l) {
    ImDrawList& list = *draw_data->CmdLists[l];
    out.clear();
    added.clear();
    const size_t base = size_t(list.IdxBuffer.Size);
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback) {
        out.push_back(cmd);
        continue;
      }
      const PixelRect s = command_scissor(cmd, fb_width, fb_height);
      if (s.empty()) continue;
      // Where each triangle can draw within the scissor, and where the command can (their union).
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      const unsigned n = cmd.ElemCount - cmd.ElemCount % 3;
      reach.resize(n / 3);
      PixelRect all;
      for (unsigned i = 0; i < n; i += 3) {
        reach[i / 3] = triangle_reach(vtx[idx[i]].pos, vtx[idx[i + 1]].pos, vtx[idx[i + 2]].pos, s);
        all = bounding_box(all, reach[i / 3]);
      }
      if (all.empty()) continue;
      for (const PixelRect& r : rects) {
        if (intersect(all, r).empty()) continue;
        const PixelRect clip = intersect(s, r);
        ImDrawCmd part = cmd;
        part.ClipRect = ImVec4(float(clip.x0), float(clip.y0), float(clip.x1), float(clip.y1));
        // A command reaching beyond the rectangle sends only its triangles that touch it: the renderer then does
        // not transform and set up, for every rectangle, triangles its scissor throws away.
        if (intersect(all, r) != all) {
          const size_t start = base + added.size();
          for (unsigned i = 0; i < n; i += 3)
            if (!intersect(reach[i / 3], r).empty()) added.insert(added.end(), idx + i, idx + i + 3);
          part.IdxOffset = unsigned(start);
          part.ElemCount = unsigned(base + added.size() - start);
        }
        out.push_back(part);
      }
    }
    list.CmdBuffer.resize(static_cast<int>(out.size()));
    for (size_t c = 0; c < out.size(); ++c) list.CmdBuffer[static_cast<int>(c)] = out[c];
    if (!added.empty()) {
      list.IdxBuffer.resize(static_cast<int>(base + added.size()));
      std::memcpy(list.IdxBuffer.Data + base, added.data(), added.size() * sizeof(ImDrawIdx));
      draw_data->TotalIdxCount += static_cast<int>(added.size());
    }
  }
}

void add_disjoint(std::vector<PixelRect>& rects, const PixelRect& r) {
  std::vector<PixelRect> pieces{r}, rest;
  for (const PixelRect& existing : rects) {
    rest.clear();
    for (const PixelRect& p : pieces)
      for (const PixelRect& q : subtract(p, existing)) rest.push_back(q);
    pieces.swap(rest);
  }
  for (const PixelRect& p : pieces)
    if (!p.empty()) rects.push_back(p);
}

}  // namespace tw
