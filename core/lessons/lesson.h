#pragma once
// Lessons: a guided path of steps, each a short text, the scene it needs, what to look at and optionally an exercise
// the app checks. One JSON file per lesson, assets/lessons/<N>-<id>.json; docs/lesson-format.md describes the format
// for lecturers writing their own:
//
//   {"format": 1, "id": "high-dimensional", "number": 1,
//    "title": {"en": "…", "zh": "…"}, "summary": {"en": "…", "zh": "…"},
//    "steps": [{"id": "variance-grows", "title": {…}, "text": {…},
//               "scene": {"open": ["softmax"], "values": {"softmax.d_k": 64}},     // a scene without "version"
//               "look": {"figure": "sweep", "panel": "softmax", "en": "…", "zh": "…"}, // optional; panel:
//                                                                    the first of "open" when not given
//               "exercise": {"question": {…},                                       // optional
//                            "check": {"kind": "state", "quantity": "softmax.unscaled_top_prob", "op": ">=",
//                                      "value": 0.9, "also": [{"key": "softmax.scale_mode", "equals": "none"}]},
//                            // or {"kind": "number", "quantity": "…", "tolerance": 0.01, "relative": true}
//                            "hints": [{…}], "solution": {"values": {…}, "number": 3.14, "text": {…}}}}]}
//
// Loading validates everything and reports every problem, each naming the file, the step and the field:
//   "1-high-dimensional.json: step 3 (variance-grows): exercise.check.quantity: unknown quantity "softmax.foo"".
// Scene keys and panel ids belong to the app (views/ panels): the caller passes them in LessonNames; without them
// keys are not checked. Any bytes are safe to load (depth-limited parse, core/base/json_parse.h).

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/i18n.h"

namespace tw {

constexpr int kLessonFormat = 1;
constexpr int kLessonMaxDepth = 16;  // deeper nesting is refused (lessons need 7 levels)

// A text in both interface languages.
struct LessonText {
  std::string en, zh;
  const std::string& in(Language lang) const { return lang == Language::Zh ? zh : en; }
  const std::string& here() const { return in(language()); }  // in the current interface language
};

enum class CheckKind { State, Number };
enum class CheckOp { Less, LessEqual, Greater, GreaterEqual, Equal };
const char* check_op_text(CheckOp op);  // "<", "<=", ">", ">=", "=="

struct ExerciseCheck {
  CheckKind kind = CheckKind::State;
  std::string quantity;                                      // a name of core/lessons/lesson_quantity.h
  CheckOp op = CheckOp::GreaterEqual;                        // state only
  double value = 0;                                          // state only: quantity op value
  double tolerance = 0;                                      // == for state; the typed number's for number
  bool relative = false;                                     // tolerance relative to |quantity| (number, ==)
  std::vector<std::pair<std::string, nlohmann::json>> also;  // state only: preconditions key == value
};

struct Exercise {
  LessonText question;
  ExerciseCheck check;
  std::vector<LessonText> hints;
  nlohmann::json solution_values = nlohmann::json::object();  // applied on top of the step's scene
  std::optional<double> solution_number;                      // number exercises: the value to type
  LessonText solution_text;
};

struct LessonStep {
  std::string id;  // ASCII, unique in the lesson: progress and export folder names
  LessonText title, text;
  nlohmann::json scene = nlohmann::json::object();  // the scene format without "version" (app/scene.h)
  std::string look_figure;                          // a figure id of an open panel ("" when none)
  std::string look_panel;                           // the panel showing it: "look.panel", else the first opened
  LessonText look;
  std::optional<Exercise> exercise;
};

struct Lesson {
  int number = 0;  // 1-based place in the path; a lecturer's own lesson may use any positive number
  std::string id;  // ASCII, unique
  LessonText title, summary;
  std::vector<LessonStep> steps;
  std::string path;  // where it was loaded from ("" for text)
};

// What the app knows: scene keys ("softmax.d_k") and panel ids ("softmax"). Empty functions accept everything.
struct LessonNames {
  std::function<bool(const std::string&)> known_key;
  std::function<bool(const std::string&)> known_panel;
  // The figure ids panel `panel` shows (to validate "look.figure"); empty function: not checked.
  std::function<bool(const std::string& panel, const std::string& figure)> known_figure;
  // Why `value` does not fit scene key `key` (wrong type, out of range), "" when it does; the same check a scene
  // file gets. Empty function: values are not checked.
  std::function<std::string(const std::string& key, const nlohmann::json& value)> check_value;
  // Why a text cannot be laid out as written ("" when it can): the typesetter's own verdict, e.g. a formula nested
  // past its depth without braces (\sqrt\sqrt…, x^^^…) that the brace count below cannot see. Empty: not checked.
  std::function<std::string(const std::string& text)> check_text;
};

// A lesson text (one language) may be at most this long, and its braces nested at most this deep: the screen lays
// a text out every frame, and a formula ${{{…}}}$ 100,000 levels deep would take the math layout's stack with it.
constexpr size_t kLessonMaxTextBytes = 64 * 1024;
constexpr int kLessonMaxBraceDepth = 32;

struct LessonLoad {
  bool ok = false;
  std::string error;                // the first problem and how many more, one line
  std::vector<std::string> errors;  // every problem, each naming file, step and field
  Lesson lesson;                    // valid only when ok
};

// `file_name` names the source in messages (a path's last component is used).
LessonLoad parse_lesson(std::string_view text, const std::string& file_name, const LessonNames& names = {});
LessonLoad load_lesson_file(const std::string& path, const LessonNames& names = {});

// The shipped lessons, assets/lessons/*.json, ordered by the number their name starts with ("" entries absent).
std::vector<std::string> shipped_lesson_files();

// Safe for a folder name: ASCII letters, digits, '-' and '_' (docs/lesson-format.md).
bool lesson_id_ok(std::string_view id);

}  // namespace tw
