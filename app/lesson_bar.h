#pragma once
// The lesson bar: the open lesson's current step beside the panels (title, step k of n, previous / next, the text,
// what to look at with its figure highlighted, the exercise box), the Lessons section of the start page, File >
// Open lesson..., and progress saved beside the session (lesson-progress.json). The format and the checks are in
// core/lessons; applying a step's scene in app/lesson_scene.h.
//
// Opening a lesson first saves the user's own work (the whole scene) to before-lesson.json beside the session; the
// bar's "Back to my work" loads it again.

#include <string>

#include "app/app_state.h"

namespace tw {

struct LessonRun;  // app/lesson_bar.cpp

// True while a lesson is in the bar: the work area keeps a column for it (app/ui.cpp work_layout).
bool lesson_is_open(const AppState& state);
// The lesson window, when a lesson is open. Call each frame after the panels.
void draw_lesson_window(AppState& state);
// The start page's Lessons section: a card per shipped lesson with its progress. Returns true when one was opened.
bool draw_lesson_cards(AppState& state);
// File menu: "Open lesson..." (a lecturer's own lesson file); the popup is drawn by draw_lesson_window.
void lesson_file_menu_item(AppState& state);
// PageUp / PageDown and a clicker's keys move through the open lesson's steps.
void handle_lesson_keys(AppState& state);
// The lesson window goes back to its column on the next frame (after the app window was resized).
void place_lesson_window_again(AppState& state);

// --lesson N[:STEP] (a shipped lesson's number or a lesson file, optionally a 1-based step): opens it at start-up.
// Returns "" or one line saying what was wrong.
std::string open_lesson_argument(AppState& state, const std::string& argument);

// Where progress is saved: lesson-progress.json beside last-session.json ("" when there is no config folder).
std::string lesson_progress_path();

}  // namespace tw
