// The file dialogs' modals are begun after every other window of the frame. ImGui 1.86 asserts
// (imgui.cpp: 'blocking_modal != NULL') when a window appears in a frame after a modal that was not shown in the
// previous frame has already been begun in it: GetTopMostPopupModal() finds the modal, FindBlockingModal() skips it
// because it was not active last frame. A random GUI soak hit it after 384 s; these frames hit it every time.
#include <gtest/gtest.h>
#include <imgui.h>

#include <imgui_internal.h>
#include <string>

#include "app/app_state.h"
#include "app/file_menu.h"
#include "app/fonts.h"
#include "views/plot/theme.h"

namespace tw {
namespace {

class ModalOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.0f / 60.0f;
    load_fonts(TW_FONT_DIR, plot::kBaseFontSize);
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(); }
  static void frames(AppState& app, int n) {
    for (int i = 0; i < n; ++i) {
      ImGui::NewFrame();
      handle_shortcuts(app);
      draw_main_menu(app);
      draw_windows(app);
      ImGui::Render();
    }
  }
  // The modal in front of every window once it shows.
  static void expect_modal_in_front(const char* name) {
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    ASSERT_EQ(g.OpenPopupStack.Size, 1) << "the dialog is open";
    const ImGuiWindow* modal = g.OpenPopupStack[0].Window;
    ASSERT_NE(modal, nullptr);
    // Titles are "<label in the interface language>###<English label>" (app/file_menu.cpp): compare the stable id.
    const std::string shown = modal->Name;
    EXPECT_EQ(shown.substr(shown.find("###") + 3), name);
    EXPECT_EQ(ImGui::GetTopMostPopupModal(), modal);
    int front = -1;
    for (int i = 0; i < g.Windows.Size; ++i)
      if (g.Windows[i]->Active && !(g.Windows[i]->Flags & ImGuiWindowFlags_ChildWindow)) front = i;
    ASSERT_GE(front, 0);
    EXPECT_EQ(g.Windows[front], modal) << "in front: " << g.Windows[front]->Name;
  }
};

TEST_F(ModalOrder, APanelAppearingInTheFrameADialogOpensStaysBehindIt) {
  AppState app = make_app_state();
  app.show_start_page = false;
  frames(app, 2);
  // One frame: the Open scene dialog is asked for and a panel window appears.
  app.file_dialogs.requested = FileDialog::OpenScene;
  app.open_panel("softmax");
  frames(app, 3);
  expect_modal_in_front("Open scene");
}

TEST_F(ModalOrder, PanelsReappearingWhileADialogIsOpen) {
  AppState app = make_app_state();
  app.show_start_page = false;
  app.open_panel("softmax");
  app.open_panel("rope");
  frames(app, 2);
  app.file_dialogs.requested = FileDialog::SaveScene;
  frames(app, 2);
  // Focus in and out (F11 works while a dialog is open): the other panels vanish, then appear again, each time in
  // a frame where the dialog is shown too.
  for (int i = 0; i < 3; ++i) {
    app.toggle_focus("softmax");
    frames(app, 2);
    app.toggle_focus("softmax");
    app.file_dialogs.requested = FileDialog::ExportFigures;  // closes nothing: reopening an open popup keeps it
    frames(app, 2);
  }
  const ImGuiContext& g = *ImGui::GetCurrentContext();
  EXPECT_GE(g.OpenPopupStack.Size, 1);
}

}  // namespace
}  // namespace tw
