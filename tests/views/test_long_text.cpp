// Issue 45: a long unbroken run (20,000 characters without a space, a long string inside math) is drawn in pieces
// whose vertices 16-bit indices can address, instead of aborting on ImGui's "Too many vertices in ImDrawList using
// 16-bit indices" assertion.
#include <gtest/gtest.h>
#include <imgui.h>

#include <string>

#include "core/base/utf8.h"
#include "views/plot/plot_imgui.h"
#include "views/plot/text_pieces.h"
#include "views/widgets.h"

namespace tw {
namespace {

TEST(DrawPieces, CutAtCharacterBoundariesAndJoinToTheText) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "注意a";  // 7 bytes each: pieces cannot all end on a multiple of 4096
  const std::vector<std::string_view> pieces = plot::draw_pieces(text);
  ASSERT_GE(pieces.size(), 5u);
  std::string joined;
  for (std::string_view p : pieces) {
    EXPECT_LE(p.size(), plot::kMaxDrawBytes);
    EXPECT_TRUE(valid_utf8(p));
    joined += p;
  }
  EXPECT_EQ(joined, text);
  EXPECT_TRUE(plot::draw_pieces("").empty());
  EXPECT_EQ(plot::draw_pieces("abc").size(), 1u);
}

// Every draw command of every list addresses its vertices with indices below 65536 from its VtxOffset.
void expect_addressable(const ImDrawData* data) {
  ASSERT_NE(data, nullptr);
  for (int l = 0; l < data->CmdListsCount; ++l) {
    const ImDrawList* dl = data->CmdLists[l];
    for (const ImDrawCmd& cmd : dl->CmdBuffer)
      for (unsigned k = 0; k < cmd.ElemCount; ++k) {
        const unsigned vertex = cmd.VtxOffset + dl->IdxBuffer[int(cmd.IdxOffset + k)];
        ASSERT_LT(vertex, unsigned(dl->VtxBuffer.Size));
      }
  }
}

TEST(LongText, AnUnbrokenRunIsDrawnWithinTheIndexRange) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1600, 1000);
  io.DeltaTime = 1.0f / 60.0f;
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // as the OpenGL 3 backend sets it
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  const std::string run(20000, 'w');
  for (int frame = 0; frame < 2; ++frame) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1600, 1000));
    ImGui::Begin("lesson");
    math_text(run.c_str(), 0.0f);                        // plain text, wrapped
    math_text(("$\\text{" + run + "}$").c_str(), 0.0f);  // a long string inside math
    math_text(("a $x$ " + run).c_str(), -1.0f);          // typeset, unwrapped
    ImGui::End();
    ImGui::Render();
    expect_addressable(ImGui::GetDrawData());
  }
  ImGui::DestroyContext();
}

}  // namespace
}  // namespace tw
