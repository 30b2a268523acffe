#include "app/gui_report.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <nlohmann/json.hpp>

#include "app/app_state.h"
#include "app/slide_mode.h"
#include "core/io/atomic_file.h"
#include "views/plot/plot_imgui.h"

namespace tw {

bool write_gui_report(const AppState& state, const std::string& path, std::string* error) {
  nlohmann::ordered_json report;
  report["frame"] = ImGui::GetFrameCount();
  report["theme"] = state.theme == Theme::Print ? "print" : "dark";
  report["zoom"] = state.zoom;
  report["front_panel"] = state.front_panel();
  report["status"] = state.status;
  auto rect = [](ImVec2 pos, ImVec2 size) { return nlohmann::ordered_json{pos.x, pos.y, size.x, size.y}; };
  nlohmann::ordered_json windows = nlohmann::ordered_json::array();  // back to front
  for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    if (!w->Active || (w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip))) continue;
    if (std::string(w->Name) == "##MainMenuBar") {
      report["menu_bar"] = rect(w->Pos, w->Size);
      continue;
    }
    windows.push_back({{"name", w->Name}, {"rect", rect(w->Pos, w->Size)}});
  }
  report["windows"] = std::move(windows);
  nlohmann::ordered_json figures = nlohmann::ordered_json::array();
  for (const plot::FigureOnScreen& f : plot::figures_on_screen())
    figures.push_back({{"id", f.id},
                       {"rect", {f.x, f.y, f.w, f.h}},
                       {"visible", {f.visible_x, f.visible_y, f.visible_w, f.visible_h}},
                       {"window_scroll_y", f.window_scroll_y},
                       {"zoomed", f.zoomed}});
  report["figures"] = std::move(figures);
  // Slide mode: on or off, the panel and figure chosen, the controls, and where the last slide frame put them.
  nlohmann::ordered_json slide = {{"on", state.slide.on()},
                                  {"panel", state.slide.panel},
                                  {"figure", state.slide.figure},
                                  {"controls", state.slide.controls}};
  if (state.slide.on()) {
    const SlideOnScreen& on = last_slide_on_screen();
    auto r = [](const SlideRect& s) { return nlohmann::ordered_json{s.x, s.y, s.w, s.h}; };
    slide["window"] = r(on.window);
    slide["figure_rect"] = r(on.figure);
    nlohmann::ordered_json controls = nlohmann::ordered_json::array();
    for (const SlideRect& c : on.controls) controls.push_back(r(c));
    slide["control_rects"] = std::move(controls);
  }
  report["slide"] = std::move(slide);
  return write_file_atomic(path, report.dump(1) + "\n", error);
}

}  // namespace tw
