// [SECTION] index
//   menus     : File / View / Help
//   overview  : the list of panels with their one-line descriptions
//   help      : About and Keyboard shortcuts windows
//   presentation : zoom menu, window places from scenes, focus button, focus layout
//   start     : the start page (lecture presets as cards)
//   tiling    : first positions of the panel windows (app/layout.h)
//   panels    : one window per open panel, dispatched in one loop
//   shortcuts : global keys
#include <imgui.h>
#include <imgui_internal.h>  // the window's title bar rectangle, for the focus button in it

#include <algorithm>
#include <cmath>
#include <cstring>

#include <map>
#include <utility>

#include "app/app_state.h"
#include "app/file_menu.h"
#include "app/layout.h"
#include "app/lesson_bar.h"
#include "app/render/texture_gl.h"
#include "app/render/window_culling.h"
#include "app/slide_mode.h"
#include "app/start_presets.h"
#include "core/base/i18n.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/presenter_keys.h"
#include "views/start_page.h"
#include "views/widgets.h"

namespace tw {

namespace {

struct Shortcut {
  const char* keys;
  const char* action;
};
constexpr Shortcut kShortcuts[] = {
    {"Ctrl+Q", N_("Quit")},
    {"Ctrl+O", N_("Open a scene file or a lecture preset")},
    {"Ctrl+S", N_("Save the scene (open panels, every control, theme)")},
    {"Ctrl+E", N_("Export every figure of the open panels (PNG, SVG, CSV)")},
    {"Ctrl+T", N_("Switch between dark and print theme")},
    {"F1", N_("Show this list of keyboard shortcuts")},
    {"Ctrl+= / Ctrl+- / Ctrl+0", N_("Zoom text, controls and figures in / out / back to 100% (keypad + and - too)")},
    {"F11", N_("Focus: the active panel fills the window; F11 or Esc restores the layout")},
    {"Ctrl+B", N_("Collapse or show the focused panel's controls column")},
    {"Ctrl+Shift+O", N_("Show the panel overview")},
    {N_("Ctrl+click on a slider"), N_("Type an exact value")},
    {N_("Ctrl+wheel over a figure"),
     N_("Zoom (the wheel alone scrolls); drag to pan; double-click or Reset view to reset")},
    {N_("PageDown / PageUp (a clicker)"),
     N_("Next / previous step of the open lesson, else of the stepper; slide mode and focus stay on")},
    {N_("Right / Left arrow"), N_("The same as PageDown / PageUp")},
    {N_("Home / End"), N_("First / last step")},
    {"Esc", N_("Leave slide mode or focus")},
};

// [SECTION] presentation
// The panel F11 and Ctrl+B act on: the focused one, else the one last used, else the first open one.
PanelSlot* focus_target(AppState& state) {
  for (const std::string& id : {state.focused, state.last_active})
    if (PanelSlot* slot = state.find(id); slot && slot->open) return slot;
  for (PanelSlot& slot : state.panels)
    if (slot.open) return &slot;
  return nullptr;
}

void draw_presentation_menu_items(AppState& state) {
  if (ImGui::MenuItem(tr("Zoom in"), "Ctrl+=", false, state.zoom < kZoomMax)) state.zoom = next_zoom(state.zoom, +1);
  if (ImGui::MenuItem(tr("Zoom out"), "Ctrl+-", false, state.zoom > kZoomMin)) state.zoom = next_zoom(state.zoom, -1);
  if (ImGui::MenuItem(tr("Actual size (100%)"), "Ctrl+0", false, state.zoom != 1.0f)) state.zoom = 1.0f;
  PanelSlot* slot = focus_target(state);
  if (ImGui::MenuItem(tr("Focus the active panel"), "F11", !state.focused.empty(), slot != nullptr))
    state.toggle_focus(slot->info.id);
  if (ImGui::MenuItem(tr("Collapse its controls"), "Ctrl+B", slot && slot->controls_collapsed, slot != nullptr))
    slot->controls_collapsed = !slot->controls_collapsed;
}

// Before Begin: a window a scene placed goes there this frame, pulled onto a screen smaller than the one it was
// saved on (with a message, so the lecturer knows why it moved).
void place_window(AppState& state, WindowLayout& l, bool* place, const std::string& name, const std::string& id) {
  if (!*place) return;
  *place = false;
  if (!l.known) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float s = state.dpi_scale;
  // Below the menu bar as drawn this frame (the work area follows a zoomed bar only a frame later).
  const float top = menu_bar_bottom();
  const ImVec2 lo(vp->WorkPos.x, top), room(vp->WorkSize.x, vp->Pos.y + vp->Size.y - top);
  const ImVec2 size(std::min(l.w * s, room.x), std::min(l.h * s, room.y));
  const ImVec2 pos(std::clamp(vp->Pos.x + l.x * s, lo.x, lo.x + room.x - size.x),
                   std::clamp(vp->Pos.y + l.y * s, lo.y, lo.y + room.y - size.y));
  // Said when the screen is really smaller than the saved one; a nudge below a taller (zoomed) menu bar is not news.
  const float dx = l.w * s * 0.1f, dy = l.h * s * 0.1f;
  if (id != state.unfocused &&
      (size.x < l.w * s - dx || size.y < l.h * s - dy || std::abs(pos.x - (vp->Pos.x + l.x * s)) > dx ||
       std::abs(pos.y - (vp->Pos.y + l.y * s)) > dy))
    state.status = subst(tr("{0}: its saved place was off this screen, so it was moved onto it"), {name});
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(size, ImGuiCond_Always);
  ImGui::SetNextWindowCollapsed(l.collapsed, ImGuiCond_Always);
}

// After Begin: where the current window is now, for the session and the next scene saved. A window held just
// below a menu bar that a zoom made taller keeps its place as saved (the push is not the user's): saving at 200%
// and reopening at 100% gives no offset of one menu bar.
void record_window(const AppState& state, WindowLayout& l) {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  const ImVec2 origin = ImGui::GetMainViewport()->Pos;
  const float s = state.dpi_scale;
  const bool pushed_by_bar = l.known && std::abs(w->Pos.y - menu_bar_bottom()) < 0.5f && origin.y + l.y * s < w->Pos.y;
  // ... and the height it lost to reach only the screen's bottom edge from there.
  const float screen_bottom = ImGui::GetMainViewport()->Pos.y + ImGui::GetMainViewport()->Size.y;
  const bool shortened_by_bar =
      pushed_by_bar && std::abs(w->Pos.y + w->SizeFull.y - screen_bottom) < 0.5f && l.h * s > w->SizeFull.y;
  l.known = true;
  l.x = (w->Pos.x - origin.x) / s;
  if (!pushed_by_bar) l.y = (w->Pos.y - origin.y) / s;
  l.w = w->SizeFull.x / s;  // the size it has when expanded, also while collapsed to its title bar
  if (!shortened_by_bar) l.h = w->SizeFull.y / s;
  l.collapsed = w->Collapsed;
}

// A small button in the current window's title bar, left of its close button. Returns true when clicked.
bool title_bar_button(const char* label, const char* tooltip) {
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImRect title = w->TitleBarRect();
  const ImVec2 text = ImGui::CalcTextSize(label);
  const float close = ImGui::GetFontSize() + style.ItemInnerSpacing.x;  // the close button ImGui draws
  const float width = text.x + 2 * style.FramePadding.x;
  const ImVec2 max(title.Max.x - style.FramePadding.x - close - style.ItemInnerSpacing.x, title.Max.y - 2.0f);
  const ImRect bb(ImVec2(max.x - width, title.Min.y + 2.0f), max);
  if (bb.Min.x < title.Min.x + title.GetHeight() * 3) return false;  // no room: a very narrow window
  const ImGuiID id = w->GetID(label);
  ImGui::PushClipRect(title.Min, title.Max, false);
  bool clicked = false;
  if (ImGui::ItemAdd(bb, id)) {
    bool hovered = false, held = false;
    clicked = ImGui::ButtonBehavior(bb, id, &hovered, &held);
    const ImU32 col = ImGui::GetColorU32(held      ? ImGuiCol_ButtonActive
                                         : hovered ? ImGuiCol_ButtonHovered
                                                   : ImGuiCol_Button);
    ImGui::RenderFrame(bb.Min, bb.Max, col, false, style.FrameRounding);
    ImGui::RenderTextClipped(bb.Min, bb.Max, label, nullptr, &text, ImVec2(0.5f, 0.5f), &bb);
    if (hovered) ImGui::SetTooltip("%s", tooltip);
  }
  ImGui::PopClipRect();
  return clicked;
}

// Help > Start page: open, in front and in its place, whatever covers it (a panel, a focused panel, a slide).
void show_start_page_in_front(AppState& state) {
  if (state.slide.on()) leave_slide_mode(state);
  if (!state.focused.empty()) state.toggle_focus("");
  state.show_start_page = true;
  state.tiling.start_page_was_open = false;  // draw_start_page then places and focuses it as when it first opens
}

std::map<std::string, std::vector<PanelSlot*>> panels_by_category(AppState& state) {
  std::map<std::string, std::vector<PanelSlot*>> groups;
  for (auto& slot : state.panels) groups[slot.info.category].push_back(&slot);
  return groups;
}

}  // namespace

bool draw_panel_window(AppState& state, PanelSlot& slot, DrawContext ctx);

// [SECTION] menus
void draw_main_menu(AppState& state) {
  if (!ImGui::BeginMainMenuBar()) return;
  if (ImGui::BeginMenu(tr("File"))) {
    draw_file_menu_items(state);  // Open scene / Save scene / Export figures (app/file_menu.cpp)
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Quit"), "Ctrl+Q")) state.quit_requested = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("View"))) {
    ImGui::MenuItem(tr("Overview"), "Ctrl+Shift+O", &state.show_overview);
    ImGui::Separator();
    // One submenu per category: the whole menu fits a 1280×720 screen at 150%, so Theme and Language at its end
    // open on screen instead of below a scrolled list.
    for (auto& [category, slots] : panels_by_category(state)) {
      if (!ImGui::BeginMenu(tr(category.c_str()))) continue;
      for (PanelSlot* slot : slots) {
        // An open panel is brought in front (closing is the window's X): in a stacked layout the menu is how a
        // lecturer moves between panels.
        if (ImGui::MenuItem(tr(slot->info.name.c_str()), nullptr, slot->open)) state.show_panel(slot->info.id);
        if (ImGui::IsItemHovered()) plot::math_tooltip(tr(slot->info.description.c_str()));
      }
      ImGui::EndMenu();
    }
    ImGui::Separator();
    // Windows and presentation in submenus: the View menu stays shorter than a 1280×720 screen at 200% (taller, ImGui
    // moves it up over the menu bar).
    if (ImGui::BeginMenu(tr("Windows"))) {
      if (ImGui::MenuItem(tr("Open all panels")))
        for (auto& slot : state.panels) slot.open = true;
      if (ImGui::MenuItem(tr("Close all panels")))
        for (auto& slot : state.panels) slot.open = false;
      if (ImGui::MenuItem(tr("Tile open panels"))) state.tiling.retile = true;
      ImGui::EndMenu();
    }
    if (ImGui::BeginMenu(tr("Presentation"))) {
      draw_presentation_menu_items(state);
      ImGui::EndMenu();
    }
    draw_slide_menu(state);
    ImGui::Separator();
    if (ImGui::BeginMenu(tr("Theme"))) {
      if (ImGui::MenuItem(tr("Dark (screen)"), "Ctrl+T", state.theme == Theme::Dark)) state.theme = Theme::Dark;
      if (ImGui::MenuItem(tr("Print (white background)"), "Ctrl+T", state.theme == Theme::Print))
        state.theme = Theme::Print;
      ImGui::EndMenu();
    }
    // Each language is named in itself; the next frame is drawn in the new one (no restart).
    if (ImGui::BeginMenu(tr("Language"))) {
      if (ImGui::MenuItem("English", nullptr, language() == Language::En)) set_language(Language::En);
      if (ImGui::MenuItem("\xE7\xAE\x80\xE4\xBD\x93\xE4\xB8\xAD\xE6\x96\x87", nullptr, language() == Language::Zh))
        set_language(Language::Zh);  // 简体中文
      ImGui::EndMenu();
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(tr("Help"))) {
    // Opens the start page in front, also when it is open behind a panel (a second click does not close it unseen).
    if (ImGui::MenuItem(tr("Start page"), nullptr, state.show_start_page)) show_start_page_in_front(state);
    ImGui::MenuItem(tr("Keyboard shortcuts"), "F1", &state.show_shortcuts);
    ImGui::MenuItem(tr("About Transformer Workbench"), nullptr, &state.show_about);
    ImGui::EndMenu();
  }
  ImGui::Separator();
  ImGui::TextDisabled("%d%%", static_cast<int>(std::lround(state.zoom * 100)));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Zoom (Ctrl+= / Ctrl+- / Ctrl+0)"));
  if (std::string exported = plot::take_export_status(); !exported.empty()) state.status = std::move(exported);
  if (!state.status.empty()) {
    ImGui::Separator();
    ImGui::TextUnformatted(state.status.c_str());
  }
  ImGui::EndMainMenuBar();
}

// [SECTION] overview
static WorkLayout work_layout(const AppState& state) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float scale = ImGui::GetFontSize() / plot::kBaseFontSize;
  // Below the menu bar as drawn this frame: the work area leaves it out only a frame later (on the first frame, and
  // after a zoom changed its height: a zoom back from 200% left an 11-pixel band under a 150% bar).
  const float top = menu_bar_bottom();
  const float height = vp->Pos.y + vp->Size.y - top;
  // An open lesson keeps its column beside the panels at any width (never stacked over them).
  return split_work_area({vp->WorkPos.x, top, vp->WorkSize.x, height}, scale,
                         lesson_is_open(state) ? 0.0f : min_panel_cell(scale).w);
}

static void set_next_window_rect(const WinRect& r, ImGuiCond cond) {
  ImGui::SetNextWindowPos(ImVec2(r.x, r.y), cond);
  ImGui::SetNextWindowSize(ImVec2(r.w, r.h), cond);
}

static void draw_overview(AppState& state) {
  // After a resize its column is where the new size puts it (the panels beside it are tiled again for that size).
  const bool to_side = std::exchange(state.tiling.place_overview, false);
  set_next_window_rect(work_layout(state).side, to_side ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
  if (!to_side)
    place_window(state, state.overview_layout, &state.place_overview_next_frame, tr("Overview"), "overview");
  // Reappearing after a focus ended, it stays behind the panel that was focused.
  const bool expanded = ImGui::Begin((std::string(tr("Overview")) + "###Overview").c_str(), &state.show_overview,
                                     state.unfocused.empty() ? 0 : ImGuiWindowFlags_NoFocusOnAppearing);
  record_window(state, state.overview_layout);
  if (!expanded) {
    ImGui::End();
    return;
  }
  math_text(  // typeset like every other text with formulas (views/widgets.h)
      tr("Transformer Workbench: the math inside modern LLMs, one slider at a time. "
         "$\\mathrm{softmax}(QK^T/\\sqrt{d_k})V$, RoPE rotations by $m\\theta_k$, ALiBi slopes $m = 2^{-8k/n}$, "
         "RMSNorm $x/\\sqrt{\\mathrm{mean}(x^2)+\\epsilon}\\cdot\\gamma$, SwiGLU $W_2(\\mathrm{silu}(W_1 x) \\odot W_3 "
         "x)$."));
  if (!state.font_warning.empty()) warning_text(state.font_warning.c_str());
  ImGui::Separator();
  if (state.panels.empty()) {
    empty_state(tr("No panels are registered in this build."));
    ImGui::End();
    return;
  }
  for (auto& [category, slots] : panels_by_category(state)) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", tr(category.c_str()));
    ImGui::Separator();
    for (PanelSlot* slot : slots) {
      ImGui::PushID(slot->info.id.c_str());
      if (ImGui::Button(slot->open ? tr("Show") : tr("Open")))
        state.show_panel(slot->info.id);  // "Focus" is the title-bar action
      ImGui::SameLine();
      ImGui::TextUnformatted(tr(slot->info.name.c_str()));
      // On its own wrapped line under the name, so a narrow overview column never cuts a description off.
      ImGui::Indent(ImGui::GetFontSize() * 1.5f);
      math_text(tr(slot->info.description.c_str()), 0.0f, false, ImGui::GetColorU32(ImGuiCol_TextDisabled));
      ImGui::Unindent(ImGui::GetFontSize() * 1.5f);
      ImGui::PopID();
    }
  }
  ImGui::End();
}

// [SECTION] help
static void draw_about(AppState& state) {
  if (!ImGui::Begin((std::string(tr("About Transformer Workbench")) + "###About").c_str(), &state.show_about,
                    ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::End();
    return;
  }
  ImGui::Text("Transformer Workbench %s", TW_VERSION);
  ImGui::TextUnformatted(tr("Explore softmax scaling, RoPE, ALiBi, masks, GQA, LoRA and a LLaMA-style forward pass."));
  ImGui::TextUnformatted(tr("Offline and deterministic: every figure exports to PNG, SVG and CSV."));
  ImGui::Text("Dear ImGui %s", ImGui::GetVersion());
  ImGui::End();
}

// On screen at any zoom: at most 48 em wide and the screen's height below the menu bar (its rows wrap, and scroll
// when even that is too short); at 200% the unwrapped list ran off the right and bottom edges.
static void draw_shortcuts(AppState& state) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float em = ImGui::GetFontSize(), margin = ImGui::GetStyle().WindowPadding.x;
  const float top = menu_bar_bottom();
  const ImVec2 room(vp->Size.x - 2 * margin, vp->Pos.y + vp->Size.y - top - 2 * margin);
  const float width = std::min(room.x, 48.0f * em);
  ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + (vp->Size.x - width) / 2, top + margin), ImGuiCond_Appearing);
  ImGui::SetNextWindowSizeConstraints(ImVec2(width, 0), ImVec2(width, room.y));
  if (!ImGui::Begin((std::string(tr("Keyboard shortcuts")) + "###Keyboard shortcuts").c_str(), &state.show_shortcuts,
                    ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::End();
    return;
  }
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthStretch, 0.36f);
    ImGui::TableSetupColumn("action", ImGuiTableColumnFlags_WidthStretch, 0.64f);
    for (const Shortcut& sc : kShortcuts) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      wrapped_text(tr(sc.keys));
      ImGui::TableSetColumnIndex(1);
      wrapped_text(tr(sc.action));
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
  } else if (state.tiling.place_start_page) {  // the zoom or the window's size changed: in place again
    set_next_window_rect(work_layout(state).panels, ImGuiCond_Always);
  }
  state.tiling.place_start_page = false;
  const std::string start_title = std::string(tr("Start")) + "###Start";
  hide_window_if_covered(start_title.c_str());
  if (!ImGui::Begin(start_title.c_str(), &state.show_start_page)) {
    ImGui::End();
    return;
  }
  if (draw_lesson_cards(state)) {  // a lesson opened: its first step's panels take the start page's place
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
    if (plan.page_of[i] == 0 && plan.pages > 1) t.bring_front.push_back(panel_window_title(batch[i]->info));
    if (plan.page_of[i] > 0)  // not built or drawn
      keep_window_behind_this_frame(panel_window_title(batch[i]->info).c_str());
  }
  return out;
}

// [SECTION] panels
// No window covers the menu bar, at any zoom: a window whose top is above the bar's bottom edge (placed for a
// shorter bar, or dragged up) is moved just below it; after a zoom change every window goes back to its saved place
// (app/ui.cpp record_window keeps that place while the bar pushes a window down).
static void place_again_after_zoom(AppState& state) {  // before any window records its place this frame
  if (state.zoom != state.placed_at_zoom) {
    // The frame a zoom key changed the zoom still has the old fonts and menu bar (the atlas is rebuilt between
    // frames, app/main.cpp): placed now, every window would sit one zoom step late. Wait for them (one frame at most).
    // (The atlas is built at a whole pixel size: 22.5 px at 150% is 23; neighbouring zoom steps are 1.5 px apart.)
    const bool fonts_in_effect = std::abs(ImGui::GetFontSize() - plot::kBaseFontSize * state.ui_scale()) < 0.75f;
    if (!fonts_in_effect && state.zoom_waited_frames++ < 1) return;
    state.zoom_waited_frames = 0;
    state.placed_at_zoom = state.zoom;
    // Beside a lesson the panels share what its column leaves, and the column's width follows the zoom: they are
    // tiled again there; otherwise each goes back to its saved place.
    const bool beside_lesson = lesson_is_open(state);
    if (beside_lesson) state.tiling.retile = true;
    for (auto& slot : state.panels)
      if (slot.layout.known && state.focused != slot.info.id && !beside_lesson) slot.place_next_frame = true;
    if (state.overview_layout.known) state.place_overview_next_frame = true;
    // The start page and the lesson column were placed below the old menu bar: below the new one (no gap, no overlap).
    state.tiling.place_start_page = true;
    place_lesson_window_again(state);
  }
}
static void keep_windows_below_menu_bar() {
  const float top = menu_bar_bottom();
  for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows) {
    constexpr ImGuiWindowFlags kNotPlaced =
        ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup | ImGuiWindowFlags_ChildMenu;
    if (!w->Active || (w->Flags & kNotPlaced) || std::strcmp(w->Name, "##MainMenuBar") == 0) continue;
    if (w->Pos.y < top - 0.5f) ImGui::SetWindowPos(w, ImVec2(w->Pos.x, top), ImGuiCond_Always);
  }
}

// The window was resized (maximised, restored): the tiled panels, the start page and the lesson column are laid
// out again for the new size, not left where the old one put them with a black band beside.
static void place_again_after_resize(AppState& state) {
  const ImVec2 size = ImGui::GetMainViewport()->Size;
  WindowTiling& t = state.tiling;
  const bool resized = t.display_w > 0 && (std::abs(size.x - t.display_w) > 1 || std::abs(size.y - t.display_h) > 1);
  t.display_w = size.x;
  t.display_h = size.y;
  if (!resized) return;
  t.retile = true;
  t.place_start_page = true;
  t.place_overview = true;
  place_lesson_window_again(state);
}

// Every window but the file dialogs: side windows, the start page, the panels.
static void draw_desk(AppState& state) {
  place_again_after_zoom(state);
  place_again_after_resize(state);
  report_model_opening(state);
  PanelSlot* focused = state.focused.empty() ? nullptr : state.find(state.focused);
  if (focused && !focused->open) {  // closed with its X while focused: back to the layout
    state.toggle_focus(state.focused);
    focused = nullptr;
  }
  const DrawContext ctx{.theme = state.theme, .dpi_scale = state.ui_scale(), .exports = &state.exports};
  if (draw_slide_mode(state, ctx, menu_bar_bottom())) return;  // a slide hides every other window (app/slide_mode.h)
  if (state.show_overview && !focused) draw_overview(state);
  if (state.show_about) draw_about(state);
  if (state.show_shortcuts) draw_shortcuts(state);

  if (state.show_start_page && !focused) draw_start_page(state, ctx);
  state.tiling.start_page_was_open = state.show_start_page;
  draw_lesson_window(state);
  const std::map<std::string, Placement> placements = place_panels(state);
  // A panel handed something to another ("Open in forward stepper"): show the receiver in front.
  const std::string focus = state.handoffs ? state.handoffs->take_focus_request() : std::string();
  if (PanelSlot* target = focus.empty() ? nullptr : state.find(focus)) {
    target->open = true;
    if (focused && target != focused) state.toggle_focus(target->info.id);  // the focus follows the hand-over
  }
  focused = state.focused.empty() ? nullptr : state.find(state.focused);
  for (auto& slot : state.panels) {
    if (!slot.open) continue;
    if (focused && &slot != focused) continue;  // the others keep their places for when focus ends
    if (slot.info.id == focus) ImGui::SetNextWindowFocus();
    slot.panel->update();
    // First placement (app/layout.h tiling); a scene's saved place or the focus layout overrides it.
    if (const auto it = placements.find(slot.info.id); it != placements.end())
      set_next_window_rect(it->second.rect, it->second.cond);
    if (!draw_panel_window(state, slot, ctx)) return;  // focus changed: the next frame draws the new layout
  }
  state.unfocused.clear();
  keep_windows_below_menu_bar();
  // After the windows exist and after the first placement has fronted its first page (tiling.bring_front runs at
  // the start of the next frame): a requested panel comes in front, expanded.
  if (!state.front_request.empty() && state.tiling.bring_front.empty()) {
    if (PanelSlot* slot = state.find(state.front_request); slot && slot->open) {
      ImGui::SetWindowCollapsed(panel_window_title(slot->info).c_str(), false);
      ImGui::SetWindowFocus(panel_window_title(slot->info).c_str());
      state.last_active = slot->info.id;
    }
    state.front_request.clear();
  }
}

void draw_windows(AppState& state) {
  draw_desk(state);
  // The modals last, and every frame (draw_desk may stop early when the focus changes). ImGui 1.86 aborts
  // ('blocking_modal != NULL') when a window appears after a modal was begun in the frame the modal first shows: it
  // finds the modal on top but, not active the frame before, not as the one blocking the new window. Begun after
  // every window, the modal is never open yet (or already shown last frame) when another window appears.
  draw_file_dialogs(state);
}

// One panel's window: placed by a scene or filling the viewport in focus, the focus button in its title bar, its
// place recorded; the body is the panel's own draw. Returns false when the focus changed (the caller stops).
bool draw_panel_window(AppState& state, PanelSlot& slot, DrawContext ctx) {
  const bool focused = state.focused == slot.info.id;
  ImGuiWindowFlags flags = 0;
  if (focused) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos, ImGuiCond_Always);
    ImGui::SetNextWindowSize(vp->WorkSize, ImGuiCond_Always);
    ImGui::SetNextWindowCollapsed(false, ImGuiCond_Always);
    flags = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse;
  } else {
    place_window(state, slot.layout, &slot.place_next_frame, tr(slot.info.name.c_str()), slot.info.id);
    // The frame focus ended: the panel that was focused stays in front of the windows that reappear.
    if (state.unfocused == slot.info.id) ImGui::SetNextWindowFocus();
    if (!state.unfocused.empty()) flags |= ImGuiWindowFlags_NoFocusOnAppearing;
  }
  // Behind another window: Begin returns false, nothing is built or drawn (app/render/window_culling.h).
  const bool expanded = begin_window_unless_covered(panel_window_title(slot.info).c_str(), &slot.open, flags);
  if (!focused) record_window(state, slot.layout);  // in focus it keeps the place to return to
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) state.last_active = slot.info.id;
  bool same_focus = true;
  if (expanded && title_bar_button(focused ? tr("Restore") : tr("Focus"),
                                   focused ? tr("Back to the layout of all windows (F11 or Esc)")
                                           : tr("Fill the window with this panel, for projecting (F11)"))) {
    state.toggle_focus(slot.info.id);
    same_focus = false;
  }
  // The controls column collapses to a strip in focus; a column collapsed then stays a strip outside focus.
  ctx.controls_collapsed = focused || slot.controls_collapsed ? &slot.controls_collapsed : nullptr;
  ctx.fit_figures_to_height = focused;
  if (expanded) slot.panel->draw(ctx);
  ImGui::End();
  return same_focus;
}

// [SECTION] shortcuts
namespace {
void handle_presentation_shortcuts(AppState& state) {
  const ImGuiIO& io = ImGui::GetIO();
  // GLFW key codes ('=' and '-' are the keys left of Backspace, + and - on the keypad too).
  constexpr int kKeyEqual = 61, kKeyMinus = 45, kKey0 = 48, kKeyKp0 = 320, kKeyKpSubtract = 333, kKeyKpAdd = 334;
  constexpr int kKeyEscape = 256, kKeyF11 = 300;
  if (io.KeyCtrl && (ImGui::IsKeyPressed(kKeyEqual) || ImGui::IsKeyPressed(kKeyKpAdd)))
    state.zoom = next_zoom(state.zoom, +1);
  if (io.KeyCtrl && (ImGui::IsKeyPressed(kKeyMinus) || ImGui::IsKeyPressed(kKeyKpSubtract)))
    state.zoom = next_zoom(state.zoom, -1);
  if (io.KeyCtrl && (ImGui::IsKeyPressed(kKey0, false) || ImGui::IsKeyPressed(kKeyKp0, false))) state.zoom = 1.0f;
  if (ImGui::IsKeyPressed(kKeyF11, false))
    if (PanelSlot* slot = focus_target(state)) state.toggle_focus(slot->info.id);  // focus, or leave it
  // Esc leaves focus unless something else wants it (a popup, a text field being edited).
  if (!state.focused.empty() && !state.slide.on() && ImGui::IsKeyPressed(kKeyEscape, false) &&
      !ImGui::IsAnyItemActive() && !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) {
    keep_navigation_off_the_key();  // ImGui read Esc too and would highlight a button of the panels shown next
    state.toggle_focus("");
  }
  if (io.KeyCtrl && !io.KeyShift && ImGui::IsKeyPressed('B', false))
    if (PanelSlot* slot = focus_target(state)) slot->controls_collapsed = !slot->controls_collapsed;
}
}  // namespace

float menu_bar_bottom() {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImGuiWindow* bar = ImGui::FindWindowByName("##MainMenuBar");
  return bar && bar->Active ? bar->Pos.y + bar->Size.y : vp->Pos.y + ImGui::GetFrameHeight();
}

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
    ImGui::SetWindowFocus("###Overview");  // on a narrow screen it shares the panels' place: bring it in front
  }
  if (ImGui::IsKeyPressed(kKeyF1, false)) state.show_shortcuts = !state.show_shortcuts;
  handle_presentation_shortcuts(state);
  handle_file_shortcuts(state);  // Ctrl+O, Ctrl+S, Ctrl+E
  handle_lesson_keys(state);     // the clicker: PageDown / PageUp, ← / →, Home / End
}

}  // namespace tw
