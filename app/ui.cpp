// [SECTION] index
//   menus     : File / View / Help
//   overview  : the list of panels with their one-line descriptions
//   help      : About and Keyboard shortcuts windows
//   start     : the start page (lecture presets as cards)
//   tiling    : first positions of the panel windows (app/layout.h)
//   panels    : one window per open panel, dispatched in one loop
//   shortcuts : global keys
#include <imgui.h>

#include <algorithm>

#include <map>

#include "app/app_state.h"
#include "app/file_menu.h"
#include "app/layout.h"
#include "app/start_presets.h"
#include "app/texture_gl.h"
#include "views/model_handoff.h"
#include "views/start_page.h"
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
    if (ImGui::MenuItem("Tile open panels")) state.tiling.retile = true;
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
    ImGui::MenuItem("Start page", nullptr, &state.show_start_page);
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
static WorkLayout work_layout(const AppState& state) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  (void)state;
  const float scale = ImGui::GetFontSize() / plot::kBaseFontSize;
  // The work area leaves out the main menu bar only from the frame after it was first drawn: on the first frame,
  // take the bar's height off by hand so no window opens under it.
  const float bar = ImGui::GetFrameHeight();
  const float top = std::max(vp->WorkPos.y, vp->Pos.y + bar);
  const float height = vp->WorkSize.y - (top - vp->WorkPos.y);
  return split_work_area({vp->WorkPos.x, top, vp->WorkSize.x, height}, scale, min_panel_cell(scale).w);
}

static void set_next_window_rect(const WinRect& r, ImGuiCond cond) {
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), cond);
}

static void draw_overview(AppState& state) {
  set_next_window_rect(work_layout(state).side, ImGuiCond_FirstUseEver);
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
      // On its own wrapped line under the name, so a narrow overview column never cuts a description off.
      ImGui::Indent(ImGui::GetFontSize() * 1.5f);
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", slot->info.description.c_str());
      ImGui::PopTextWrapPos();
      ImGui::Unindent(ImGui::GetFontSize() * 1.5f);
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

// [SECTION] start
// The start page takes the panel area beside the overview and comes to the front whenever it is opened.
static void draw_start_page(AppState& state, const DrawContext& ctx) {
  if (!state.start_presets) state.start_presets = std::make_shared<StartPresets>();
  StartPresets& sp = *state.start_presets;
  sp.refresh();
  sp.take_thumbnails(create_picture_texture);
  if (!state.tiling.start_page_was_open) {  // just opened (start-up, Help > Start page): in front, in place
    set_next_window_rect(work_layout(state).panels, ImGuiCond_Always);
    ImGui::SetNextWindowFocus();
  }
  if (!ImGui::Begin("Start", &state.show_start_page)) {
    ImGui::End();
    return;
  }
  const int clicked = draw_start_cards(sp.cards(), sp.dir(), ctx);
  ImGui::End();
  if (clicked >= 0 && size_t(clicked) < sp.presets().size() &&
      load_scene_into_state(state, sp.presets()[size_t(clicked)].path))
    state.show_start_page = false;  // the lecture's panels take its place
}

// [SECTION] tiling
// A panel seen for the first time gets a cell of the panel area: panels opened together (start-up, a scene, "Open
// all panels") share a grid of equal cells, repeated as pages when there are more than fit (app/layout.h); one
// panel gets the whole area. Windows restored by a scene or moved by the user keep their place (FirstUseEver),
// except after View > Tile open panels, which places every open panel again.
struct Placement {
  WinRect rect;
  ImGuiCond cond = ImGuiCond_FirstUseEver;
};
static std::map<std::string, Placement> place_panels(AppState& state) {
  WindowTiling& t = state.tiling;
  // Page 1 in front: windows created this frame stack in panel order, so the front page is focused a frame later.
  for (const std::string& name : t.bring_front) ImGui::SetWindowFocus(name.c_str());
  t.bring_front.clear();
  std::vector<PanelSlot*> batch;
  for (auto& slot : state.panels) {
    if (!slot.open) continue;
    const bool seen = std::find(t.placed.begin(), t.placed.end(), slot.info.id) != t.placed.end();
    if (t.retile || !seen) batch.push_back(&slot);
    if (!seen) t.placed.push_back(slot.info.id);
  }
  const ImGuiCond cond = t.retile ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  t.retile = false;
  std::map<std::string, Placement> out;
  if (batch.empty()) return out;
  const float scale = ImGui::GetFontSize() / plot::kBaseFontSize;
  const TilePlan plan = tile_panels(work_layout(state).panels, static_cast<int>(batch.size()), min_panel_cell(scale),
                                    ImGui::GetStyle().ItemSpacing.x * 0.5f);
  for (size_t i = 0; i < batch.size(); ++i) {
    out[batch[i]->info.id] = {plan.cells[i], cond};
    if (plan.page_of[i] == 0 && plan.pages > 1) t.bring_front.push_back(batch[i]->info.name);
  }
  return out;
}

// [SECTION] panels
void draw_windows(AppState& state) {
  if (state.show_overview) draw_overview(state);
  if (state.show_about) draw_about(state);
  if (state.show_shortcuts) draw_shortcuts(state);
  draw_file_dialogs(state);

  const DrawContext ctx{.theme = state.theme, .dpi_scale = state.dpi_scale, .exports = &state.exports};
  if (state.show_start_page) draw_start_page(state, ctx);
  state.tiling.start_page_was_open = state.show_start_page;
  const std::map<std::string, Placement> placements = place_panels(state);
  // A panel handed something to another ("Open in forward stepper"): show the receiver in front.
  const std::string focus = take_focus_request();
  if (PanelSlot* target = focus.empty() ? nullptr : state.find(focus)) target->open = true;
  for (auto& slot : state.panels) {
    if (!slot.open) continue;
    if (slot.info.id == focus) ImGui::SetNextWindowFocus();
    slot.panel->update();
    if (const auto it = placements.find(slot.info.id); it != placements.end())
      set_next_window_rect(it->second.rect, it->second.cond);
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
  if (io.KeyCtrl && io.KeyShift && ImGui::IsKeyPressed('O', false)) {
    state.show_overview = true;
    ImGui::SetWindowFocus("Overview");  // on a narrow screen it shares the panels' place: bring it in front
  }
  if (ImGui::IsKeyPressed(kKeyF1, false)) state.show_shortcuts = !state.show_shortcuts;
  handle_file_shortcuts(state);  // Ctrl+O, Ctrl+S, Ctrl+E
}

}  // namespace tw
