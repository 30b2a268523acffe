// A control's label and (?) marker fit in the controls column (views/widgets.h draw_controls_column): at 150% zoom in
// a narrow column, the widget gives up width instead of the label being cut at the column's edge, in English and
// Chinese.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include "app/fonts.h"
#include "core/base/i18n.h"
#include "views/controls.h"
#include "views/widgets.h"

namespace tw {
namespace {

TEST(ControlsFit, LongLabelsAndTheirHelpMarkerStayInsideTheColumn) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = ImVec2(1280, 720);
  io.DeltaTime = 1.0f / 60.0f;
  constexpr float kZoom = 1.5f;
  load_fonts(TW_FONT_DIR, plot::kBaseFontSize * kZoom);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  int vocab = 80, merges = 60;
  Controls controls("fit");
  controls.add_int("vocab", &vocab, 1, 4096, "vocabulary (WP, Unigram)", "Vocabulary size.");
  controls.add_int("merges", &merges, 1, 4096, "BPE merges", "Merges.");
  const DrawContext ctx{.dpi_scale = kZoom};
  for (Language lang : {Language::En, Language::Zh}) {
    set_language(lang);
    for (int frame = 0; frame < 2; ++frame) {
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(0, 0));
      ImGui::SetNextWindowSize(ImVec2(480, 400));  // the tokenizers panel's controls column at 1280×720, 150%
      ImGui::Begin("column", nullptr, ImGuiWindowFlags_NoDecoration);
      const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
      for (const Control& c : controls.all()) {
        draw_controls_column(controls, ctx, 225, [&](const Control& x) { return &x == &c; });
        if (frame == 1) {  // the (?) marker is the last item: its right edge is inside the column
          EXPECT_LE(ImGui::GetItemRectMax().x, right + 0.5f)
              << c.label << (lang == Language::Zh ? " (zh)" : " (en)") << ": label cut at the column's edge";
        }
      }
      ImGui::End();
      ImGui::Render();
    }
  }
  set_language(Language::En);
  ImGui::DestroyContext();
}

}  // namespace
}  // namespace tw
