// Lesson files: parse and validate (core/lessons/lesson.h).
#include "core/lessons/lesson.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "core/assets.h"
#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/base/text_in_use.h"
#include "core/base/utf8.h"
#include "core/lessons/lesson_quantity.h"

namespace tw {

const char* check_op_text(CheckOp op) {
  switch (op) {
    case CheckOp::Less: return "<";
    case CheckOp::LessEqual: return "<=";
    case CheckOp::Greater: return ">";
    case CheckOp::GreaterEqual: return ">=";
    case CheckOp::Equal: return "==";
  }
  return "?";
}

bool lesson_id_ok(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

namespace {

constexpr size_t kMaxLessonBytes = 4 << 20;
constexpr size_t kMaxSteps = 100;

// Collects problems, each prefixed with where it is: "<file>: step 3 (id): <field>: <what>".
class Problems {
 public:
  explicit Problems(std::string file, std::function<std::string(const std::string&)> check_text = {})
      : check_text(std::move(check_text)), file_(std::move(file)) {}
  void set_step(int index, const std::string& id) {
    step_ = "step " + std::to_string(index + 1);
    if (!id.empty()) step_ += " (" + id + ")";
  }
  void clear_step() { step_.clear(); }
  void add(const std::string& field, const std::string& what) {
    std::string line = file_ + ": ";
    if (!step_.empty()) line += step_ + ": ";
    if (!field.empty()) line += field + ": ";
    errors.push_back(line + what);
  }
  std::vector<std::string> errors;
  const std::function<std::string(const std::string&)> check_text;  // LessonNames::check_text

 private:
  std::string file_, step_;
};

std::string quote_name(const std::string& s) {
  if (!valid_utf8(s)) return "(not valid UTF-8)";
  std::string cut = s.size() > 60 ? s.substr(0, utf8_char_start(s, 60)) + "..." : s;
  return "\"" + cut + "\"";
}

// Why a text is too big to lay out (longer than kLessonMaxTextBytes, braces nested deeper than
// kLessonMaxBraceDepth), "" when it is fine.
std::string text_shape_problem(const std::string& s) {
  if (s.size() > kLessonMaxTextBytes)
    return subst(tr("{0} bytes long; a lesson text may be at most {1} bytes"),
                 {std::to_string(s.size()), std::to_string(kLessonMaxTextBytes)});
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;  // \{ and \} are literal braces
      continue;
    }
    if (s[i] == '}' && depth > 0) --depth;
    if (s[i] == '{' && ++depth > kLessonMaxBraceDepth)
      return subst(tr("braces nested deeper than {0} levels (at byte {1}); formulas need far fewer"),
                   {std::to_string(kLessonMaxBraceDepth), std::to_string(i)});
  }
  return "";
}

// {"en": "...", "zh": "..."}: both required, non-empty strings.
LessonText read_text(const nlohmann::json& obj, const char* field, const std::string& where, Problems& p,
                     bool required = true) {
  LessonText t;
  auto it = obj.find(field);
  if (it == obj.end()) {
    if (required) p.add(where + field, "missing (an object with \"en\" and \"zh\")");
    return t;
  }
  if (!it->is_object()) {
    p.add(where + field, tr("expected an object with \"en\" and \"zh\""));
    return t;
  }
  for (const char* lang : {"en", "zh"}) {
    auto s = it->find(lang);
    if (s == it->end() || !s->is_string() || s->get<std::string>().empty())
      p.add(where + field + "." + lang, tr("missing or not a non-empty string"));
    else if (!valid_utf8(s->get<std::string>()))
      p.add(where + field + "." + lang, tr("not valid UTF-8"));
    else if (const std::string problem = text_shape_problem(s->get_ref<const std::string&>()); !problem.empty())
      p.add(where + field + "." + lang, problem);
    else if (const std::string layout = p.check_text ? p.check_text(s->get_ref<const std::string&>()) : "";
             !layout.empty())
      p.add(where + field + "." + lang, layout);
    else
      (std::string(lang) == "en" ? t.en : t.zh) = s->get<std::string>();
  }
  note_text_in_use(t.en);  // the screen's font atlas gets these characters (core/base/text_in_use.h)
  note_text_in_use(t.zh);
  return t;
}

void check_values(const nlohmann::json& values, const std::string& field, const LessonNames& names, Problems& p) {
  if (!values.is_object()) {
    p.add(field, tr("expected an object of scene keys"));
    return;
  }
  if (!names.known_key) return;
  for (auto it = values.begin(); it != values.end(); ++it) {
    if (!names.known_key(it.key()))
      p.add(field, subst(tr("unknown scene key {0}"), {quote_name(it.key())}));
    else if (names.check_value)
      if (const std::string problem = names.check_value(it.key(), it.value()); !problem.empty()) p.add(field, problem);
  }
}

nlohmann::json read_scene(const nlohmann::json& step, const LessonNames& names, Problems& p) {
  auto it = step.find("scene");
  if (it == step.end()) {
    p.add("scene", "missing (an object with \"open\" and \"values\")");
    return nlohmann::json::object();
  }
  if (!it->is_object()) {
    p.add("scene", tr("expected an object"));
    return nlohmann::json::object();
  }
  const nlohmann::json& scene = *it;
  if (auto o = scene.find("open"); o != scene.end()) {
    if (!o->is_array())
      p.add("scene.open", tr("expected a list of panel ids"));
    else
      for (const auto& id : *o)
        if (!id.is_string())
          p.add("scene.open", tr("expected a list of panel ids"));
        else if (names.known_panel && !names.known_panel(id.get<std::string>()))
          p.add("scene.open", subst(tr("unknown panel {0}"), {quote_name(id.get<std::string>())}));
  }
  if (auto v = scene.find("values"); v != scene.end()) check_values(*v, "scene.values", names, p);
  if (auto v = scene.find("values_zh"); v != scene.end()) check_values(*v, "scene.values_zh", names, p);
  for (auto f = scene.begin(); f != scene.end(); ++f)
    if (f.key() == "version")
      p.add("scene.version", "a step's scene has no version (the lesson's \"format\" covers it)");
  return scene;
}

std::optional<CheckOp> parse_op(const std::string& s) {
  for (CheckOp op : {CheckOp::Less, CheckOp::LessEqual, CheckOp::Greater, CheckOp::GreaterEqual, CheckOp::Equal})
    if (s == check_op_text(op)) return op;
  return std::nullopt;
}

bool finite_number(const nlohmann::json& j) { return j.is_number() && std::isfinite(j.get<double>()); }

std::optional<Exercise> read_exercise(const nlohmann::json& step, const LessonNames& names, Problems& p) {
  auto it = step.find("exercise");
  if (it == step.end()) return std::nullopt;
  if (!it->is_object()) {
    p.add("exercise", tr("expected an object"));
    return std::nullopt;
  }
  const nlohmann::json& ex = *it;
  Exercise e;
  e.question = read_text(ex, "question", "exercise.", p);
  auto c = ex.find("check");
  if (c == ex.end() || !c->is_object()) {
    p.add("exercise.check", "missing (an object with \"kind\" and \"quantity\")");
  } else {
    ExerciseCheck& k = e.check;
    const auto kind_it = c->find("kind");
    const std::string kind = kind_it != c->end() && kind_it->is_string() ? kind_it->get<std::string>() : "";
    if (kind == "state")
      k.kind = CheckKind::State;
    else if (kind == "number")
      k.kind = CheckKind::Number;
    else
      p.add("exercise.check.kind", "expected \"state\" or \"number\", got " +
                                       (kind_it == c->end() ? std::string("nothing") : quote_name(kind_it->dump())));
    auto q = c->find("quantity");
    if (q == c->end() || !q->is_string())
      p.add("exercise.check.quantity", tr("missing"));
    else if (!find_lesson_quantity(q->get<std::string>()))
      p.add("exercise.check.quantity", subst(tr("unknown quantity {0}"), {quote_name(q->get<std::string>())}));
    else
      k.quantity = q->get<std::string>();
    if (auto t = c->find("tolerance"); t != c->end()) {
      if (!finite_number(*t) || t->get<double>() < 0)
        p.add("exercise.check.tolerance", tr("expected a number >= 0"));
      else
        k.tolerance = t->get<double>();
    }
    if (auto r = c->find("relative"); r != c->end()) {
      if (!r->is_boolean())
        p.add("exercise.check.relative", tr("expected true or false"));
      else
        k.relative = r->get<bool>();
    }
    if (k.kind == CheckKind::State) {
      auto op = c->find("op");
      std::optional<CheckOp> parsed =
          (op != c->end() && op->is_string()) ? parse_op(op->get<std::string>()) : std::nullopt;
      if (!parsed)
        p.add("exercise.check.op", tr("expected one of <, <=, >, >=, =="));
      else
        k.op = *parsed;
      auto v = c->find("value");
      if (v == c->end() || !finite_number(*v))
        p.add("exercise.check.value", tr("expected a number"));
      else
        k.value = v->get<double>();
      if (auto a = c->find("also"); a != c->end()) {
        if (!a->is_array()) {
          p.add("exercise.check.also", tr("expected a list of {\"key\", \"equals\"}"));
        } else {
          for (const auto& pre : *a) {
            if (!pre.is_object() || !pre.contains("key") || !pre["key"].is_string() || !pre.contains("equals")) {
              p.add("exercise.check.also", tr("expected a list of {\"key\", \"equals\"}"));
              continue;
            }
            const std::string key = pre["key"].get<std::string>();
            if (names.known_key && !names.known_key(key))
              p.add("exercise.check.also", subst(tr("unknown scene key {0}"), {quote_name(key)}));
            else if (names.check_value)  // a value of the wrong type could never be equal: the step is unsolvable
              if (const std::string problem = names.check_value(key, pre["equals"]); !problem.empty())
                p.add("exercise.check.also", problem);
            k.also.emplace_back(key, pre["equals"]);
          }
        }
      }
    } else if (k.tolerance <= 0) {
      p.add("exercise.check.tolerance", "a number exercise needs a tolerance > 0");
    }
  }
  if (auto h = ex.find("hints"); h != ex.end()) {
    if (!h->is_array()) {
      p.add("exercise.hints", tr("expected a list of {\"en\", \"zh\"} texts"));
    } else {
      for (size_t i = 0; i < h->size(); ++i) {
        nlohmann::json wrap = {{"hint", (*h)[i]}};
        e.hints.push_back(read_text(wrap, "hint", "exercise.hints[" + std::to_string(i) + "].", p));
      }
    }
  }
  auto s = ex.find("solution");
  if (s == ex.end() || !s->is_object()) {
    p.add("exercise.solution", "missing: every exercise ships a solution (\"values\" or \"number\", and \"text\")");
    return e;
  }
  if (auto v = s->find("values"); v != s->end()) {
    check_values(*v, "exercise.solution.values", names, p);
    if (v->is_object()) e.solution_values = *v;
  }
  if (auto n = s->find("number"); n != s->end()) {
    if (!finite_number(*n))
      p.add("exercise.solution.number", tr("expected a number"));
    else
      e.solution_number = n->get<double>();
  }
  if (e.check.kind == CheckKind::Number && !e.solution_number)
    p.add("exercise.solution.number", "a number exercise's solution needs the number to type");
  if (e.check.kind == CheckKind::State && e.solution_values.empty())
    p.add("exercise.solution.values", "a state exercise's solution needs the settings that pass it");
  e.solution_text = read_text(*s, "text", "exercise.solution.", p);
  return e;
}

LessonStep read_step(const nlohmann::json& js, const LessonNames& names, Problems& p) {
  LessonStep st;
  st.title = read_text(js, "title", "", p);
  st.text = read_text(js, "text", "", p);
  st.scene = read_scene(js, names, p);
  if (auto l = js.find("look"); l != js.end()) {
    if (!l->is_object()) {
      p.add("look", tr("expected an object with \"figure\", \"en\", \"zh\""));
    } else {
      nlohmann::json wrap = {{"look", *l}};
      st.look = read_text(wrap, "look", "", p);
      if (st.scene.contains("open") && st.scene["open"].is_array() && !st.scene["open"].empty() &&
          st.scene["open"][0].is_string())
        st.look_panel = st.scene["open"][0].get<std::string>();
      if (auto pa = l->find("panel"); pa != l->end()) {
        if (!pa->is_string() || (names.known_panel && !names.known_panel(pa->get<std::string>())))
          p.add("look.panel", tr("expected the id of a panel the step opens"));
        else
          st.look_panel = pa->get<std::string>();
      }
      if (auto f = l->find("figure"); f != l->end()) {
        if (!f->is_string()) {
          p.add("look.figure", tr("expected a figure id"));
        } else {
          st.look_figure = f->get<std::string>();
          bool found = !names.known_figure;
          if (names.known_figure && st.scene.contains("open") && st.scene["open"].is_array())
            for (const auto& panel : st.scene["open"])
              if (panel.is_string() && names.known_figure(panel.get<std::string>(), st.look_figure)) found = true;
          if (!found)
            p.add("look.figure",
                  subst(tr("no open panel of this step shows a figure {0}"), {quote_name(st.look_figure)}));
        }
      }
    }
  }
  st.exercise = read_exercise(js, names, p);
  return st;
}

}  // namespace

LessonLoad parse_lesson(std::string_view text, const std::string& file_name, const LessonNames& names) {
  LessonLoad out;
  Problems p(std::filesystem::path(file_name).filename().string(), names.check_text);
  nlohmann::json j;
  std::string error;
  if (!parse_json_object(text, &j, &error, kLessonMaxDepth)) {
    p.add("", error);
  } else {
    Lesson& l = out.lesson;
    auto fmt = j.find("format");
    if (fmt == j.end() || !fmt->is_number_integer() || fmt->get<long long>() != kLessonFormat)
      p.add("format", "expected " + std::to_string(kLessonFormat) + " (this build reads lesson format " +
                          std::to_string(kLessonFormat) + ")");
    auto id = j.find("id");
    if (id == j.end() || !id->is_string() || !lesson_id_ok(id->get<std::string>()))
      p.add("id", tr("expected an ASCII id (letters, digits, - and _)"));
    else
      l.id = id->get<std::string>();
    auto num = j.find("number");
    if (num == j.end() || !num->is_number_integer() || num->get<long long>() < 1 || num->get<long long>() > 999)
      p.add("number", tr("expected a whole number 1..999"));
    else
      l.number = static_cast<int>(num->get<long long>());
    l.title = read_text(j, "title", "", p);
    l.summary = read_text(j, "summary", "", p);
    auto steps = j.find("steps");
    if (steps == j.end() || !steps->is_array() || steps->empty()) {
      p.add("steps", tr("expected a non-empty list of steps"));
    } else if (steps->size() > kMaxSteps) {
      p.add("steps", "more than " + std::to_string(kMaxSteps) + " steps");
    } else {
      std::set<std::string> ids;
      for (size_t i = 0; i < steps->size(); ++i) {
        const nlohmann::json& js = (*steps)[i];
        std::string sid;
        if (js.is_object() && js.contains("id") && js["id"].is_string()) sid = js["id"].get<std::string>();
        p.set_step(static_cast<int>(i), lesson_id_ok(sid) ? sid : "");
        if (!js.is_object()) {
          p.add("", tr("expected an object"));
          continue;
        }
        if (!lesson_id_ok(sid))
          p.add("id", tr("expected an ASCII id (letters, digits, - and _)"));
        else if (!ids.insert(sid).second)
          p.add("id", tr("used by an earlier step too"));
        LessonStep st = read_step(js, names, p);
        st.id = sid;
        l.steps.push_back(std::move(st));
      }
      p.clear_step();
    }
  }
  out.errors = std::move(p.errors);
  out.ok = out.errors.empty();
  if (!out.ok) {
    out.error = out.errors.front();
    if (out.errors.size() > 1) out.error += subst(tr(" (and {0} more)"), {std::to_string(out.errors.size() - 1)});
    out.lesson = Lesson{};
  }
  return out;
}

LessonLoad load_lesson_file(const std::string& path, const LessonNames& names) {
  std::string text, error;
  if (!read_file_bounded(path, kMaxLessonBytes, &text, &error)) {
    LessonLoad out;
    // The reader names the path; a message names the file once ("1:0: cannot open", not "1:0: 1:0: ...").
    if (error.rfind(path + ": ", 0) == 0) error.erase(0, path.size() + 2);
    out.error = std::filesystem::path(path).filename().string() + ": " + error;
    out.errors = {out.error};
    return out;
  }
  LessonLoad out = parse_lesson(text, path, names);
  if (out.ok) out.lesson.path = path;
  return out;
}

std::vector<std::string> shipped_lesson_files() {
  std::vector<std::pair<int, std::string>> found;
  const std::string dir = find_asset_dir("lessons");
  if (dir.empty()) return {};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto& path = entry.path();
    if (path.extension() != ".json") continue;
    const std::string name = path.filename().string();
    int n = 0;
    size_t i = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n < 1000) n = n * 10 + (name[i++] - '0');
    if (i == 0) continue;
    found.emplace_back(n, path.string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

}  // namespace tw
