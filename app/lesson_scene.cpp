// Lessons in the app (app/lesson_scene.h).
#include "app/lesson_scene.h"

#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "core/base/i18n.h"
#include "core/lessons/exercise_check.h"
#include "views/plot/math.h"

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
  // The typesetter itself says whether a formula fits its nesting limit: braces are counted in core, but
  // \sqrt\sqrt…x or x^^^…y nest without a single brace.
  names.check_text = [](const std::string& text) -> std::string {
    if (!plot::has_math(text)) return "";
    const plot::MathLayout m = plot::layout_math_uncached(text, 16);
    if (m.nesting_cut < 0) return "";
    return subst(tr("a formula nests deeper than {0} levels (at character {1} of it) and would be cut off there; "
                    "formulas need far fewer"),
                 {std::to_string(plot::kMaxMathDepth), std::to_string(m.nesting_cut)});
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

LessonArgument parse_lesson_argument(const std::string& argument) {
  LessonArgument out;
  out.lesson = argument;
  const size_t colon = argument.rfind(':');
  if (colon == std::string::npos) return out;
  const std::string tail = argument.substr(colon + 1);
  if (tail.empty() || tail.find_first_not_of("0123456789-+") != std::string::npos) return out;  // a path with ':'
  long n = 0;
  const auto [ptr, ec] = std::from_chars(tail.data(), tail.data() + tail.size(), n);
  out.lesson = argument.substr(0, colon);
  if (ec != std::errc() || ptr != tail.data() + tail.size() || n < 1 || n > 100000) {
    out.error = subst(tr("'{0}': steps are numbered from 1 (e.g. {1}:1)"), {argument, out.lesson});
    return out;
  }
  out.step = int(n - 1);
  return out;
}

LessonLoad find_lesson_step(const AppState& state, const LessonArgument& argument) {
  if (!argument.error.empty()) {
    LessonLoad out;
    out.error = argument.error;
    out.errors = {out.error};
    return out;
  }
  LessonLoad out = find_lesson(state, argument.lesson);
  if (out.ok && argument.step >= int(out.lesson.steps.size())) {
    out.ok = false;
    out.error = subst(tr("'{0}' has {1} steps; step {2} does not exist"),
                      {argument.lesson, std::to_string(out.lesson.steps.size()), std::to_string(argument.step + 1)});
    out.errors = {out.error};
  }
  return out;
}

}  // namespace tw
