// The plot layer inside a real (headless) ImGui frame: text widths agree with the exporters' measurements,
// and draw_figure emits geometry, keeps zoom state per figure, and tolerates an empty figure.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>

#include "app/fonts.h"
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

}  // namespace
}  // namespace tw::plot
