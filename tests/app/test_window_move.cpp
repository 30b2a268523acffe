// A moved window's image stands for it only while it draws the same thing moved (app/render/window_move.h): the
// comparison of two frames' draw lists up to a whole-pixel move, the rectangles drawn around the copied image, and
// the moving window found in a real ImGui frame. No GL.
#include "app/render/window_move.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <vector>

#include "views/draw_data_util.h"

namespace tw {
namespace {

uint64_t no_versions(uintptr_t) { return 0; }

constexpr int kW = 640, kH = 480;
constexpr float kTolerance = 1e-3f;

// A window's content at (x, y): a background, a coloured quad, a textured quad (text), a quad near its right edge.
void window_content(Frame& f, float x, float y, float jitter = 0.0f, ImU32 col = IM_COL32(200, 0, 0, 255)) {
  f.quad(0, {x, y}, {x + 300, y + 200}, IM_COL32(30, 30, 30, 255));
  f.quad(0, {x + 20.25f + jitter, y + 30.5f}, {x + 80.75f, y + 60.125f - jitter}, col);
  f.quad(0, {x + 100, y + 100}, {x + 140, y + 116}, IM_COL32_WHITE, reinterpret_cast<ImTextureID>(7));
  f.quad(0, {x + 280, y + 150}, {x + 296, y + 166}, IM_COL32(0, 0, 255, 255));
}

ListsSnapshot snap(Frame& f, float x, float y, const TextureVersionFn& version = no_versions) {
  return snapshot_lists(f.draw_data(), {0, 1}, ImVec2(x, y), kW, kH, version);
}

TEST(WindowMove, TheSameContentMovedByWholePixelsIsUnchangedWithinTheTolerance) {
  Frame before, moved, noisy;
  window_content(before, 100, 50);
  window_content(moved, 107, 47);
  window_content(noisy, 107, 47, 2e-4f);  // ImGui's float rounding: a fraction of the tolerance
  const ListsSnapshot a = snap(before, 100, 50);
  const PixelRect region{113, 53, 401, 241};  // the moved window's inside
  EXPECT_TRUE(moved_unchanged(a, snap(moved, 107, 47), region, kTolerance));
  EXPECT_TRUE(moved_unchanged(a, snap(noisy, 107, 47), region, kTolerance));
  // Not moved at all: the same.
  EXPECT_TRUE(moved_unchanged(a, snap(before, 100, 50), {106, 56, 394, 244}, kTolerance));
}

TEST(WindowMove, AChangeInsideTheRegionIsSeen) {
  Frame before;
  window_content(before, 100, 50);
  const ListsSnapshot a = snap(before, 100, 50);
  const PixelRect region{113, 53, 401, 241};
  Frame recoloured, shifted;
  window_content(recoloured, 107, 47, 0.0f, IM_COL32(0, 200, 0, 255));
  window_content(shifted, 107, 47, 0.01f);  // a hundredth of a pixel: drawn differently at an edge
  EXPECT_FALSE(moved_unchanged(a, snap(recoloured, 107, 47), region, kTolerance));
  EXPECT_FALSE(moved_unchanged(a, snap(shifted, 107, 47), region, kTolerance));
  // The textured quad's texture got new pixels (its content version).
  Frame same;
  window_content(same, 107, 47);
  auto new_version = [](uintptr_t t) { return t == 7 ? uint64_t(2) : uint64_t(0); };
  EXPECT_FALSE(moved_unchanged(a, snap(same, 107, 47, new_version), region, kTolerance));
  // A fractional move cannot be a copy.
  Frame half;
  window_content(half, 107.5f, 47);
  EXPECT_FALSE(moved_unchanged(a, snap(half, 107.5f, 47), region, kTolerance));
}

TEST(WindowMove, TrianglesOutsideTheRegionDoNotCount) {
  // Moved 80 pixels right, partly off the screen: ImGui left out the quad near the window's right edge.
  Frame before, now;
  window_content(before, 100, 50);
  now.quad(0, {180, 50}, {480, 250}, IM_COL32(30, 30, 30, 255));
  now.quad(0, {200.25f, 80.5f}, {260.75f, 110.125f}, IM_COL32(200, 0, 0, 255));
  now.quad(0, {280, 150}, {320, 166}, IM_COL32_WHITE, reinterpret_cast<ImTextureID>(7));
  const ListsSnapshot a = snap(before, 100, 50), b = snap(now, 180, 50);
  // The region the copy covers ends before the left-out quad (columns 460..476 of the moved window).
  EXPECT_TRUE(moved_unchanged(a, b, {186, 56, 452, 244}, kTolerance));
  // A region reaching it sees the difference.
  EXPECT_FALSE(moved_unchanged(a, b, {186, 56, 474, 244}, kTolerance));
}

TEST(WindowMove, AScissorCutInsideTheRegionCounts) {
  Frame before, now;
  window_content(before, 100, 50);
  window_content(now, 107, 47);
  now.list(0).CmdBuffer[1].ClipRect = ImVec4(107, 47, 157, 247);  // the red quad (columns 127..188) cut at 157
  const PixelRect region{113, 53, 401, 241};
  EXPECT_FALSE(moved_unchanged(snap(before, 100, 50), snap(now, 107, 47), region, kTolerance));
  // Cut beyond the region only: the same inside it.
  Frame edge;
  window_content(edge, 107, 47);
  edge.list(0).CmdBuffer[0].ClipRect = ImVec4(107, 47, 402, 247);  // the background, cut right of the region
  EXPECT_TRUE(moved_unchanged(snap(before, 100, 50), snap(edge, 107, 47), region, kTolerance));
}

TEST(WindowMove, MovedFrameRectsCoverTheFootprintsAndTheChangesAroundTheCopy) {
  Frame f;
  f.quad(0, {0, 0}, {640, 480}, IM_COL32(30, 30, 30, 255));
  TileHashes last = hash_tiles(f.draw_data(), kW, kH, no_versions, {}, 64);
  f.quad(0, {460, 20}, {480, 30}, IM_COL32(200, 0, 0, 255));  // a change elsewhere (64-pixel tile 7, 0)
  const TileHashes now = hash_tiles(f.draw_data(), kW, kH, no_versions, {}, 64);
  const PixelRect footprint{98, 48, 402, 252}, last_footprint{92, 52, 396, 256}, inner{106, 56, 394, 244};
  const std::vector<PixelRect> rects = moved_frame_rects(last, now, footprint, last_footprint, inner, 100);
  for (size_t i = 0; i < rects.size(); ++i) {
    EXPECT_TRUE(intersect(rects[i], inner).empty());
    for (size_t j = i + 1; j < rects.size(); ++j) EXPECT_TRUE(intersect(rects[i], rects[j]).empty());
  }
  auto covered = [&](int x, int y) {
    for (const PixelRect& r : rects)
      if (x >= r.x0 && x < r.x1 && y >= r.y0 && y < r.y1) return true;
    return false;
  };
  long long expected = 0, drawn = 0;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const bool in_inner = x >= inner.x0 && x < inner.x1 && y >= inner.y0 && y < inner.y1;
      const bool in_footprints =
          (x >= footprint.x0 && x < footprint.x1 && y >= footprint.y0 && y < footprint.y1) ||
          (x >= last_footprint.x0 && x < last_footprint.x1 && y >= last_footprint.y0 && y < last_footprint.y1);
      const bool in_change = x >= 448 && x < 512 && y < 64;  // the changed tile
      const bool want = !in_inner && (in_footprints || in_change);
      expected += want;
      drawn += covered(x, y);
      if (want) {
        ASSERT_TRUE(covered(x, y)) << x << "," << y;
      }
    }
  EXPECT_EQ(drawn, expected);  // nothing else drawn
  // Limited to a few rectangles, they may cover more (then the copy covers the inside again), never less.
  const std::vector<PixelRect> few = moved_frame_rects(last, now, footprint, last_footprint, inner, 2);
  EXPECT_LE(few.size(), 2u);
  for (const PixelRect& r : rects) {
    long long inside = 0;
    for (const PixelRect& g : few) inside += intersect(r, g).area();
    EXPECT_EQ(inside, r.area());
  }
}

TEST(WindowMove, FindsTheWindowImGuiMovesAndItsListsInARealFrame) {
  ImGuiContext* context = ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(800, 600);
  io.IniFilename = nullptr;
  unsigned char* pixels = nullptr;
  int tw = 0, th = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &tw, &th);
  auto frame = [&](ImVec2 mouse, bool down) {
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    io.DeltaTime = 1.0f / 60.0f;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(500, 400), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(200, 100), ImGuiCond_FirstUseEver);
    ImGui::Begin("behind");
    ImGui::Text("behind");
    ImGui::End();
    ImGui::SetNextWindowPos(ImVec2(100, 100), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(300, 200), ImGuiCond_FirstUseEver);
    ImGui::Begin("page");
    ImGui::Text("a page");
    ImGui::BeginChild("figure", ImVec2(200, 80), true);
    ImGui::Text("a figure");
    ImGui::EndChild();
    ImGui::End();
    ImGui::Render();
    return ImGui::GetDrawData();
  };
  frame({0, 0}, false);
  EXPECT_FALSE(find_moving_window(*frame({0, 0}, false)).has_value());  // nothing moves
  frame({150, 108}, true);                                              // pressed on the title bar
  const ImDrawData* d = frame({157.0f, 111.0f}, true);                  // dragged 7 right, 3 down
  const std::optional<MovingWindow> m = find_moving_window(*d);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->rect, (PixelRect{107, 103, 407, 303}));
  EXPECT_EQ(m->lists.end - m->lists.first, 2);  // the page and its child window, one after the other
  EXPECT_GE(m->margin, 2);
  // The page is in front: its lists come last; the window behind is not among them.
  EXPECT_EQ(m->lists.end, d->CmdListsCount);
  frame({157, 111}, false);  // released
  EXPECT_FALSE(find_moving_window(*frame({157, 111}, false)).has_value());
  ImGui::DestroyContext(context);
}

}  // namespace
}  // namespace tw
