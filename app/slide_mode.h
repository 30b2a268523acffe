#pragma once
// Slide mode, for a projector: one figure the lecturer chose (a figure's right-click menu › Show as slide, or
// View › Slide mode › <panel> › <figure>) and the one or two controls that drive it fill the window below the menu
// bar. The figure keeps 16:9 and is fitted to the window's height and width, so its axes never sit below the fold.
// Esc leaves; a clicker's PageDown/PageUp and the arrows step the lesson (when one is open) or the panel's stepper
// (views/presenter_keys.h). The state (AppState::slide) is saved in scenes and the session as "slide".

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/app_state.h"

namespace tw {

// Shows `figure_id` of panel `panel_id` as a slide (opening the panel); its first controls (at most two) are shown
// with it until the lecturer picks others. An empty `figure_id` takes the panel's first figure. Unknown panel: nothing
// happens.
void enter_slide_mode(AppState& state, const std::string& panel_id, const std::string& figure_id);
void leave_slide_mode(AppState& state);

// A figure's entry in View › Slide mode: its title with the formulas as the characters they draw (no "$").
std::string slide_menu_label(const plot::Figure& figure);
// The View menu's "Slide mode" submenu: every open panel, each with its figures to choose from.
void draw_slide_menu(AppState& state);
// Installs the figures' right-click "Show as slide" item (plot::set_figure_menu_extra); once, before the first frame.
void install_slide_menu_item();

// Draws the slide window below `top` (the menu bar's bottom edge) when slide mode is on and returns true (the caller
// then draws no other window); false when it is off. Takes the clicker's step and Esc.
bool draw_slide_mode(AppState& state, const DrawContext& ctx, float top);

// [SECTION] geometry
struct SlideRect {
  float x = 0, y = 0, w = 0, h = 0;
};
// The largest 16:9 rectangle inside `area`, centred horizontally and at its top.
SlideRect fit_16_9(const SlideRect& area);
// Where the last slide frame put things, in screen pixels (for tests and the GUI report).
struct SlideOnScreen {
  SlideRect window;
  SlideRect figure;
  std::vector<SlideRect> controls;      // one per control shown, then the stepper's buttons when the panel has one
  const plot::Figure* shown = nullptr;  // the figure drawn: one of the panel's shown_figures() (until it changes)
};
const SlideOnScreen& last_slide_on_screen();

// [SECTION] scenes: {"panel": "softmax", "figure": "probs", "controls": ["d_k"]}
nlohmann::ordered_json slide_to_json(const SlideMode& slide);
// Checks a scene's "slide" value: an unknown panel is a warning (slide mode stays off), a wrong type an error;
// unknown control keys are dropped with a warning.
std::optional<SlideMode> slide_from_json(const AppState& state, const nlohmann::json& value,
                                         std::vector<std::string>* errors, std::vector<std::string>* warnings);

}  // namespace tw
