#pragma once
// A translated ImGui label whose ID stays the same in every language: "显示###id" is drawn as "显示" and
// identified by "id", so open headers, focus and saved window state survive a language switch.
//   ImGui::CollapsingHeader(imgui_label(tr("Input"), "input").c_str());

#include <string>

namespace tw {

inline std::string imgui_label(const char* text, const char* id) { return std::string(text) + "###" + id; }

}  // namespace tw
