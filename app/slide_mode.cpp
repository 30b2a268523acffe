// [SECTION] index
//   state    : entering, leaving, the default controls
//   menus    : View › Slide mode, the figures' "Show as slide" item
//   draw     : the slide window (controls row, figure fitted at 16:9), the clicker and Esc
//   scenes   : "slide" in scene files and the session
#include "app/slide_mode.h"

#include <imgui.h>

#include <algorithm>

#include "core/base/i18n.h"
#include "views/plot/math.h"
#include "views/plot/plot_imgui.h"
#include "views/presenter_keys.h"
#include "views/widgets.h"

namespace tw {

namespace {

constexpr size_t kMaxSlideControls = 2;
constexpr float kSlideAspect = 16.0f / 9.0f;

SlideOnScreen g_on_screen;  // the last frame's rectangles (UI thread only)
// A figure's right-click "Show as slide" (drawn inside the plot layer, which does not know the app state): taken by
// the next draw_slide_mode.
struct SlideRequest {
  std::string panel, figure;
};
std::optional<SlideRequest> g_request;

// A control a lecturer drives a figure with: a slider, a checkbox or a choice (not a text box, a list or the seed).
bool drives_figure(const Control& c) {
  return (c.type == ControlType::Int || c.type == ControlType::Float || c.type == ControlType::Enum ||
          c.type == ControlType::Bool) &&
         c.key != "seed";
}

// [SECTION] state
std::vector<std::string> default_controls(const Panel& panel) {
  std::vector<std::string> keys;
  for (const Control& c : panel.controls().all())
    if (drives_figure(c) && keys.size() < kMaxSlideControls) keys.push_back(c.key);
  return keys;
}

// The figure a slide of `panel` starts on when none is named: the first its layout places, else its first figure.
std::string first_figure(Panel& panel) {
  if (const std::vector<std::string> ids = panel.layout_figure_ids(); !ids.empty()) return ids.front();
  panel.update();
  panel.wait_answer();
  const std::vector<plot::Figure>& figs = panel.shown_figures();
  return figs.empty() ? std::string() : figs.front().id;
}

}  // namespace

void enter_slide_mode(AppState& state, const std::string& panel_id, const std::string& figure_id) {
  PanelSlot* slot = state.find(panel_id);
  if (!slot) return;
  slot->open = true;
  if (state.slide.panel != panel_id) state.slide.controls = default_controls(*slot->panel);
  state.slide.panel = panel_id;
  state.slide.figure = figure_id.empty() ? first_figure(*slot->panel) : figure_id;
}

void leave_slide_mode(AppState& state) {
  state.slide = SlideMode{};
  g_on_screen = SlideOnScreen{};
}

// [SECTION] menus
std::string slide_menu_label(const plot::Figure& figure) {
  return figure.title.empty() ? figure.id : plot::math_plain_text(figure.title);
}

void draw_slide_menu(AppState& state) {
  if (!ImGui::BeginMenu(tr("Slide mode"))) return;
  if (ImGui::MenuItem(tr("Leave slide mode"), "Esc", false, state.slide.on())) leave_slide_mode(state);
  ImGui::Separator();
  bool any = false;
  for (PanelSlot& slot : state.panels) {
    if (!slot.open) continue;
    any = true;
    if (!ImGui::BeginMenu(panel_window_title(slot.info).c_str())) continue;
    // The figures the panel shows now; a title's formulas as the characters they draw (a menu item is plain text).
    const std::vector<plot::Figure>& figs = slot.panel->shown_figures();
    if (figs.empty()) ImGui::TextDisabled("%s", tr("This panel shows no figure now."));
    for (const plot::Figure& f : figs) {
      ImGui::PushID(f.id.c_str());
      const bool shown = state.slide.panel == slot.info.id && state.slide.figure == f.id;
      if (ImGui::MenuItem(slide_menu_label(f).c_str(), nullptr, shown)) enter_slide_mode(state, slot.info.id, f.id);
      ImGui::PopID();
    }
    ImGui::EndMenu();
  }
  if (!any) ImGui::TextDisabled("%s", tr("Open a panel first: its figures are listed here."));
  ImGui::EndMenu();
}

void install_slide_menu_item() {
  plot::set_figure_menu_extra([](const char* panel_id, const std::string& figure_id) {
    ImGui::Separator();
    if (ImGui::MenuItem(tr("Show as slide"))) g_request = SlideRequest{panel_id ? panel_id : "", figure_id};
  });
}

// [SECTION] geometry
SlideRect fit_16_9(const SlideRect& area) {
  const float w = std::max(0.0f, std::min(area.w, area.h * kSlideAspect));
  return {area.x + (area.w - w) * 0.5f, area.y, w, w / kSlideAspect};
}

const SlideOnScreen& last_slide_on_screen() { return g_on_screen; }

// [SECTION] draw
namespace {

SlideRect item_rect() {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  return {a.x, a.y, b.x - a.x, b.y - a.y};
}

// Before an item of `width`: on the same line when it fits, else on the next (nothing before the first).
void same_line_if_fits(bool first, float width) {
  if (!first) tw::same_line_if_fits(width);
}

// The lecturer's choice of the controls shown (at most two; choosing a third drops the first).
void draw_control_picker(SlideMode& slide, const Panel& panel) {
  if (ImGui::Button(tr("Controls…"))) ImGui::OpenPopup("##slide_controls");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Choose the one or two controls shown with the figure"));
  if (!ImGui::BeginPopup("##slide_controls")) return;
  for (const Control& c : panel.controls().all()) {
    if (!drives_figure(c)) continue;
    auto it = std::find(slide.controls.begin(), slide.controls.end(), c.key);
    bool on = it != slide.controls.end();
    if (ImGui::Checkbox((std::string(tr(c.label.c_str())) + "###" + c.key).c_str(), &on)) {
      if (!on) {
        slide.controls.erase(it);
      } else {
        slide.controls.push_back(c.key);
        if (slide.controls.size() > kMaxSlideControls) slide.controls.erase(slide.controls.begin());
      }
    }
  }
  ImGui::EndPopup();
}

// The controls row: the chosen controls, the stepper's buttons when the panel has one, the picker and Leave.
// Returns false when the lecturer left slide mode.
bool draw_controls_row(AppState& state, Panel& panel) {
  const float s = ImGui::GetFontSize() / plot::kBaseFontSize;
  const float width = ImGui::GetContentRegionAvail().x;
  const float item_w = std::min(width * 0.28f, 320.0f * s);
  bool first = true;
  for (const std::string& key : state.slide.controls) {
    const Control* c = panel.controls().find(key);
    if (!c) continue;
    same_line_if_fits(first, item_w + ImGui::CalcTextSize(tr(c->label.c_str())).x + 3 * ImGui::GetFrameHeight());
    first = false;
    ImGui::BeginGroup();
    ImGui::SetNextItemWidth(item_w);
    draw_control(*c);
    ImGui::EndGroup();
    g_on_screen.controls.push_back(item_rect());
  }
  if (panel.presenter_step(PresenterStep::None)) {  // a stepper: the clicker's steps as buttons too
    same_line_if_fits(first, 6 * ImGui::GetFrameHeight());
    first = false;
    ImGui::BeginGroup();
    if (ImGui::Button("|<")) panel.presenter_step(PresenterStep::First);
    ImGui::SameLine();
    if (ImGui::Button("<")) panel.presenter_step(PresenterStep::Previous);
    ImGui::SameLine();
    if (ImGui::Button(">")) panel.presenter_step(PresenterStep::Next);
    ImGui::SameLine();
    if (ImGui::Button(">|")) panel.presenter_step(PresenterStep::Last);
    ImGui::EndGroup();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Step (PageDown / PageUp, arrows, Home / End)"));
    g_on_screen.controls.push_back(item_rect());
  }
  const char* leave = tr("Leave slide (Esc)");
  const float buttons = ImGui::CalcTextSize(tr("Controls…")).x + ImGui::CalcTextSize(leave).x +
                        4 * ImGui::GetStyle().FramePadding.x + 2 * ImGui::GetStyle().ItemSpacing.x;
  same_line_if_fits(first, buttons);
  // Right-aligned on its line.
  ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - buttons));
  draw_control_picker(state.slide, panel);
  ImGui::SameLine();
  if (ImGui::Button(leave)) {
    leave_slide_mode(state);
    return false;
  }
  return true;
}

// The chosen figure among the ones the panel shows now (Panel::shown_figures: the panel's own cache of its current
// results, so the slide follows the same recompute as the panel window).
const plot::Figure* slide_figure(const SlideMode& slide, Panel& panel) {
  for (const plot::Figure& f : panel.shown_figures())
    if (f.id == slide.figure) return &f;
  return nullptr;
}

}  // namespace

bool draw_slide_mode(AppState& state, const DrawContext& ctx, float top) {
  if (g_request) {
    enter_slide_mode(state, g_request->panel, g_request->figure);
    g_request.reset();
  }
  PanelSlot* slot = state.slide.on() ? state.find(state.slide.panel) : nullptr;
  if (!slot) {
    if (state.slide.on()) leave_slide_mode(state);
    return false;
  }
  slot->open = true;
  Panel& panel = *slot->panel;
  panel.update();

  const bool popup = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId);
  // Esc leaves unless something else wants it (a popup, a text field being edited).
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false) && !ImGui::IsAnyItemActive() && !popup) {
    keep_navigation_off_the_key();  // ImGui read Esc too and would highlight a button of the panel shown next
    leave_slide_mode(state);
    return false;
  }
  // The clicker: a lesson took its step already (app/lesson_bar.h, handled before the windows); else the stepper.
  if (!popup)
    if (const PresenterStep step = take_presenter_step(); step != PresenterStep::None) panel.presenter_step(step);

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const ImVec2 pos(vp->Pos.x, top), size(vp->Size.x, vp->Pos.y + vp->Size.y - top);
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always);
  ImGui::SetNextWindowSize(size, ImGuiCond_Always);
  constexpr ImGuiWindowFlags kFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                      ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  g_on_screen = SlideOnScreen{};
  g_on_screen.window = {pos.x, pos.y, size.x, size.y};
  if (!ImGui::Begin("###SlideMode", nullptr, kFlags)) {
    ImGui::End();
    return true;
  }
  if (!draw_controls_row(state, panel)) {
    ImGui::End();
    return true;
  }
  ImGui::Spacing();
  panel.update();  // a control moved in the row above: its result in this frame, as the panel window's figures
  const plot::Figure* fig = slide_figure(state.slide, panel);
  if (!fig) {
    const std::string why = panel.error();
    empty_state(!why.empty()   ? why.c_str()
                : panel.busy() ? tr("Computing…")
                               : subst(tr("{0} shows no figure '{1}' now: choose one in View › Slide mode"),
                                       {tr(slot->info.name.c_str()), state.slide.figure})
                                     .c_str());
    ImGui::End();
    return true;
  }
  const ImVec2 at = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  const SlideRect r = fit_16_9({at.x, at.y, avail.x, avail.y});
  ImGui::SetCursorScreenPos(ImVec2(r.x, r.y));
  plot::draw_figure(*fig, ctx, slot->info.id.c_str(), ImVec2(r.w, r.h), plot::FigureDrawFlags_NoMinSize);
  g_on_screen.figure = r;
  g_on_screen.shown = fig;
  ImGui::End();
  return true;
}

// [SECTION] scenes
nlohmann::ordered_json slide_to_json(const SlideMode& slide) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["panel"] = slide.panel;
  j["figure"] = slide.figure;
  j["controls"] = slide.controls;
  return j;
}

std::optional<SlideMode> slide_from_json(const AppState& state, const nlohmann::json& value,
                                         std::vector<std::string>* errors, std::vector<std::string>* warnings) {
  const auto text = [&](const char* field) -> std::optional<std::string> {
    const auto it = value.find(field);
    if (it != value.end() && it->is_string()) return it->get<std::string>();
    errors->push_back(subst(tr("{0}: expected a string, got {1}"),
                            {std::string("slide.") + field, it == value.end() ? "nothing" : it->dump()}));
    return std::nullopt;
  };
  if (!value.is_object()) {
    errors->push_back(subst(tr("{0}: expected an object with panel, figure and controls, got {1}"),
                            {"slide", value.dump().substr(0, 60)}));
    return std::nullopt;
  }
  const std::optional<std::string> panel = text("panel"), figure = text("figure");
  if (!panel || !figure) return std::nullopt;
  const PanelSlot* slot = nullptr;
  for (const PanelSlot& s : state.panels)
    if (s.info.id == *panel) slot = &s;
  if (!slot) {
    warnings->push_back(subst(tr("{0}: no panel with id '{1}', ignored"), {"slide.panel", panel->substr(0, 60)}));
    return SlideMode{};
  }
  SlideMode slide{*panel, *figure, {}};
  if (const auto it = value.find("controls"); it != value.end()) {
    if (!it->is_array()) {
      errors->push_back(
          subst(tr("{0}: expected a list of control keys, got {1}"), {"slide.controls", it->dump().substr(0, 60)}));
      return std::nullopt;
    }
    for (const nlohmann::json& key : *it) {
      const Control* c = key.is_string() ? slot->panel->controls().find(key.get<std::string>()) : nullptr;
      if (!c || !drives_figure(*c) || slide.controls.size() >= kMaxSlideControls)
        warnings->push_back(subst(tr("{0}: control {1} cannot be shown on a slide, ignored"),
                                  {"slide.controls", key.dump().substr(0, 60)}));
      else
        slide.controls.push_back(c->key);
    }
  }
  return slide;
}

}  // namespace tw
