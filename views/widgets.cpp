#include "views/widgets.h"

#include <imgui.h>

namespace tw {

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void panel_explanation(const char* text) {
  if (ImGui::CollapsingHeader("About this panel", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
  }
}

void empty_state(const char* text) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size = ImGui::CalcTextSize(text, nullptr, false, avail.x);
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + (avail.x - size.x) * 0.5f);
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (avail.y - size.y) * 0.4f);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + avail.x);
  ImGui::TextDisabled("%s", text);
  ImGui::PopTextWrapPos();
}

void check_mark(bool ok, const char* label) {
  const ImVec4 color = ok ? ImVec4(0.20f, 0.70f, 0.30f, 1.0f) : ImVec4(0.85f, 0.20f, 0.20f, 1.0f);
  ImGui::TextColored(color, "%s", ok ? "\u2713" : "\u2717");
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

void warning_text(const char* text) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.10f, 1.0f), "%s", text);
  ImGui::PopTextWrapPos();
}

}  // namespace tw
