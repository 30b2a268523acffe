#pragma once
// Lessons in the app: the names a lesson file is validated against, a step's scene applied to the state, the
// current values exercises are checked on, and the shipped lessons (core/lessons/lesson.h for the format).
// Used by the lesson bar (views/lesson_bar.cpp), `export --lesson` and the lesson tests.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/app_state.h"
#include "app/scene.h"
#include "core/lessons/lesson.h"

namespace tw {

// Scene keys and panel ids of this build.
LessonNames lesson_names(const AppState& state);

// A step's scene as scene text ("version" added) with `extra` values set on top (a solution's values).
std::string lesson_step_scene_text(const LessonStep& step, const nlohmann::json& extra = nlohmann::json::object());
// Applies a step's scene (the whole state, as any scene: keys it does not name return to their defaults).
SceneLoad apply_lesson_step(AppState& state, const LessonStep& step,
                            const nlohmann::json& extra = nlohmann::json::object());

// Every scene key with its current value: what lesson quantities read.
nlohmann::json current_scene_values(const AppState& state);

// The shipped lessons, in order; a file that fails to load is left out and its error appended to *errors.
std::vector<Lesson> load_shipped_lessons(const AppState& state, std::vector<std::string>* errors);

// A lesson for `export --lesson`: a number of a shipped lesson ("2") or a lesson file's path.
LessonLoad find_lesson(const AppState& state, const std::string& number_or_path);

// A `--lesson` argument: "N", "FILE", "N:K" or "FILE:K" with K a step counted from 1. One reading for the window
// and `export`, so "1:0" gets the same line from both instead of being taken for a file name by one of them.
struct LessonArgument {
  std::string lesson;  // the number or the path, without ":K"
  int step = -1;       // 0-based; -1 when no step is named
  std::string error;   // empty when the argument is usable
};
LessonArgument parse_lesson_argument(const std::string& argument);

// The lesson an argument names, with a named step checked against its length.
LessonLoad find_lesson_step(const AppState& state, const LessonArgument& argument);

}  // namespace tw
