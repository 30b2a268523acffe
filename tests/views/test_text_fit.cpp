// Text fits on a projector: at 1280×720 and 150% / 200% zoom, in English and Chinese, the lesson bar's buttons, the
// View menu, the Open scene dialog and every panel's choices (combos) show whole — nothing is cut at a window's edge
// or below the screen (views/widgets.h check_item_fits / check_text_fits record what would be), and the View menu
// opens below the menu bar instead of over it.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "app/app_state.h"
#include "app/file_menu.h"
#include "app/fonts.h"
#include "app/lesson_bar.h"
#include "core/base/i18n.h"
#include "scratch_dir.h"
#include "views/panel.h"
#include "views/plot/plot_imgui.h"
#include "views/widgets.h"

namespace tw {
namespace {

struct Setting {
  float zoom;
  Language lang;
};
std::string name_of(const Setting& s) {
  return std::string(s.lang == Language::Zh ? "zh " : "en ") + std::to_string(int(s.zoom * 100)) + "%";
}

class TextFit : public ::testing::TestWithParam<Setting> {
 protected:
  void SetUp() override {
    ASSERT_EQ(setenv("XDG_CONFIG_HOME", config_.path().c_str(), 1), 0);  // lesson progress lands here
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1280, 720);
    io.DeltaTime = 1.0f / 60.0f;
    set_language(GetParam().lang);
    app_.zoom = GetParam().zoom;
    load_fonts(TW_FONT_DIR, plot::kBaseFontSize * app_.ui_scale());
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    apply_theme(app_.theme, app_.ui_scale());
    take_fit_problems();
  }
  void TearDown() override {
    ImGui::DestroyContext();
    set_language(Language::En);
    unsetenv("XDG_CONFIG_HOME");
  }
  void frames(int n) {
    for (int i = 0; i < n; ++i) {
      ImGui::NewFrame();
      handle_shortcuts(app_);
      draw_main_menu(app_);
      draw_windows(app_);
      ImGui::Render();
    }
  }
  void expect_no_fit_problems(const std::string& what) {
    for (const std::string& p : take_fit_problems()) ADD_FAILURE() << name_of(GetParam()) << ", " << what << ": " << p;
  }
  testing::ScratchDir config_{"text-fit"};
  AppState app_ = make_app_state();
};

// Every step of every lesson: its header (< Previous, Step k of n, Next >) and its foot (Reset, Back to my work,
// Close lesson) inside the lesson window.
TEST_P(TextFit, TheLessonBarsButtonsShowWhole) {
  ASSERT_EQ(open_lesson_argument(app_, "1:2"), "");
  frames(3);
  take_fit_problems();  // the first frames lay out the new windows
  for (const char* step : {"1:1", "1:2", "2:6", "4:1"}) {
    ASSERT_EQ(open_lesson_argument(app_, step), "");
    frames(3);
    expect_no_fit_problems(std::string("lesson ") + step);
  }
}

// The View menu (opened as a click on it opens it) lies below the menu bar and above the screen's bottom edge.
TEST_P(TextFit, TheViewMenuFitsBelowTheMenuBar) {
  frames(2);
  ImGuiWindow* bar = ImGui::FindWindowByName("##MainMenuBar");
  ASSERT_NE(bar, nullptr);
  const float bar_bottom = bar->Pos.y + bar->Size.y;
  // BeginMenu's id inside the menu bar (BeginMenuBar pushes "##menubar").
  const ImGuiID view = ImHashStr(tr("View"), 0, ImHashStr("##menubar", 0, bar->ID));
  for (int i = 0; i < 3; ++i) {
    ImGui::NewFrame();
    if (i == 0) ImGui::OpenPopupEx(view, ImGuiPopupFlags_None);
    handle_shortcuts(app_);
    draw_main_menu(app_);
    draw_windows(app_);
    ImGui::Render();
  }
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  ASSERT_GE(g.OpenPopupStack.Size, 1) << "the View menu did not open";
  const ImGuiWindow* menu = g.OpenPopupStack[0].Window;
  ASSERT_NE(menu, nullptr);
  EXPECT_GE(menu->Pos.y, bar_bottom - 0.5f) << name_of(GetParam()) << ": the menu covers the menu bar";
  EXPECT_LE(menu->Pos.y + menu->Size.y, 720.5f) << name_of(GetParam()) << ": the menu runs below the screen";
}

// File > Open scene: the dialog, its list of presets and its Cancel button on screen.
TEST_P(TextFit, TheOpenSceneDialogKeepsCancelOnScreen) {
  frames(2);
  app_.file_dialogs.requested = FileDialog::OpenScene;
  frames(4);
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  ASSERT_EQ(g.OpenPopupStack.Size, 1) << "the dialog did not open";
  const ImGuiWindow* dialog = g.OpenPopupStack[0].Window;
  EXPECT_GE(dialog->Pos.y, -0.5f) << name_of(GetParam());
  EXPECT_LE(dialog->Pos.y + dialog->Size.y, 720.5f) << name_of(GetParam()) << ": the dialog runs below the screen";
  expect_no_fit_problems("Open scene");
}

// Every panel, alone in the panel area (as a lecture opens it): each choice's current value fits its combo.
TEST_P(TextFit, EveryPanelsChoicesShowTheirValueWhole) {
  for (PanelSlot& slot : app_.panels) {
    app_.show_start_page = false;
    for (PanelSlot& other : app_.panels) other.open = &other == &slot;
    app_.tiling.retile = true;
    frames(2);
    slot.panel->wait_idle();
    take_fit_problems();
    frames(2);
    expect_no_fit_problems("panel " + slot.info.id);
  }
}

INSTANTIATE_TEST_SUITE_P(Projector, TextFit,
                         ::testing::Values(Setting{1.5f, Language::En}, Setting{2.0f, Language::En},
                                           Setting{1.5f, Language::Zh}, Setting{2.0f, Language::Zh}),
                         [](const ::testing::TestParamInfo<Setting>& info) {
                           return std::string(info.param.lang == Language::Zh ? "zh" : "en") +
                                  std::to_string(int(info.param.zoom * 100));
                         });

}  // namespace
}  // namespace tw
