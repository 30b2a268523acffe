// The lesson files 2–5 (assets/lessons/): every field in both languages, every step's scene applies to a fresh
// state without warnings, every "look" names a figure its panel draws, every exercise names a registered quantity
// that is computable in the step's state, the step's starting state does not pass and the stored solution does.
// The rules are the lesson engine's (core/lessons/lesson.cpp, tests/views/test_lessons.cpp on branch `lessons`),
// mirrored here so this branch checks its lesson files on its own; test_lessons covers them once both are merged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "app/app_state.h"
#include "app/scene.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/lessons/lesson_quantity.h"
#include "views/panel.h"
#include "views/plot/figure.h"
#include "views/plot/math.h"

namespace tw {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::vector<LessonQuantity> quantities() {
  std::vector<LessonQuantity> all;
  for (auto list : {lesson_2_quantities, lesson_3_quantities, lesson_4_quantities, lesson_5_quantities})
    for (const LessonQuantity& q : list()) all.push_back(q);
  return all;
}

const LessonQuantity* find_quantity(const std::vector<LessonQuantity>& all, const std::string& name) {
  for (const LessonQuantity& q : all)
    if (name == q.name) return &q;
  return nullptr;
}

std::vector<fs::path> lesson_files() {
  std::vector<fs::path> files;
  const std::regex name(R"([2-5]-[a-z0-9-]+\.json)");
  for (const auto& e : fs::directory_iterator(fs::path(TW_SOURCE_DIR) / "assets" / "lessons"))
    if (std::regex_match(e.path().filename().string(), name)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

bool ascii_id(const Json& v) {
  return v.is_string() && std::regex_match(v.get<std::string>(), std::regex("[a-z0-9][a-z0-9-]*"));
}

// {"en": "...", "zh": "..."} with both non-empty, the math typeset without an unsupported command; the Chinese
// has at least one non-ASCII character.
void expect_bilingual(const Json& v, const std::string& where) {
  ASSERT_TRUE(v.is_object()) << where;
  for (const char* lang : {"en", "zh"}) {
    ASSERT_TRUE(v.contains(lang) && v[lang].is_string() && !v[lang].get<std::string>().empty()) << where << "." << lang;
    const std::string s = v[lang].get<std::string>();
    EXPECT_EQ(std::count(s.begin(), s.end(), '$') % 2, 0) << where << "." << lang << ": unbalanced $";
    EXPECT_EQ(s.find("notes"), std::string::npos) << where << "." << lang;
    const plot::MathLayout m = plot::layout_math_uncached(s, 15);
    EXPECT_TRUE(m.unsupported.empty()) << where << "." << lang << ": unsupported " << m.unsupported.front();
  }
  // The same formulas in both languages (docs/glossary-zh.md): a translation may move them, not change them.
  const auto formulas = [](const std::string& s) {
    std::multiset<std::string> out;
    for (size_t a = s.find('$'); a != std::string::npos; a = s.find('$', a)) {
      const size_t b = s.find('$', a + 1);
      if (b == std::string::npos) break;
      out.insert(s.substr(a, b - a + 1));
      a = b + 1;
    }
    return out;
  };
  EXPECT_EQ(formulas(v["en"].get<std::string>()), formulas(v["zh"].get<std::string>())) << where;
  const std::string zh = v["zh"].get<std::string>();
  EXPECT_TRUE(std::any_of(zh.begin(), zh.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; }))
      << where << ".zh is not Chinese";
}

// A fresh state with the step's scene (and extra values on top, as --set would) applied: every control's value.
Json state_values(const Json& scene, const Json& extra, const std::string& where, AppState* state) {
  Json s = {
      {"version", 1}, {"open", scene.value("open", Json::array())}, {"values", scene.value("values", Json::object())}};
  if (scene.contains("theme")) s["theme"] = scene["theme"];
  std::vector<SceneOverride> overrides;
  for (const auto& [k, v] : extra.items()) overrides.emplace_back(k, v);
  const SceneLoad r = load_scene_text(*state, s.dump(), overrides);
  EXPECT_TRUE(r.ok) << where << ": " << r.error;
  EXPECT_TRUE(r.warnings.empty()) << where << ": " << (r.warnings.empty() ? "" : r.warnings.front());
  return Json::parse(scene_to_json(*state)["values"].dump());
}

bool compare(double q, const std::string& op, double value, double tolerance) {
  if (op == "<") return q < value;
  if (op == "<=") return q <= value;
  if (op == ">") return q > value;
  if (op == ">=") return q >= value;
  if (op == "==") return std::abs(q - value) <= tolerance;
  ADD_FAILURE() << "bad op " << op;
  return false;
}

bool preconditions_hold(const Json& check, const Json& values) {
  for (const Json& a : check.value("also", Json::array()))
    if (!values.contains(a["key"].get<std::string>()) || values[a["key"].get<std::string>()] != a["equals"])
      return false;
  return true;
}

void check_exercise(const Json& ex, const Json& scene, const std::vector<LessonQuantity>& all,
                    const std::string& where) {
  expect_bilingual(ex["question"], where + ".question");
  ASSERT_TRUE(ex["hints"].is_array() && !ex["hints"].empty()) << where;
  for (const Json& h : ex["hints"]) expect_bilingual(h, where + ".hint");
  const Json& check = ex["check"];
  const Json& solution = ex["solution"];
  ASSERT_TRUE(solution.is_object()) << where << ": no solution";
  expect_bilingual(solution["text"], where + ".solution.text");
  const LessonQuantity* q = find_quantity(all, check.value("quantity", ""));
  ASSERT_NE(q, nullptr) << where << ": unknown quantity " << check.value("quantity", "");
  for (const Json& a : check.value("also", Json::array())) {
    ASSERT_TRUE(a.contains("key") && a.contains("equals")) << where;
  }
  AppState start_state = make_app_state();
  const Json start = state_values(scene, Json::object(), where + " (start)", &start_state);
  const std::optional<double> q0 = q->compute(start);
  ASSERT_TRUE(q0.has_value()) << where << ": " << q->name << " not computable at the start";
  AppState solved_state = make_app_state();
  const Json solved =
      state_values(scene, solution.value("values", Json::object()), where + " (solution)", &solved_state);
  const std::optional<double> q1 = q->compute(solved);
  ASSERT_TRUE(q1.has_value()) << where << ": " << q->name << " not computable in the solution";
  const std::string kind = check.value("kind", "");
  if (kind == "state") {
    const std::string op = check.value("op", "");
    const double value = check["value"].get<double>();
    // "==" within the tolerance, relative to the goal's size with "relative": true (as core/lessons/exercise_check).
    const double tol = check.value("tolerance", 0.0) * (check.value("relative", false) ? std::abs(value) : 1.0);
    EXPECT_FALSE(compare(*q0, op, value, tol) && preconditions_hold(check, start))
        << where << ": the starting state already passes (" << q->name << " = " << *q0 << ")";
    EXPECT_TRUE(compare(*q1, op, value, tol)) << where << ": the solution fails (" << q->name << " = " << *q1 << ")";
    EXPECT_TRUE(preconditions_hold(check, solved)) << where << ": the solution breaks a precondition";
    std::printf("%s: %s start %.9g, solution %.9g\n", where.c_str(), q->name, *q0, *q1);
  } else if (kind == "number") {
    ASSERT_TRUE(solution.contains("number")) << where;
    const double typed = solution["number"].get<double>();
    const double tol = check.value("tolerance", 0.0);
    EXPECT_GT(tol, 0) << where << ": a number exercise needs a tolerance > 0";
    const auto passes = [&](double t) {
      return std::abs(t - *q1) <= (check.value("relative", false) ? tol * std::abs(*q1) : tol);
    };
    EXPECT_TRUE(passes(typed)) << where << ": " << q->name << " = " << *q1 << ", solution " << typed;
    // Nothing typed (0) and a wrong order of magnitude do not pass.
    EXPECT_FALSE(passes(0.0)) << where;
    EXPECT_FALSE(passes(typed * 10 + 1)) << where;
    std::printf("%s: %s = %.9g (start %.9g), solution %.9g\n", where.c_str(), q->name, *q1, *q0, typed);
  } else {
    ADD_FAILURE() << where << ": bad check kind '" << kind << "'";
  }
}

void check_look(const Json& look, AppState& state, const std::string& where) {
  expect_bilingual(look, where + ".look");
  const std::string fig = look.value("figure", "");
  ASSERT_FALSE(fig.empty()) << where;
  bool found = false;  // the figure id as the panel names it ("mask"), in one of the step's open panels
  for (auto& slot : state.panels) {
    if (!slot.open) continue;
    slot.panel->update();
    slot.panel->wait_idle();
    for (const plot::Figure& f : slot.panel->figures())
      if (f.id == fig) found = true;
  }
  EXPECT_TRUE(found) << where << ": no open panel draws figure '" << fig << "'";
}

TEST(LessonFiles, LessonsTwoToFiveAreComplete) {
  const std::vector<LessonQuantity> all = quantities();
  std::set<std::string> names;
  for (const LessonQuantity& q : all) {
    EXPECT_TRUE(names.insert(q.name).second) << "quantity registered twice: " << q.name;
    EXPECT_NE(std::string(q.what), "") << q.name;
  }
  const std::vector<fs::path> files = lesson_files();
  ASSERT_FALSE(files.empty());
  for (const fs::path& path : files) {
    const std::string file = path.filename().string();
    std::string text, error;
    ASSERT_TRUE(read_file_bounded(path.string(), 1 << 20, &text, &error)) << error;
    Json lesson;
    ASSERT_TRUE(parse_json_object(text, &lesson, &error)) << file << ": " << error;
    EXPECT_EQ(lesson.value("format", 0), 1) << file;
    EXPECT_TRUE(ascii_id(lesson["id"])) << file;
    EXPECT_EQ(file, std::to_string(lesson.value("number", 0)) + "-" + lesson.value("id", "") + ".json");
    expect_bilingual(lesson["title"], file + ": title");
    expect_bilingual(lesson["summary"], file + ": summary");
    const Json& steps = lesson["steps"];
    ASSERT_TRUE(steps.is_array()) << file;
    EXPECT_GE(steps.size(), 6u) << file;
    EXPECT_LE(steps.size(), 15u) << file;
    std::set<std::string> ids;
    for (const Json& step : steps) {
      ASSERT_TRUE(ascii_id(step["id"])) << file;
      const std::string where = file + ": step " + step["id"].get<std::string>();
      EXPECT_TRUE(ids.insert(step["id"].get<std::string>()).second) << where << ": duplicate id";
      expect_bilingual(step["title"], where + ".title");
      expect_bilingual(step["text"], where + ".text");
      ASSERT_TRUE(step["scene"].is_object()) << where;
      AppState state = make_app_state();
      state_values(step["scene"], Json::object(), where, &state);
      if (step.contains("look")) check_look(step["look"], state, where);
      if (step.contains("exercise")) check_exercise(step["exercise"], step["scene"], all, where);
    }
  }
}

}  // namespace
}  // namespace tw
