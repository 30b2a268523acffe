#include "app/app_state.h"

#include <imgui.h>

#include <chrono>

#include "views/handoffs.h"
#include "views/plot/text.h"

namespace tw {

void AppState::show_panel(const std::string& id) {
  PanelSlot* slot = find(id);
  if (!slot) return;
  slot->open = true;
  if (!focused.empty() && focused != id) toggle_focus(id);
  front_request = id;  // the window may not exist yet: brought in front after it is drawn (app/ui.cpp)
}

std::string AppState::front_panel() const {
  for (const auto& slot : panels)
    if (slot.open && slot.info.id == last_active) return last_active;
  return "";
}

PanelSlot* AppState::find(const std::string& id) {
  for (auto& slot : panels)
    if (slot.info.id == id) return &slot;
  return nullptr;
}

bool AppState::open_panel(const std::string& id) {
  PanelSlot* slot = find(id);
  if (!slot) return false;
  slot->open = true;
  return true;
}

float next_zoom(float zoom, int direction) {
  if (direction > 0) {
    for (float z : kZoomSteps)
      if (z > zoom + 1e-3f) return z;
    return kZoomMax;
  }
  float below = kZoomMin;
  for (float z : kZoomSteps)
    if (z < zoom - 1e-3f) below = z;
  return below;
}

void AppState::toggle_focus(const std::string& id) {
  if (id.empty() || id == focused) {
    // Back to the layout from before: the panel's window returns to where it was (its layout kept that place).
    if (PanelSlot* was = find(focused); was && was->layout.known) was->place_next_frame = true;
    unfocused = focused;
    focused.clear();
    return;
  }
  PanelSlot* slot = find(id);
  if (!slot) return;
  slot->open = true;
  focused = id;
}

AppState make_app_state() {
  AppState state;
  state.handoffs = std::make_shared<Handoffs>();
  for (auto& p : make_all_panels()) {
    p->set_handoffs(state.handoffs);
    PanelSlot slot;
    slot.info = p->info();
    slot.panel = std::move(p);
    state.panels.push_back(std::move(slot));
  }
  return state;
}

StartupWork prepare_startup(AppState& state, const std::string& font_dir, float font_pixels) {
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  StartupWork work;
  auto t = Clock::now();
  work.fonts = build_font_atlas(font_dir, font_pixels, &work.font_warning);
  work.fonts_ms = ms_since(t);
  t = Clock::now();
  plot::text_width("0", 12.0f);  // loads the figure font the first layout measures text with
  for (PanelSlot& slot : state.panels)
    if (slot.open) slot.panel->update();
  work.panels_ms = ms_since(t);
  return work;
}

// Windows overlap (a panel in front of the start page, a popup over a figure): a translucent background would let
// the text behind ghost through, so every window, child and popup background is fully opaque in both themes.
static void make_backgrounds_opaque(ImGuiStyle& style) {
  for (ImGuiCol_ c : {ImGuiCol_WindowBg, ImGuiCol_ChildBg, ImGuiCol_PopupBg, ImGuiCol_MenuBarBg})
    if (style.Colors[c].w > 0) style.Colors[c].w = 1.0f;
}

void apply_theme(Theme theme, float dpi_scale) {
  ImGuiStyle style;  // start from defaults so switching themes twice does not compound scaling
  if (theme == Theme::Dark) {
    ImGui::StyleColorsDark(&style);
  } else {
    ImGui::StyleColorsLight(&style);
    style.Colors[ImGuiCol_WindowBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    style.Colors[ImGuiCol_ChildBg] = ImVec4(1.0f, 1.0f, 1.0f, 1.0f);
    style.Colors[ImGuiCol_Text] = ImVec4(0.05f, 0.05f, 0.05f, 1.0f);
    style.WindowBorderSize = 1.0f;
    style.FrameBorderSize = 1.0f;
  }
  make_backgrounds_opaque(style);
  style.WindowRounding = 4.0f;
  style.FrameRounding = 3.0f;
  style.ScaleAllSizes(dpi_scale);
  ImGui::GetStyle() = style;
}

}  // namespace tw
