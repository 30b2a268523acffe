#include "app/render/window_culling.h"

#include <imgui.h>
#include <imgui_internal.h>  // the windows' display order, rectangles and hidden-frame counters

#include <algorithm>
#include <string>
#include <vector>

#include "app/render/render_damage.h"

namespace tw {

namespace {

std::vector<std::string> g_behind;  // keep_window_behind_this_frame (UI thread)
int g_behind_frame = -1;

bool covers(const ImGuiWindow& front, const ImRect& back) {
  if (front.ParentWindow || front.Collapsed || !(front.Active || front.WasActive)) return false;
  if (front.Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_NoBackground)) return false;
  return front.Rect().Contains(back);
}

}  // namespace

bool hide_window_if_covered(const char* name) {
  if (!fast_render_on()) return false;  // built or run without app/render's shortcuts (render_damage.h)
  const ImGuiContext& g = *GImGui;
  ImGuiWindow* window = ImGui::FindWindowByName(name);
  if (!window || !window->WasActive || window->Collapsed) return false;
  constexpr ImGuiNextWindowDataFlags kMoves = ImGuiNextWindowDataFlags_HasPos | ImGuiNextWindowDataFlags_HasSize |
                                              ImGuiNextWindowDataFlags_HasFocus | ImGuiNextWindowDataFlags_HasCollapsed;
  if (g.NextWindowData.Flags & kMoves) return false;
  if (g.NavWindow && g.NavWindow->RootWindow == window) return false;  // the focused window is never hidden
  // Every window in front: g.Windows is in display order, back to front. Window backgrounds are opaque in every
  // theme (app_state.cpp: make_backgrounds_opaque), so one window that contains this one's rectangle hides it;
  // a window in front that is itself hidden is covered by another one in front of both, which then covers this.
  const ImRect rect = window->Rect();
  bool in_front = false;
  for (ImGuiWindow* other : g.Windows) {
    if (other == window) {
      in_front = true;
      continue;
    }
    if (in_front && covers(*other, rect)) {
      // Begin decrements the counter before it reads it: 2 hides exactly this frame (imgui.cpp, Begin).
      window->HiddenFramesCanSkipItems = 2;
      return true;
    }
  }
  return false;
}

void keep_window_behind_this_frame(const char* name) {
  if (g_behind_frame != ImGui::GetFrameCount()) g_behind.clear();
  g_behind_frame = ImGui::GetFrameCount();
  g_behind.emplace_back(name);
}

bool begin_window_unless_covered(const char* name, bool* p_open, int flags) {
  hide_window_if_covered(name);
  const bool expanded = ImGui::Begin(name, p_open, flags);
  if (!expanded || g_behind_frame != ImGui::GetFrameCount()) return expanded;
  const auto it = std::find(g_behind.begin(), g_behind.end(), name);
  if (it == g_behind.end()) return expanded;
  g_behind.erase(it);
  // Created or placed this frame, but behind the page that comes to the front next frame: nothing to build or
  // draw. Hidden now, after Begin, because a window created this frame has no counter to set beforehand.
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  window->Hidden = true;
  window->SkipItems = true;
  return false;
}

}  // namespace tw
