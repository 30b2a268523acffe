// Damage tracking's pure part (app/render/damage.h): the backend's scissor in pixels, per-tile hashes of draw data, the
// damaged tiles as disjoint rectangles, and draw data narrowed to them. No GL: draw lists are filled by hand.
#include "app/render/damage.h"

#include "views/draw_data_util.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace tw {
namespace {

uint64_t no_versions(uintptr_t) { return 0; }

constexpr int kTile = 64;  // the tests' frames are laid out on 64-pixel tiles (the app's size is kDamageTile)

TileHashes tiles_of(Frame& f, int w = 256, int h = 192, const TextureVersionFn& version = no_versions) {
  return hash_tiles(f.draw_data(), w, h, version, {}, kTile);
}

// The tiles (tx, ty) whose hash differs.
std::set<std::pair<int, int>> changed_tiles(const TileHashes& a, const TileHashes& b) {
  std::set<std::pair<int, int>> out;
  for (int ty = 0; ty < a.tiles_y; ++ty)
    for (int tx = 0; tx < a.tiles_x; ++tx)
      if (a.hash[size_t(ty) * a.tiles_x + tx] != b.hash[size_t(ty) * b.tiles_x + tx]) out.insert({tx, ty});
  return out;
}

void callback_a(const ImDrawList*, const ImDrawCmd*) {}

TEST(Damage, ScissorPixelsFollowTheBackendsTruncation) {
  // glScissor(int(10.5), int(100 - 50.9), int(100.7 - 10.5), int(50.9 - 20.2)) = (10, 49, 90, 30) from the bottom of
  // 100 rows: rows 21..50 from the top.
  EXPECT_EQ(scissor_pixels(10.5f, 20.2f, 100.7f, 50.9f, 200, 100), (PixelRect{10, 21, 100, 51}));
  // Whole numbers: exactly the rectangle.
  EXPECT_EQ(scissor_pixels(64, 0, 128, 64, 200, 100), (PixelRect{64, 0, 128, 64}));
  // Past the edges: clamped to the framebuffer.
  EXPECT_EQ(scissor_pixels(-20, -5, 500, 300, 200, 100), (PixelRect{0, 0, 200, 100}));
  // Empty or inverted clip rectangles are skipped by the backend.
  EXPECT_TRUE(scissor_pixels(50, 10, 50, 20, 200, 100).empty());
  EXPECT_TRUE(scissor_pixels(60, 10, 50, 20, 200, 100).empty());
}

TEST(Damage, TheSameFrameHashesTheSameAndAChangeMarksOnlyItsTiles) {
  Frame a, b;
  for (Frame* f : {&a, &b}) {
    f->quad(0, {0, 0}, {256, 192}, IM_COL32(30, 30, 30, 255));     // a background over every tile
    f->quad(0, {70, 10}, {90, 20}, IM_COL32(200, 200, 200, 255));  // inside tile (1, 0)
    f->quad(1, {140, 140}, {150, 150}, IM_COL32(0, 0, 255, 255));  // inside tile (2, 2)
  }
  const TileHashes ta = tiles_of(a);
  EXPECT_EQ(ta.tiles_x, 4);
  EXPECT_EQ(ta.tiles_y, 3);
  EXPECT_TRUE(changed_tiles(ta, tiles_of(b)).empty());
  EXPECT_TRUE(damaged_rects(ta, tiles_of(b), 12).empty());

  b.list(0).VtxBuffer[4].col = IM_COL32(201, 200, 200, 255);  // one vertex of the small quad in tile (1, 0)
  EXPECT_EQ(changed_tiles(ta, tiles_of(b)), (std::set<std::pair<int, int>>{{1, 0}}));
  EXPECT_EQ(damaged_rects(ta, tiles_of(b), 12), (std::vector<PixelRect>{{64, 0, 128, 64}}));
}

TEST(Damage, DrawOrderClipAndTextureVersionCount) {
  Frame a, b;
  a.quad(0, {10, 10}, {20, 20}, IM_COL32(255, 0, 0, 255));
  a.quad(0, {12, 12}, {22, 22}, IM_COL32(0, 255, 0, 255));
  b.quad(0, {12, 12}, {22, 22}, IM_COL32(0, 255, 0, 255));
  b.quad(0, {10, 10}, {20, 20}, IM_COL32(255, 0, 0, 255));
  EXPECT_EQ(changed_tiles(tiles_of(a), tiles_of(b)), (std::set<std::pair<int, int>>{{0, 0}}));  // the other on top

  // A quad entirely outside its clip rectangle draws nothing, wherever it is.
  Frame c, d;
  c.quad(0, {130, 130}, {140, 140}, IM_COL32(255, 0, 0, 255), nullptr, ImVec4(0, 0, 64, 64));
  d.quad(0, {170, 70}, {180, 80}, IM_COL32(9, 9, 9, 255), nullptr, ImVec4(0, 0, 64, 64));
  EXPECT_TRUE(changed_tiles(tiles_of(c), tiles_of(d)).empty());
  // A clip rectangle that cuts a quad differently changes its tile.
  Frame e;
  e.quad(0, {10, 10}, {20, 20}, IM_COL32(255, 0, 0, 255), nullptr, ImVec4(0, 0, 15, 64));
  Frame e2;
  e2.quad(0, {10, 10}, {20, 20}, IM_COL32(255, 0, 0, 255), nullptr, ImVec4(0, 0, 16, 64));
  EXPECT_EQ(changed_tiles(tiles_of(e), tiles_of(e2)), (std::set<std::pair<int, int>>{{0, 0}}));

  // New pixels in a texture (a heatmap) damage the tiles it is drawn on, and only those.
  Frame g;
  g.quad(0, {0, 0}, {256, 192}, IM_COL32(30, 30, 30, 255));
  const auto heatmap = reinterpret_cast<ImTextureID>(uintptr_t(7));
  g.quad(0, {130, 70}, {200, 120}, IM_COL32_WHITE, heatmap);
  uint64_t version = 1;
  const TextureVersionFn versions = [&](uintptr_t t) { return t == 7 ? version : uint64_t(0); };
  const TileHashes before = tiles_of(g, 256, 192, versions);
  version = 2;
  EXPECT_EQ(changed_tiles(before, tiles_of(g, 256, 192, versions)), (std::set<std::pair<int, int>>{{2, 1}, {3, 1}}));

  // A callback (render state) before a quad is part of what the quad's tiles show.
  Frame h;
  h.callback(0, callback_a);
  h.quad(0, {10, 10}, {20, 20}, IM_COL32(255, 0, 0, 255));
  Frame h2;
  h2.quad(0, {10, 10}, {20, 20}, IM_COL32(255, 0, 0, 255));
  EXPECT_EQ(changed_tiles(tiles_of(h), tiles_of(h2)), (std::set<std::pair<int, int>>{{0, 0}}));
}

TEST(Damage, RectanglesAreDisjointAndCoverExactlyTheChangedTiles) {
  // 5 × 4 tiles of 64 px, the last column and row cut by the frame's edge (300 × 230 pixels).
  TileHashes a;
  a.width = 300;
  a.height = 230;
  a.tile = kTile;
  a.tiles_x = 5;
  a.tiles_y = 4;
  a.hash.assign(20, 0);
  TileHashes b = a;
  // Changed:  row 0: . X X . .   row 1: . X X . X   row 2: . . . . X   row 3: X . . . X
  for (auto [x, y] : std::vector<std::pair<int, int>>{{1, 0}, {2, 0}, {1, 1}, {2, 1}, {4, 1}, {4, 2}, {0, 3}, {4, 3}})
    b.hash[size_t(y) * 5 + x] = 1;
  std::vector<PixelRect> rects = damaged_rects(a, b, 12);
  // Runs of the same columns in consecutive rows join: columns 1-2 over rows 0-1, column 4 over rows 1-3, and the
  // single tile (0, 3); the frame's edge cuts the last column at 300 and the last row at 230.
  std::set<std::tuple<int, int, int, int>> got;
  for (const PixelRect& r : rects) got.insert({r.x0, r.y0, r.x1, r.y1});
  EXPECT_EQ(got, (std::set<std::tuple<int, int, int, int>>{{64, 0, 192, 128}, {256, 64, 300, 230}, {0, 192, 64, 230}}));
  long long area = 0;
  for (size_t i = 0; i < rects.size(); ++i) {
    area += rects[i].area();
    for (size_t j = i + 1; j < rects.size(); ++j) EXPECT_TRUE(intersect(rects[i], rects[j]).empty());
  }
  EXPECT_EQ(area, 128LL * 128 + 44LL * 166 + 64LL * 38);

  // More rectangles than allowed: the two whose bounding box adds the fewest pixels are merged (the column-1-2 block
  // and the corner tile: 25,344 added, against 30,592 and 40,064 for the other pairs).
  EXPECT_EQ(damaged_rects(a, b, 2), (std::vector<PixelRect>{{256, 64, 300, 230}, {0, 0, 192, 230}}));
  EXPECT_EQ(damaged_rects(a, b, 1), (std::vector<PixelRect>{{0, 0, 300, 230}}));
  // Another size: the whole frame.
  TileHashes c = b;
  c.width = 320;
  EXPECT_EQ(damaged_rects(a, c, 12), (std::vector<PixelRect>{{0, 0, 320, 230}}));
}

TEST(Damage, AScissorCoveringAWholeTileIsTheSameAsNoneThereAndOneCuttingItIsNot) {
  // A quad inside tile (0, 0), its scissor the whole frame, exactly that tile, or half of it.
  Frame wide, tile, half;
  wide.quad(0, {8, 8}, {40, 40}, IM_COL32(255, 0, 0, 255), nullptr, ImVec4(0, 0, 10000, 10000));
  tile.quad(0, {8, 8}, {40, 40}, IM_COL32(255, 0, 0, 255), nullptr, ImVec4(0, 0, 64, 64));
  half.quad(0, {8, 8}, {40, 40}, IM_COL32(255, 0, 0, 255), nullptr, ImVec4(0, 0, 32, 64));
  EXPECT_TRUE(changed_tiles(tiles_of(wide), tiles_of(tile)).empty());  // the same pixels drawn
  EXPECT_EQ(changed_tiles(tiles_of(wide), tiles_of(half)), (std::set<std::pair<int, int>>{{0, 0}}));
  // Vertex order counts (a triangle's vertices are hashed in separate chains, seeded apart).
  Frame swapped;
  swapped.quad(0, {8, 8}, {40, 40}, IM_COL32(255, 0, 0, 255));
  std::swap(swapped.list(0).IdxBuffer[0], swapped.list(0).IdxBuffer[1]);
  EXPECT_EQ(changed_tiles(tiles_of(wide), tiles_of(swapped)), (std::set<std::pair<int, int>>{{0, 0}}));
}

TEST(Damage, LimitRectsMergesTheCheapestPairAndTakesInWhatTheBoxOverlaps) {
  // Two 10 × 10 squares one above the other (their box adds 100 pixels), a strip half between them, a pixel far away.
  const PixelRect a{0, 0, 10, 10}, b{0, 20, 10, 30}, c{8, 12, 20, 18}, d{100, 100, 101, 101};
  // a + b is the cheapest pair; its box {0, 0, 10, 30} overlaps c, which it then takes in.
  EXPECT_EQ(limit_rects({a, b, c, d}, 2), (std::vector<PixelRect>{d, {0, 0, 20, 30}}));
  // Few enough: unchanged.
  EXPECT_EQ(limit_rects({a, b, c, d}, 4), (std::vector<PixelRect>{a, b, c, d}));
  EXPECT_EQ(limit_rects({a, b, c, d}, 1), (std::vector<PixelRect>{{0, 0, 101, 101}}));
  EXPECT_TRUE(limit_rects({}, 3).empty());
}

TEST(Damage, RestrictToRectsRepeatsCommandsPerRectangleInOrderAndDropsTheRest) {
  Frame f;
  f.quad(0, {0, 0}, {256, 192}, IM_COL32(30, 30, 30, 255), nullptr, ImVec4(0.5f, 0.5f, 255.5f, 191.5f));
  f.callback(0, callback_a);
  f.quad(0, {200, 150}, {210, 160}, IM_COL32(255, 0, 0, 255));  // only in the second rectangle
  f.quad(0, {10, 10}, {20, 20}, IM_COL32(0, 255, 0, 255));      // in neither
  ImDrawData& d = f.draw_data();
  restrict_to_rects(&d, {{64, 0, 128, 64}, {192, 128, 256, 192}}, 256, 192);
  const ImVector<ImDrawCmd>& cmds = f.list(0).CmdBuffer;
  ASSERT_EQ(cmds.Size, 4);
  // The background: once per rectangle, clipped to the rectangle within its own scissor (0..255 × 1..191 rows:
  // glScissor(0, int(192 - 191.5) = 0, int(255), int(191)) from the bottom, so rows 1..191 from the top).
  // It reaches beyond each rectangle, so each repetition draws its own copy of the triangles touching it (both of
  // the quad's), appended after the list's 18 indices.
  const ImVector<ImDrawIdx>& idx = f.list(0).IdxBuffer;
  ASSERT_EQ(idx.Size, 18 + 6 + 6);
  EXPECT_EQ(cmds[0].IdxOffset, 18u);
  EXPECT_EQ(cmds[0].ElemCount, 6u);
  for (int k = 0; k < 6; ++k) EXPECT_EQ(idx[18 + k], idx[k]);
  EXPECT_EQ(cmds[0].ClipRect.x, 64);
  EXPECT_EQ(cmds[0].ClipRect.y, 1);
  EXPECT_EQ(cmds[0].ClipRect.z, 128);
  EXPECT_EQ(cmds[0].ClipRect.w, 64);
  EXPECT_EQ(cmds[1].IdxOffset, 24u);
  EXPECT_EQ(cmds[1].ElemCount, 6u);
  EXPECT_EQ(cmds[1].ClipRect.x, 192);
  EXPECT_EQ(cmds[1].ClipRect.y, 128);
  EXPECT_EQ(cmds[1].ClipRect.z, 255);
  EXPECT_EQ(cmds[1].ClipRect.w, 192);
  // The callback keeps its place; the red quad is drawn in the second rectangle only (all of its command, which
  // lies inside it: its own indices); the green one not at all.
  EXPECT_EQ(cmds[2].UserCallback, &callback_a);
  EXPECT_EQ(cmds[3].IdxOffset, 6u);
  EXPECT_EQ(cmds[3].ClipRect.x, 192);
  EXPECT_EQ(cmds[3].ClipRect.y, 128);
  // Whole-pixel clip rectangles: the backend's scissor is exactly the rectangle asked for.
  EXPECT_EQ(scissor_pixels(cmds[3].ClipRect.x, cmds[3].ClipRect.y, cmds[3].ClipRect.z, cmds[3].ClipRect.w, 256, 192),
            (PixelRect{192, 128, 256, 192}));
}

// The area of a set of rectangles' union, counted pixel by pixel (small frames only).
long long union_area(const std::vector<PixelRect>& rects, int w, int h) {
  long long n = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (const PixelRect& r : rects)
        if (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1) {
          ++n;
          break;
        }
  return n;
}

TEST(Damage, RestrictToRectsSendsEachRectangleOnlyTheTrianglesThatTouchIt) {
  // One command, three quads in draw order: top left, bottom right, top left again (over the first).
  Frame f;
  ImDrawList& dl = f.list(0);
  auto add_quad = [&](ImVec2 a, ImVec2 b, ImU32 col) {
    const auto first = ImDrawIdx(dl.VtxBuffer.Size);
    for (ImVec2 p : {a, ImVec2(b.x, a.y), b, ImVec2(a.x, b.y)}) dl.VtxBuffer.push_back({p, ImVec2(0, 0), col});
    for (int k : {0, 1, 2, 0, 2, 3}) dl.IdxBuffer.push_back(ImDrawIdx(first + k));
  };
  add_quad({10, 10}, {30, 30}, IM_COL32(255, 0, 0, 255));
  add_quad({200, 150}, {220, 170}, IM_COL32(0, 255, 0, 255));
  add_quad({12, 12}, {20, 20}, IM_COL32(0, 0, 255, 255));
  ImDrawCmd cmd;
  cmd.ClipRect = ImVec4(0, 0, 256, 192);
  cmd.ElemCount = 18;
  dl.CmdBuffer.push_back(cmd);
  ImDrawData& d = f.draw_data();
  d.TotalIdxCount = 18;
  restrict_to_rects(&d, {{0, 0, 64, 64}, {192, 128, 256, 192}}, 256, 192);
  ASSERT_EQ(dl.CmdBuffer.Size, 2);
  // The first rectangle: the red and the blue quad, in their order; the second: the green one.
  const ImDrawCmd &a = dl.CmdBuffer[0], &b = dl.CmdBuffer[1];
  ASSERT_EQ(a.ElemCount, 12u);
  ASSERT_EQ(b.ElemCount, 6u);
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(dl.IdxBuffer[int(a.IdxOffset) + k], dl.IdxBuffer[k]);           // red
    EXPECT_EQ(dl.IdxBuffer[int(a.IdxOffset) + 6 + k], dl.IdxBuffer[12 + k]);  // blue
    EXPECT_EQ(dl.IdxBuffer[int(b.IdxOffset) + k], dl.IdxBuffer[6 + k]);       // green
  }
  EXPECT_EQ(d.TotalIdxCount, 18 + 18);
}

TEST(Damage, SubtractLeavesTheRectangleWithoutTheHoleInDisjointParts) {
  const PixelRect a{10, 20, 110, 90}, hole{30, 40, 60, 200};  // the hole leaves a by the bottom edge
  const std::vector<PixelRect> parts = subtract(a, hole);
  long long area = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_FALSE(parts[i].empty());
    EXPECT_TRUE(intersect(parts[i], hole).empty());
    EXPECT_EQ(intersect(parts[i], a), parts[i]);
    for (size_t j = i + 1; j < parts.size(); ++j) EXPECT_TRUE(intersect(parts[i], parts[j]).empty());
    area += parts[i].area();
  }
  EXPECT_EQ(area, a.area() - intersect(a, hole).area());  // 100·70 − 30·50
  EXPECT_EQ(area, 7000 - 1500);
  EXPECT_EQ(subtract(a, {200, 200, 300, 300}), std::vector<PixelRect>{a});  // no overlap: a itself
  EXPECT_TRUE(subtract(a, {0, 0, 500, 500}).empty());                       // all of it
}

TEST(Damage, AddDisjointAddsOnlyNewPixels) {
  std::vector<PixelRect> rects;
  add_disjoint(rects, {0, 0, 40, 30});
  add_disjoint(rects, {20, 10, 60, 50});  // overlaps the first
  add_disjoint(rects, {5, 5, 15, 15});    // inside the first: adds nothing
  add_disjoint(rects, {70, 70, 80, 80});  // apart
  for (size_t i = 0; i < rects.size(); ++i)
    for (size_t j = i + 1; j < rects.size(); ++j) EXPECT_TRUE(intersect(rects[i], rects[j]).empty());
  long long area = 0;
  for (const PixelRect& r : rects) area += r.area();
  // 40·30 + 40·40 − 20·20 (their overlap) + 10·10
  EXPECT_EQ(area, 1200 + 1600 - 400 + 100);
  EXPECT_EQ(area, union_area(rects, 100, 100));
}

TEST(Damage, TilesTouchingAndMarkTilesCoverTheTilesARectangleReaches) {
  Frame f;
  TileHashes t = tiles_of(f, 256, 192);  // 4 × 3 tiles
  // Columns 63..64 and rows 0..127: tiles (0, 0), (1, 0), (0, 1), (1, 1).
  const std::vector<size_t> touched = tiles_touching(t, {63, 0, 65, 128});
  EXPECT_EQ(touched, (std::vector<size_t>{0, 1, 4, 5}));
  EXPECT_TRUE(tiles_touching(t, {300, 0, 400, 10}).empty());  // off the frame
  mark_tiles(t, {250, 190, 260, 200}, 7);                     // the last tile only (clamped to the frame)
  for (size_t k = 0; k < t.hash.size(); ++k) EXPECT_EQ(t.hash[k], k == 11 ? 7u : 0u);
}

TEST(Damage, ListsReachIsTheBoundingBoxOfTheirTrianglesWithinTheirScissors) {
  Frame f;
  f.quad(0, {10, 10}, {20, 20}, IM_COL32_WHITE);
  f.quad(1, {100, 50}, {120, 60}, IM_COL32_WHITE, nullptr, ImVec4(0, 0, 110, 192));  // clipped at column 110
  f.quad(2, {200, 150}, {210, 160}, IM_COL32_WHITE);
  const ImDrawData& d = f.draw_data();
  // triangle_reach: one pixel of slack beyond a triangle's edges (never narrower than what it covers).
  const PixelRect first = lists_reach(d, {0, 1}, 256, 192);
  EXPECT_LE(first.x0, 10);
  EXPECT_GE(first.x1, 20);
  EXPECT_LE(first.x1, 22);
  const PixelRect two = lists_reach(d, {0, 2}, 256, 192);
  EXPECT_EQ(two.x1, 110);  // the scissor
  EXPECT_LE(two.y0, 10);
  EXPECT_GE(two.y1, 60);
  EXPECT_TRUE(lists_reach(d, {3, 5}, 256, 192).empty());  // no such lists
}

TEST(Damage, SkippedListsAddNoTrianglesButTheirCallbacksStillSetTheState) {
  Frame with, without;
  for (Frame* f : {&with, &without}) {
    f->quad(0, {0, 0}, {256, 192}, IM_COL32(30, 30, 30, 255));
    f->quad(2, {100, 100}, {110, 110}, IM_COL32(200, 0, 0, 255));
  }
  with.quad(1, {10, 10}, {50, 50}, IM_COL32(0, 200, 0, 255));
  without.list(1);  // the same lists, the middle one empty
  EXPECT_EQ(hash_tiles(with.draw_data(), 256, 192, no_versions, {1, 2}, kTile).hash,
            hash_tiles(without.draw_data(), 256, 192, no_versions, {}, kTile).hash);
  EXPECT_NE(hash_tiles(with.draw_data(), 256, 192, no_versions, {}, kTile).hash,
            hash_tiles(without.draw_data(), 256, 192, no_versions, {}, kTile).hash);
  // A callback in a skipped list changes how what follows is drawn: the later tiles must still see it.
  with.callback(1, callback_a);
  EXPECT_NE(hash_tiles(with.draw_data(), 256, 192, no_versions, {1, 2}, kTile).hash,
            hash_tiles(without.draw_data(), 256, 192, no_versions, {}, kTile).hash);
}

TEST(Damage, TileHasherRemembersUnchangedListsAndEqualsHashTiles) {
  Frame f;
  f.quad(0, {0, 0}, {256, 192}, IM_COL32(30, 30, 30, 255));
  f.callback(0, callback_a);
  f.quad(1, {10, 10}, {50, 50}, IM_COL32(0, 200, 0, 255), reinterpret_cast<ImTextureID>(3));
  f.quad(2, {100, 100}, {110, 110}, IM_COL32(200, 0, 0, 255));
  uint64_t version_of_3 = 1;
  const TextureVersionFn version = [&](uintptr_t t) { return t == 3 ? version_of_3 : uint64_t(0); };
  TileHasher hasher;
  auto both = [&] {
    const TileHashes remembered = hasher.hash(f.draw_data(), 256, 192, version, {}, kTile);
    EXPECT_EQ(remembered.hash, hash_tiles(f.draw_data(), 256, 192, version, {}, kTile).hash);
    return remembered;
  };
  const TileHashes first = both();
  EXPECT_EQ(both().hash, first.hash);  // nothing changed: every list's share reused
  // A vertex of the last list moves: only its tiles change, and the reused shares still give hash_tiles' hashes.
  f.list(2).VtxBuffer[2].pos.x += 0.25f;
  const TileHashes moved = both();
  EXPECT_EQ(changed_tiles(first, moved), (std::set<std::pair<int, int>>{{1, 1}}));
  // New pixels in a texture of the middle list; then skipping that list.
  version_of_3 = 2;
  EXPECT_NE(both().hash, moved.hash);
  EXPECT_EQ(hasher.hash(f.draw_data(), 256, 192, version, {1, 2}, kTile).hash,
            hash_tiles(f.draw_data(), 256, 192, version, {1, 2}, kTile).hash);
  both();
}

}  // namespace
}  // namespace tw
