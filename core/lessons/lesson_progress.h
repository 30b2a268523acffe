#pragma once
// Where a learner is in the lessons: the lesson open, the step of every lesson, the exercises done. Saved with the
// session (app/lesson_session: lesson-progress.json beside last-session.json) as
//   {"lesson": "high-dimensional", "open": true, "steps": {"high-dimensional": 3}, "done": ["high-dimensional/dk-09"]}
// Reading is forgiving: a wrong field is dropped (the rest is kept), never an error.

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace tw {

struct LessonProgress {
  std::string lesson;                // id of the lesson in the bar ("" when none)
  bool open = false;                 // the lesson bar is shown
  std::map<std::string, int> steps;  // lesson id -> 0-based current step
  std::set<std::string> done;        // "<lesson id>/<step id>" of every exercise passed

  int step_of(const std::string& lesson_id) const;
  bool is_done(const std::string& lesson_id, const std::string& step_id) const;
  void mark_done(const std::string& lesson_id, const std::string& step_id);
  void forget(const std::string& lesson_id, const std::string& step_id);  // "Reset this step"
  int done_in(const std::string& lesson_id) const;                        // exercises done in one lesson

  bool operator==(const LessonProgress&) const = default;
};

nlohmann::json progress_to_json(const LessonProgress& p);
LessonProgress progress_from_json(const nlohmann::json& j);

}  // namespace tw
