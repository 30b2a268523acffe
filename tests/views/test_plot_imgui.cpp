// The plot layer inside a real (headless) ImGui frame: text widths agree with the exporters' measurements,
// and draw_figure emits geometry, keeps zoom state per figure, and tolerates an empty figure; a figure drawn again
// unchanged (layout and vertices from the cache) or changed (laid out again) gives what a first draw gives.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "app/fonts.h"
#include "core/base/text_in_use.h"
#include "views/plot/layout.h"
#include "views/plot/plot_imgui.h"
#include "views/plot/text.h"
#include "views/plot/theme.h"

namespace tw::plot {
namespace {

class ImGuiFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    font_warning_ = load_fonts(TW_FONT_DIR, kBaseFontSize);  // as the app does at DPI 1
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1200, 900);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas; no GPU needed
  }
  void TearDown() override { ImGui::DestroyContext(); }
  std::string font_warning_;
};

TEST_F(ImGuiFrame, TextWidthsMatchTheExporters) {
  ASSERT_EQ(font_warning_, "");
  ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  for (const char* s : {"key position j", "probability", "\xCE\xB8\xE2\x82\x96 [rad/token]",
                        "\xE2\x88\x92"
                        "0.25",
                        "10\xE2\x81\xBB\xC2\xB3", "The cat sat on the mat"}) {
    for (float size : {12.5f, 15.0f, 30.0f}) {
      const float imgui = font->CalcTextSizeA(size, FLT_MAX, 0.0f, s).x;
      EXPECT_NEAR(imgui, text_width(s, size), 0.01f) << s << " at " << size << " px";
    }
  }
}

// Characters come into use (typed, translated, drawn in a figure): the atlas is out of date until rebuilt, then
// every face has their glyphs (Italic, Bold and Math share Regular's CJK glyphs) at the exporters' widths.
TEST_F(ImGuiFrame, CharactersInUseGetGlyphsInEveryFaceAtTheExportersWidths) {
  ASSERT_EQ(font_warning_, "");
  const std::string text = "\xE5\xBA\x8A\xE5\x89\x8D\xE6\x98\x8E\xE6\x9C\x88 \xCE\xB1";  // 床前明月 α
  ASSERT_EQ(screen_font(FontStyle::Regular)->FindGlyphNoFallback(0x5E8A), nullptr);      // 床: not in use yet
  note_text_in_use(text);
  EXPECT_TRUE(font_atlas_out_of_date());
  ImGui::GetIO().Fonts->Clear();
  ASSERT_EQ(load_fonts(TW_FONT_DIR, kBaseFontSize), "");
  EXPECT_FALSE(font_atlas_out_of_date());
  for (FontStyle style : {FontStyle::Regular, FontStyle::Italic, FontStyle::Bold, FontStyle::Math}) {
    ImFont* font = screen_font(style);
    ASSERT_NE(font, nullptr);
    for (ImWchar c : {0x5E8A, 0x524D, 0x660E, 0x6708, 0x03B1})
      EXPECT_NE(font->FindGlyphNoFallback(c), nullptr) << int(style) << " U+" << std::hex << c;
    for (float size : {15.0f, 22.5f})
      EXPECT_NEAR(font->CalcTextSizeA(size, FLT_MAX, 0.0f, text.c_str()).x, text_width(text, size, style), 0.01f)
          << int(style);
  }
}

TEST_F(ImGuiFrame, DrawFigureEmitsGeometryAndHandlesEmptyFigures) {
  Figure fig("probs", "Probabilities");
  std::vector<float> p = {1, -INFINITY, 0.5f, 0.5f};
  fig.axes().heatmap("P", p.data(), 2, 2);
  Figure lines("lines", "Lines");
  lines.axes().line("a", {0, 1, 2}, {1, 2, 3});
  Figure empty("empty", "Nothing yet");
  for (int frame = 0; frame < 3; ++frame) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1200, 900));
    ImGui::Begin("test");
    const int before = ImGui::GetWindowDrawList()->VtxBuffer.Size;
    draw_figure(fig, DrawContext{}, "test", ImVec2(500, 300));
    draw_figure(lines, DrawContext{.theme = Theme::Print}, "test", ImVec2(500, 300));
    draw_figure(empty, DrawContext{}, "test");
    const int after = ImGui::GetWindowDrawList()->VtxBuffer.Size;
    EXPECT_GT(after - before, 500);  // frames, text glyphs, cells (no texture backend: rectangles)
    ImGui::End();
    ImGui::Render();
  }
}

// A wide strip asked for at a sliver of its height still gets half its export height on screen (its title, labels
// and note do not shrink with it), and the item it takes is that tall.
TEST_F(ImGuiFrame, AShortStripKeepsHalfItsExportHeight) {
  Figure fig("strip", "A title long enough to wrap onto a second line in a narrow figure like this one");
  fig.aspect = 0.55f;
  fig.note = "a note under the plot";
  fig.axes().line("a", {0, 1, 2}, {1, 2, 3});
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(1200, 900));
  ImGui::Begin("test");
  draw_figure(fig, DrawContext{}, "test", ImVec2(700, 100));
  const float h = ImGui::GetItemRectSize().y;
  ImGui::End();
  ImGui::Render();
  const float s = ImGui::GetFontSize() / kBaseFontSize;
  EXPECT_GE(h, kMinReadableHeightFraction * 640 * 0.55f * s - 0.5f);
  EXPECT_LT(h, 640 * 0.55f * s);  // no taller than it needs
}

// The triangles one draw_figure call emits, in window `window` at the top-left corner: vertices in the order the
// indices use them, so two draws compare equal exactly when they produce the same pixels.
// `clip_bottom` > 0 clips everything below that y (as a scrolled parent would).
std::vector<ImDrawVert> draw_in_window(const char* window, const Figure& fig, ImVec2 size, float clip_bottom = 0) {
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(1200, 900));
  ImGui::Begin(window);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int idx0 = dl->IdxBuffer.Size;
  if (clip_bottom > 0) ImGui::PushClipRect(ImVec2(0, 0), ImVec2(1200, clip_bottom), true);
  draw_figure(fig, DrawContext{}, "test", size);
  if (clip_bottom > 0) ImGui::PopClipRect();
  std::vector<ImDrawVert> out;
  for (const ImDrawCmd& cmd : dl->CmdBuffer) {
    const int begin = std::max(static_cast<int>(cmd.IdxOffset), idx0);
    for (int k = begin; k < static_cast<int>(cmd.IdxOffset + cmd.ElemCount); ++k)
      out.push_back(dl->VtxBuffer[static_cast<int>(cmd.VtxOffset + dl->IdxBuffer[k])]);
  }
  ImGui::End();
  return out;
}

bool same_vertices(const std::vector<ImDrawVert>& a, const std::vector<ImDrawVert>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(ImDrawVert)) == 0;
}

Figure cached_test_figure(double peak, const std::string& title) {
  Figure fig("cached", title);
  fig.grid_cols = 2;
  Axes& a = fig.add_axes("lines");
  a.line("with a gap", {0, 1, 2, 3}, {1, peak, NAN, 0.5});  // NaN must not make a figure unequal to itself
  a.vline("marker", 1.5);
  Axes& b = fig.add_axes("map");
  std::vector<double> v = {0.1, peak, -INFINITY, 0.7};
  b.heatmap("P", v.data(), 2, 2);
  return fig;
}

TEST_F(ImGuiFrame, UnchangedFigureDrawsTheSameTrianglesAgain) {
  const Figure fig = cached_test_figure(2.0, "Cached");
  std::vector<std::vector<ImDrawVert>> frames;
  for (int frame = 0; frame < 3; ++frame) {
    ImGui::NewFrame();
    frames.push_back(draw_in_window("cached", fig, ImVec2(600, 300)));
    ImGui::Render();
  }
  EXPECT_GT(frames[0].size(), 500u);
  EXPECT_TRUE(same_vertices(frames[0], frames[1]));
  EXPECT_TRUE(same_vertices(frames[0], frames[2]));
}

TEST_F(ImGuiFrame, ChangedFigureDrawsLikeAFirstDraw) {
  ImGui::NewFrame();
  draw_in_window("cached", cached_test_figure(2.0, "Before"), ImVec2(600, 300));
  ImGui::Render();
  // Each change alone: a data value (line and heatmap colours), the title, a flag, then the size.
  Figure shared = cached_test_figure(3.0, "After");
  shared.shared_colorbar = true;
  const Figure changed[] = {cached_test_figure(3.0, "Before"), cached_test_figure(3.0, "After"), shared};
  std::vector<ImDrawVert> previous;
  for (int i = 0; i < 3; ++i) {
    ImGui::NewFrame();
    const std::vector<ImDrawVert> again = draw_in_window("cached", changed[i], ImVec2(600, 300));
    const std::vector<ImDrawVert> first =
        draw_in_window(("fresh " + std::to_string(i)).c_str(), changed[i], ImVec2(600, 300));
    ImGui::Render();
    EXPECT_TRUE(same_vertices(again, first)) << "change " << i;
    EXPECT_FALSE(same_vertices(again, previous)) << "change " << i << " does not show: the test proves nothing";
    previous = again;
  }
  ImGui::NewFrame();
  const std::vector<ImDrawVert> resized = draw_in_window("cached", shared, ImVec2(500, 320));
  const std::vector<ImDrawVert> first = draw_in_window("fresh resized", shared, ImVec2(500, 320));
  ImGui::Render();
  EXPECT_TRUE(same_vertices(resized, first));
}

TEST_F(ImGuiFrame, FigureClippedThenShownWholeDrawsLikeAFirstDraw) {
  const Figure fig = cached_test_figure(2.0, "Clipped");
  ImGui::NewFrame();
  const std::vector<ImDrawVert> clipped = draw_in_window("cached", fig, ImVec2(600, 300), 150);
  ImGui::Render();
  ImGui::NewFrame();
  const std::vector<ImDrawVert> whole = draw_in_window("cached", fig, ImVec2(600, 300));
  const std::vector<ImDrawVert> first = draw_in_window("fresh", fig, ImVec2(600, 300));
  ImGui::Render();
  EXPECT_LT(clipped.size(), whole.size());  // glyphs outside the clip rect were never emitted
  EXPECT_TRUE(same_vertices(whole, first));
}

TEST_F(ImGuiFrame, ZoomRedrawsTheFigureAndDoubleClickRestoresIt) {
  const Figure fig = cached_test_figure(2.0, "Zoom");
  ImGuiIO& io = ImGui::GetIO();
  std::vector<std::vector<ImDrawVert>> frames;
  for (int frame = 0; frame < 7; ++frame) {
    io.MousePos = ImVec2(200, 150);  // inside the first axes
    io.MouseWheel = frame == 1 ? 1.0f : 0.0f;
    io.KeyCtrl = frame == 1;                     // Ctrl+wheel zooms
    io.MouseDown[0] = frame == 3 || frame == 5;  // a double-click: two presses 20 ms apart
    io.DeltaTime = 0.01f;
    ImGui::NewFrame();
    frames.push_back(draw_in_window("zoom", fig, ImVec2(600, 300)));
    ImGui::Render();
  }
  // The axes zoom from the next frame; the Reset view marker shows at once.
  EXPECT_GT(frames[1].size(), frames[0].size());
  EXPECT_FALSE(same_vertices(frames[0], frames[2]));  // zoomed
  EXPECT_TRUE(same_vertices(frames[0], frames[6])) << "the double-click in frame 5 resets the view";
}

// One frame of `fig` in a 1200×400 window holding it and a second figure below (so the window can scroll), with
// the mouse at `mouse`, `wheel` steps and Ctrl as given. Returns the figure's triangles; `scroll_y` the window's.
std::vector<ImDrawVert> wheel_frame(const Figure& fig, ImVec2 mouse, float wheel, bool ctrl, bool left_down = false,
                                    float* scroll_y = nullptr) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = mouse;
  io.MouseWheel = wheel;
  io.KeyCtrl = ctrl;
  io.MouseDown[0] = left_down;
  io.DeltaTime = 0.01f;
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(1200, 400));
  ImGui::Begin("wheel", nullptr, ImGuiWindowFlags_NoTitleBar);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int idx0 = dl->IdxBuffer.Size;
  draw_figure(fig, DrawContext{}, "test", ImVec2(600, 300));
  std::vector<ImDrawVert> out;
  for (const ImDrawCmd& cmd : dl->CmdBuffer) {
    const int begin = std::max(static_cast<int>(cmd.IdxOffset), idx0);
    for (int k = begin; k < static_cast<int>(cmd.IdxOffset + cmd.ElemCount); ++k)
      out.push_back(dl->VtxBuffer[static_cast<int>(cmd.VtxOffset + dl->IdxBuffer[k])]);
  }
  Figure below("below", "Below");
  below.axes().line("a", {0, 1, 2}, {1, 2, 3});
  draw_figure(below, DrawContext{}, "test", ImVec2(600, 300));
  if (scroll_y) *scroll_y = ImGui::GetScrollY();
  ImGui::End();
  ImGui::Render();
  return out;
}

TEST_F(ImGuiFrame, WheelScrollsTheWindowAndLeavesTheAxes) {
  const Figure fig = cached_test_figure(2.0, "Wheel");
  const ImVec2 inside(200, 150);
  float scroll = -1;
  const auto before = wheel_frame(fig, inside, 0, false, false, &scroll);
  ASSERT_EQ(scroll, 0.0f);
  wheel_frame(fig, inside, -1.0f, false);  // one step down, no Ctrl
  wheel_frame(fig, inside, 0, false, false, &scroll);
  EXPECT_GT(scroll, 0.0f) << "the window scrolled";
  // Scrolled back, the figure draws exactly as before: the wheel never touched its axes.
  wheel_frame(fig, inside, 1.0f, false);
  const auto back = wheel_frame(fig, inside, 0, false, false, &scroll);
  EXPECT_EQ(scroll, 0.0f);
  EXPECT_TRUE(same_vertices(before, back));
}

TEST_F(ImGuiFrame, CtrlWheelZoomsWithoutScrolling) {
  const Figure fig = cached_test_figure(2.0, "Ctrl wheel");
  const ImVec2 inside(200, 150);
  float scroll = -1;
  const auto before = wheel_frame(fig, inside, 0, false);
  wheel_frame(fig, inside, 1.0f, true);
  const auto zoomed = wheel_frame(fig, inside, 0, false, false, &scroll);
  EXPECT_EQ(scroll, 0.0f);
  EXPECT_FALSE(same_vertices(before, zoomed));
}

TEST_F(ImGuiFrame, ChangedDataResetsTheZoom) {
  const ImVec2 inside(200, 150);
  const auto new_data_unzoomed = wheel_frame(cached_test_figure(3.0, "Data"), inside, 0, false);
  wheel_frame(cached_test_figure(2.0, "Data"), inside, 0, false);
  wheel_frame(cached_test_figure(2.0, "Data"), inside, 1.0f, true);
  const auto zoomed = wheel_frame(cached_test_figure(2.0, "Data"), inside, 0, false);
  const auto changed = wheel_frame(cached_test_figure(3.0, "Data"), inside, 0, false);
  EXPECT_FALSE(same_vertices(zoomed, changed));
  EXPECT_TRUE(same_vertices(changed, new_data_unzoomed))
      << "the zoom (and its Reset view marker) went with the old data";
}

TEST_F(ImGuiFrame, AZoomedFigureShowsResetViewAndOneClickResets) {
  const Figure fig = cached_test_figure(2.0, "Marker");
  const ImVec2 inside(200, 150);
  const auto before = wheel_frame(fig, inside, 0, false);
  wheel_frame(fig, inside, 1.0f, true);
  const auto zoomed = wheel_frame(fig, inside, 0, false);
  EXPECT_GT(zoomed.size(), before.size()) << "the Reset view marker is drawn while zoomed";
  // The marker sits in the figure's top-right corner: a click there (press, release) resets the view.
  const ImVec2 corner(600 - 12, 8 + 12);
  wheel_frame(fig, corner, 0, false, true);
  wheel_frame(fig, corner, 0, false, false);
  const auto reset = wheel_frame(fig, inside, 0, false);
  EXPECT_EQ(reset.size(), before.size());
  EXPECT_TRUE(same_vertices(before, reset));
}

TEST_F(ImGuiFrame, AFigureNotDrawnForAFrameForgetsItsZoom) {
  const Figure fig = cached_test_figure(2.0, "Reopened");
  const ImVec2 inside(200, 150);
  const auto before = wheel_frame(fig, inside, 0, false);
  wheel_frame(fig, inside, 1.0f, true);
  EXPECT_FALSE(same_vertices(before, wheel_frame(fig, inside, 0, false)));
  ImGui::NewFrame();  // the panel is closed for a frame
  ImGui::Render();
  EXPECT_TRUE(same_vertices(before, wheel_frame(fig, inside, 0, false)));
}

}  // namespace
}  // namespace tw::plot
