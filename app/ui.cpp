// [SECTION] index
//   menus     : File / View / Help
//   overview  : the list of panels with their one-line descriptions
//   help      : About and Keyboard shortcuts windows
//   panels    : one window per open panel, dispatched in one loop
//   shortcuts : global keys
#include <imgui.h>

#include <algorithm>

#include <map>

#include "app/app_state.h"
#include "app/file_menu.h"
#include "views/model_handoff.h"
#include "views/widgets.h"

namespace tw {

namespace {

struct Shortcut {
  const char* keys;
  const char* action;
};
constexpr Shortcut kShortcuts[] = {
    {"Ctrl+Q", "Quit"},
    {"Ctrl+O", "Open a scene file or a lecture preset"},
    {"Ctrl+S", "Save the scene (open panels, every control, theme)"},
    {"Ctrl+E", "Export every figure of the open panels (PNG, SVG, CSV)"},
    {"Ctrl+T", "Switch between dark and print theme"},
    {"F1", "Show this list of keyboard shortcuts"},
    {"Ctrl+Shift+O", "Show the panel overview"},
    {"Ctrl+click on a slider", "Type an exact value"},
    {"Mouse wheel over a figure", "Zoom; drag to pan; double-click to reset"},
    {"Left / Right arrow", "Previous / next step in the forward-pass stepper"},
};

std::map<std::string, std::vector<PanelSlot*>> panels_by_category(AppState& state) {
  std::map<std::string, std::vector<PanelSlot*>> groups;
  for (auto& slot : state.panels) groups[slot.info.category].push_back(&slot);
  return groups;
}

}  // namespace

// [SECTION] menus
void draw_main_menu(AppState& state) {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    draw_file_menu_items(state);  // Open scene / Save scene / Export figures (app/file_menu.cpp)
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) state.quit_requested = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    ImGui::MenuItem("Overview", "Ctrl+Shift+O", &state.show_overview);
    ImGui::Separator();
    for (auto& [category, slots] : panels_by_category(state)) {
      ImGui::TextDisabled("%s", category.c_str());
      for (PanelSlot* slot : slots) {
        ImGui::MenuItem(slot->info.name.c_str(), nullptr, &slot->open);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", slot->info.description.c_str());
      }
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Open all panels"))
      for (auto& slot : state.panels) slot.open = true;
    if (ImGui::MenuItem("Close all panels"))
      for (auto& slot : state.panels) slot.open = false;
    ImGui::Separator();
    if (ImGui::BeginMenu("Theme")) {
      if (ImGui::MenuItem("Dark (screen)", "Ctrl+T", state.theme == Theme::Dark)) state.theme = Theme::Dark;
      if (ImGui::MenuItem("Print (white background)", "Ctrl+T", state.theme == Theme::Print))
        state.theme = Theme::Print;
      ImGui::EndMenu();
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::MenuItem("Keyboard shortcuts", "F1", &state.show_shortcuts);
    ImGui::MenuItem("About Transformer Workbench", nullptr, &state.show_about);
    ImGui::EndMenu();
  }
  if (!state.status.empty()) {
    ImGui::Separator();
    ImGui::TextUnformatted(state.status.c_str());
  }
  ImGui::EndMainMenuBar();
}

// [SECTION] overview
static void draw_overview(AppState& state) {
  const float s = state.dpi_scale;
  ImGui::SetNextWindowPos(ImVec2(20 * s, 40 * s), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(520 * s, 560 * s), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Overview", &state.show_overview)) {
    ImGui::End();
    return;
  }
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(
      "Transformer Workbench: the math inside modern LLMs, one slider at a time. "
      "Softmax(QK\u1D40/\u221Ad\u2096)V, RoPE rotations by m\u00B7\u03B8\u2096, ALiBi slopes m = 2^(\u22128k/n), "
      "RMSNorm x/\u221A(mean(x\u00B2)+\u03B5)\u00B7\u03B3, SwiGLU W\u2082(silu(W\u2081x) \u2299 W\u2083x).");
  ImGui::PopTextWrapPos();
  if (!state.font_warning.empty()) warning_text(state.font_warning.c_str());
  ImGui::Separator();
  if (state.panels.empty()) {
    empty_state("No panels are registered in this build.");
    ImGui::End();
    return;
  }
  for (auto& [category, slots] : panels_by_category(state)) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", category.c_str());
    ImGui::Separator();
    for (PanelSlot* slot : slots) {
      ImGui::PushID(slot->info.id.c_str());
      if (ImGui::Button(slot->open ? "Focus" : "Open")) {
        slot->open = true;
        ImGui::SetWindowFocus(slot->info.name.c_str());
      }
      ImGui::SameLine();
      ImGui::TextUnformatted(slot->info.name.c_str());
      ImGui::SameLine();
      ImGui::TextDisabled("\u2014 %s", slot->info.description.c_str());
      ImGui::PopID();
    }
  }
  ImGui::End();
}

// [SECTION] help
static void draw_about(AppState& state) {
  if (!ImGui::Begin("About Transformer Workbench", &state.show_about, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::End();
    return;
  }
  ImGui::Text("Transformer Workbench %s", TW_VERSION);
  ImGui::TextUnformatted("Explore softmax scaling, RoPE, ALiBi, masks, GQA, LoRA and a LLaMA-style forward pass.");
  ImGui::TextUnformatted("Offline and deterministic: every figure exports to PNG, SVG and CSV.");
  ImGui::Text("Dear ImGui %s", ImGui::GetVersion());
  ImGui::End();
}

static void draw_shortcuts(AppState& state) {
  if (!ImGui::Begin("Keyboard shortcuts", &state.show_shortcuts, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::End();
    return;
  }
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    for (const Shortcut& sc : kShortcuts) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(sc.keys);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(sc.action);
    }
    ImGui::EndTable();
  }
  ImGui::End();
}

// [SECTION] panels
void draw_windows(AppState& state) {
  if (state.show_overview) draw_overview(state);
  if (state.show_about) draw_about(state);
  if (state.show_shortcuts) draw_shortcuts(state);
  draw_file_dialogs(state);

  const DrawContext ctx{.theme = state.theme, .dpi_scale = state.dpi_scale, .exports = &state.exports};
  const float s = state.dpi_scale;
  int index = 0;
  // A panel handed something to another ("Open in forward stepper"): show the receiver in front.
  const std::string focus = take_focus_request();
  if (PanelSlot* target = focus.empty() ? nullptr : state.find(focus)) target->open = true;
  for (auto& slot : state.panels) {
    ++index;
    if (!slot.open) continue;
    if (slot.info.id == focus) ImGui::SetNextWindowFocus();
    slot.panel->update();
    // Cascade first-time positions so a fresh "all panels" layout is not one stack.
    // First-time placement: right of the overview, cascaded, and filling the rest of the screen so figures
    // are not squeezed (at least 900 × 700 when the screen is small).
    ImVec2 pos((560 + 30 * (index % 8)) * s, (40 + 30 * (index % 8)) * s);
    const ImVec2 work = ImGui::GetMainViewport()->WorkSize;
    const ImVec2 size(std::max(900 * s, work.x - pos.x - 10 * s), std::max(700 * s, work.y - pos.y - 10 * s));
    // The minimum size must not push the window off screen: slide it left/up instead (never past the corner).
    pos.x = std::max(0.0f, std::min(pos.x, work.x - size.x - 10 * s));
    pos.y = std::max(20 * s, std::min(pos.y, work.y - size.y - 10 * s));
    ImGui::SetNextWindowPos(pos, ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(size, ImGuiCond_FirstUseEver);
    if (ImGui::Begin(slot.info.name.c_str(), &slot.open)) slot.panel->draw(ctx);
    ImGui::End();
  }
}

// [SECTION] shortcuts
void handle_shortcuts(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  // GLFW key codes for letters are their ASCII capitals; F1 via ImGui's key map is not available in 1.86,
  // so the GLFW code (290) is used directly.
  constexpr int kKeyF1 = 290;
  if (io.KeyCtrl && ImGui::IsKeyPressed('Q', false)) state.quit_requested = true;
  if (io.KeyCtrl && !io.KeyShift && ImGui::IsKeyPressed('T', false))
    state.theme = state.theme == Theme::Dark ? Theme::Print : Theme::Dark;
  if (io.KeyCtrl && io.KeyShift && ImGui::IsKeyPressed('O', false)) state.show_overview = true;
  if (ImGui::IsKeyPressed(kKeyF1, false)) state.show_shortcuts = !state.show_shortcuts;
  handle_file_shortcuts(state);  // Ctrl+O, Ctrl+S, Ctrl+E
}

}  // namespace tw
