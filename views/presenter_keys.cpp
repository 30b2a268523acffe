#include "views/presenter_keys.h"

#include <imgui.h>
#include <imgui_internal.h>  // the navigation cursor a clicker's key must not move

#include <algorithm>

namespace tw {

namespace {

int g_taken_frame = -1;  // the frame whose step was taken (UI thread only)

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true); }

}  // namespace

PresenterStep peek_presenter_step() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || io.KeySuper) return PresenterStep::None;
  if (pressed(ImGuiKey_PageDown) || pressed(ImGuiKey_RightArrow)) return PresenterStep::Next;
  if (pressed(ImGuiKey_PageUp) || pressed(ImGuiKey_LeftArrow)) return PresenterStep::Previous;
  if (pressed(ImGuiKey_Home)) return PresenterStep::First;
  if (pressed(ImGuiKey_End)) return PresenterStep::Last;
  return PresenterStep::None;
}

PresenterStep take_presenter_step() {
  if (g_taken_frame == ImGui::GetFrameCount()) return PresenterStep::None;
  const PresenterStep step = peek_presenter_step();
  if (step != PresenterStep::None) {
    g_taken_frame = ImGui::GetFrameCount();
    // ImGui's keyboard navigation also read PageUp/PageDown and put its cursor on a button of the focused window;
    // the key was the clicker's, so no item is shown as keyboard-hovered (its tooltip would pop up away from the
    // mouse): hovering follows the mouse again.
    ImGuiContext& g = *ImGui::GetCurrentContext();
    g.NavDisableHighlight = true;
    g.NavDisableMouseHover = false;
  }
  return step;
}

bool apply_presenter_step(PresenterStep step, int* index, int first, int last) {
  if (last < first) return false;
  const int before = *index;
  switch (step) {
    case PresenterStep::None: break;
    case PresenterStep::Next: *index = std::clamp(*index + 1, first, last); break;
    case PresenterStep::Previous: *index = std::clamp(*index - 1, first, last); break;
    case PresenterStep::First: *index = first; break;
    case PresenterStep::Last: *index = last; break;
  }
  return *index != before;
}

}  // namespace tw
