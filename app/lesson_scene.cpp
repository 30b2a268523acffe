// Lessons in the app (app/lesson_scene.h).
#include "app/lesson_scene.h"

#include <map>
#include <optional>
#include <set>

#include "core/base/i18n.h"
#include "core/lessons/exercise_check.h"

namespace tw {

LessonNames lesson_names(const AppState& state) {
  // The same table the panels and scene files use: each key's control checks its value (type, range, options).
  // Controls are copied without their bound field, so the names outlive nothing and check() writes nothing.
  auto keys = std::make_shared<std::map<std::string, Control>>();
  auto panels = std::make_shared<std::set<std::string>>();
  auto figures = std::make_shared<std::map<std::string, std::set<std::string>>>();
  for (const PanelSlot& slot : state.panels) {
    panels->insert(slot.info.id);
    for (const Control& c : slot.panel->controls().all()) {
      Control copy = c;
      copy.target = nullptr;
      copy.get_index = {};
      copy.set_index = {};
      keys->emplace(slot.info.id + "." + c.key, std::move(copy));
    }
    // Panels that place their figures through a FigureLayout name them; the others are checked at export.
    for (const std::string& id : slot.panel->layout_figure_ids()) (*figures)[slot.info.id].insert(id);
  }
  LessonNames names;
  names.known_key = [keys](const std::string& k) { return keys->count(k) > 0; };
  names.known_panel = [panels](const std::string& p) { return panels->count(p) > 0; };
  names.known_figure = [figures](const std::string& panel, const std::string& figure) {
    auto it = figures->find(panel);
    return it == figures->end() || it->second.count(figure) > 0;
  };
  names.check_value = [keys](const std::string& key, const nlohmann::json& value) -> std::string {
    auto it = keys->find(key);
    if (it == keys->end()) return "";
    const std::optional<std::string> problem = it->second.check(value, key);
    return problem ? *problem : "";
  };
  return names;
}

std::string lesson_step_scene_text(const LessonStep& step, const nlohmann::json& extra) {
  nlohmann::json scene = step.scene.is_object() ? step.scene : nlohmann::json::object();
  scene["version"] = kSceneVersion;
  nlohmann::json base = scene.contains("values") ? scene["values"] : nlohmann::json::object();
  // "values_zh": what the Chinese interface sets differently (a Chinese text for a language panel).
  if (const auto zh = scene.find("values_zh"); zh != scene.end()) {
    if (language() == Language::Zh) base = merged_values(base, *zh);
    scene.erase(zh);
  }
  scene["values"] = merged_values(base, extra);
  return scene.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

SceneLoad apply_lesson_step(AppState& state, const LessonStep& step, const nlohmann::json& extra) {
  return load_scene_text(state, lesson_step_scene_text(step, extra));
}

nlohmann::json current_scene_values(const AppState& state) {
  const nlohmann::ordered_json scene = scene_to_json(state);
  nlohmann::json values = nlohmann::json::object();
  if (auto it = scene.find("values"); it != scene.end())
    for (auto v = it->begin(); v != it->end(); ++v) values[v.key()] = nlohmann::json(v.value());
  return values;
}

std::vector<Lesson> load_shipped_lessons(const AppState& state, std::vector<std::string>* errors) {
  std::vector<Lesson> out;
  const LessonNames names = lesson_names(state);
  for (const std::string& path : shipped_lesson_files()) {
    LessonLoad l = load_lesson_file(path, names);
    if (l.ok)
      out.push_back(std::move(l.lesson));
    else if (errors)
      errors->push_back(l.error);
  }
  return out;
}

LessonLoad find_lesson(const AppState& state, const std::string& number_or_path) {
  const bool digits = !number_or_path.empty() && number_or_path.size() < 4 &&
                      number_or_path.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) return load_lesson_file(number_or_path, lesson_names(state));
  std::vector<std::string> errors;
  for (Lesson& l : load_shipped_lessons(state, &errors))
    if (l.number == std::stoi(number_or_path)) {
      LessonLoad out;
      out.ok = true;
      out.lesson = std::move(l);
      return out;
    }
  LessonLoad out;
  out.error = subst(tr("no shipped lesson {0}"), {number_or_path});
  if (!errors.empty()) out.error += " (" + errors.front() + ")";
  out.errors = {out.error};
  return out;
}

}  // namespace tw
