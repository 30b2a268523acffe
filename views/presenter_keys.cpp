#include "views/presenter_keys.h"

#include <imgui.h>
#include <imgui_internal.h>  // the navigation cursor a clicker's key must not move

#include <algorithm>

namespace tw {

namespace {

int g_taken_frame = -1;  // the frame whose step was taken (UI thread only)

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true); }

}  // namespace

// ImGui's keyboard navigation reads the same keys in NewFrame, before any panel runs: PageUp/PageDown/Home/End and
// the arrows submit a move request whose result lands in the next frame, on the first or last button of the focused
// window (Reset this step, Close lesson, the title bar's Focus), with its highlight and tooltip shown away from the
// mouse and Space then pressing it. The key was the clicker's: drop the request (and the init request a move with no
// current item makes), and keep any remembered item unhighlighted, so hovering follows the mouse again.
void keep_navigation_off_the_key() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  ImGui::NavMoveRequestCancel();
  if (g.NavInitRequestFromMove) {
    g.NavInitRequest = g.NavInitRequestFromMove = false;
    g.NavInitResultId = 0;
  }
  g.NavDisableHighlight = true;
  g.NavDisableMouseHover = false;
}

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
    keep_navigation_off_the_key();
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
