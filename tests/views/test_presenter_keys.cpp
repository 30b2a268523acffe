// The presenter's keys (views/presenter_keys): a clicker's PageDown/PageUp and the arrows step once per press, the
// first taker in a frame gets the step, text fields keep their keys.
#include "views/presenter_keys.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <string>

namespace tw {
namespace {

class PresenterKeys : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(800, 600);
    io.DeltaTime = 1.0f / 60.0f;
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = 100 + k;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  }
  void TearDown() override { ImGui::DestroyContext(); }
  // Starts a frame with `key` (an ImGuiKey, or -1) held.
  static void begin(int key) {
    ImGuiIO& io = ImGui::GetIO();
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeysDown[100 + k] = (k == key);
    ImGui::NewFrame();
  }
  static void end() { ImGui::Render(); }
  // One frame with `key` held, then one with it released: the step taken in the first.
  static PresenterStep tap(int key) {
    begin(key);
    const PresenterStep step = take_presenter_step();
    end();
    begin(-1);
    end();
    return step;
  }
};

TEST_F(PresenterKeys, ClickerAndArrowKeysMapToSteps) {
  EXPECT_EQ(tap(ImGuiKey_PageDown), PresenterStep::Next);
  EXPECT_EQ(tap(ImGuiKey_RightArrow), PresenterStep::Next);
  EXPECT_EQ(tap(ImGuiKey_PageUp), PresenterStep::Previous);
  EXPECT_EQ(tap(ImGuiKey_LeftArrow), PresenterStep::Previous);
  EXPECT_EQ(tap(ImGuiKey_Home), PresenterStep::First);
  EXPECT_EQ(tap(ImGuiKey_End), PresenterStep::Last);
  EXPECT_EQ(tap(ImGuiKey_Tab), PresenterStep::None);
  EXPECT_EQ(tap(-1), PresenterStep::None);
}

TEST_F(PresenterKeys, OneClickIsTakenOnceAndOnlyInItsFrame) {
  begin(ImGuiKey_PageDown);
  EXPECT_EQ(peek_presenter_step(), PresenterStep::Next);
  EXPECT_EQ(take_presenter_step(), PresenterStep::Next);
  EXPECT_EQ(take_presenter_step(), PresenterStep::None) << "a lesson bar and a stepper never both step";
  EXPECT_EQ(peek_presenter_step(), PresenterStep::Next);
  end();
  begin(ImGuiKey_PageDown);  // still held: no new press, no repeat yet
  EXPECT_EQ(take_presenter_step(), PresenterStep::None);
  end();
}

TEST_F(PresenterKeys, ATextFieldKeepsItsKeys) {
  std::string text = "abc";
  begin(-1);
  ImGui::Begin("w");
  ImGui::SetKeyboardFocusHere();
  ImGui::InputText("##t", text.data(), text.size() + 1);
  ImGui::End();
  end();
  for (int i = 0; i < 2; ++i) {  // the focus request lands a frame later
    begin(-1);
    ImGui::Begin("w");
    ImGui::InputText("##t", text.data(), text.size() + 1);
    ImGui::End();
    end();
  }
  begin(ImGuiKey_RightArrow);
  ASSERT_TRUE(ImGui::GetIO().WantTextInput);
  EXPECT_EQ(take_presenter_step(), PresenterStep::None);
  end();
}

TEST(PresenterSteps, ApplyClampsAndJumps) {
  int i = 3;
  EXPECT_TRUE(apply_presenter_step(PresenterStep::Next, &i, 1, 4));
  EXPECT_EQ(i, 4);
  EXPECT_FALSE(apply_presenter_step(PresenterStep::Next, &i, 1, 4));
  EXPECT_EQ(i, 4);
  EXPECT_TRUE(apply_presenter_step(PresenterStep::First, &i, 1, 4));
  EXPECT_EQ(i, 1);
  EXPECT_FALSE(apply_presenter_step(PresenterStep::Previous, &i, 1, 4));
  EXPECT_TRUE(apply_presenter_step(PresenterStep::Last, &i, 1, 4));
  EXPECT_EQ(i, 4);
  EXPECT_FALSE(apply_presenter_step(PresenterStep::Next, &i, 0, -1)) << "nothing to step through";
  EXPECT_EQ(i, 4);
}

}  // namespace
}  // namespace tw
