// Lesson progress (core/lessons/lesson_progress.h).
#include "core/lessons/lesson_progress.h"

#include "core/lessons/lesson.h"

namespace tw {

int LessonProgress::step_of(const std::string& lesson_id) const {
  auto it = steps.find(lesson_id);
  return it == steps.end() ? 0 : it->second;
}

bool LessonProgress::is_done(const std::string& lesson_id, const std::string& step_id) const {
  return done.count(lesson_id + "/" + step_id) > 0;
}

void LessonProgress::mark_done(const std::string& lesson_id, const std::string& step_id) {
  done.insert(lesson_id + "/" + step_id);
}

void LessonProgress::forget(const std::string& lesson_id, const std::string& step_id) {
  done.erase(lesson_id + "/" + step_id);
}

int LessonProgress::done_in(const std::string& lesson_id) const {
  int n = 0;
  const std::string prefix = lesson_id + "/";
  for (const std::string& d : done) n += d.compare(0, prefix.size(), prefix) == 0;
  return n;
}

nlohmann::json progress_to_json(const LessonProgress& p) {
  nlohmann::json j = {{"lesson", p.lesson}, {"open", p.open}};
  j["steps"] = nlohmann::json::object();
  for (const auto& [id, step] : p.steps) j["steps"][id] = step;
  j["done"] = nlohmann::json::array();
  for (const std::string& d : p.done) j["done"].push_back(d);
  return j;
}

LessonProgress progress_from_json(const nlohmann::json& j) {
  LessonProgress p;
  if (!j.is_object()) return p;
  if (auto it = j.find("lesson"); it != j.end() && it->is_string() && lesson_id_ok(it->get<std::string>()))
    p.lesson = it->get<std::string>();
  if (auto it = j.find("open"); it != j.end() && it->is_boolean()) p.open = it->get<bool>();
  if (auto it = j.find("steps"); it != j.end() && it->is_object())
    for (auto s = it->begin(); s != it->end(); ++s)
      if (lesson_id_ok(s.key()) && s->is_number_integer() && s->get<long long>() >= 0 && s->get<long long>() < 1000)
        p.steps[s.key()] = static_cast<int>(s->get<long long>());
  if (auto it = j.find("done"); it != j.end() && it->is_array())
    for (const auto& d : *it)
      if (d.is_string() && d.get<std::string>().size() < 200) p.done.insert(d.get<std::string>());
  return p;
}

}  // namespace tw
