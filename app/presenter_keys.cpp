// Presenter keys (app/presenter_keys.h).
#include "app/presenter_keys.h"

#include <imgui.h>

namespace tw {

int presenter_step() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt) return 0;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown), true)) return +1;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp), true)) return -1;
  return 0;
}

}  // namespace tw
