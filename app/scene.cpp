// [SECTION] index
//   helpers    : lookups, depth scan, messages
//   save       : state → JSON text, atomic write
//   load       : text → validated plan → applied state
//   --set      : key=value arguments
//   session    : last-session path, restore, save
#include "app/scene.h"

#include "app/slide_mode.h"
#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/io/atomic_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace tw {

namespace fs = std::filesystem;

// [SECTION] helpers
namespace {

const char* theme_name(Theme theme) { return theme == Theme::Print ? "print" : "dark"; }

// Error messages quote user input; keep them one readable line however long the input was, and whole: a NUL
// (a JSON key "a\u0000b") is shown as ␀ instead of ending the message where it is printed.
std::string clip(std::string s, size_t max_len = 120) {
  if (s.size() > max_len) s = s.substr(0, utf8_char_start(s, max_len)) + "...";
  std::string out;
  for (char ch : s)
    if (ch == '\n' || ch == '\r' || ch == '\t')
      out += ' ';
    else if (ch == '\0')
      out += "\xE2\x90\x80";  // ␀
    else
      out += ch;
  return out;
}

std::string dump_value(const nlohmann::json& v) {
  return clip(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 60);
}

const PanelSlot* find_slot(const AppState& state, std::string_view id) {
  for (const auto& slot : state.panels)
    if (slot.info.id == id) return &slot;
  return nullptr;
}

// Splits "panel.control" at the first dot (panel ids have no dots; control names may).
const Control* find_control(const AppState& state, std::string_view full_key) {
  const size_t dot = full_key.find('.');
  if (dot == std::string_view::npos) return nullptr;
  const PanelSlot* slot = find_slot(state, full_key.substr(0, dot));
  if (!slot) return nullptr;
  return slot->panel->controls().find(std::string(full_key.substr(dot + 1)));
}

std::string full_key(const PanelSlot& slot, const Control& c) { return slot.info.id + "." + c.key; }

// Float controls hold floats, and their bounds are floats widened to double (6.2832f = 6.28319979). A number
// written in its shortest form ("6.2832", as scenes and scene-keys print it) is rounded to float before the
// range check, so the printed maximum is accepted and saving a slider at its end reads back.
nlohmann::json as_control_value(const Control& c, const nlohmann::json& value) {
  if (c.type != ControlType::Float || !value.is_number()) return value;
  const double d = value.get<double>();
  // Narrowing a double beyond float's range is undefined; such values fail the range check unchanged.
  if (!(std::fabs(d) <= std::numeric_limits<float>::max())) return value;
  return static_cast<double>(static_cast<float>(d));
}

// The shortest decimal text that reads back as `f` (0.1, not 0.10000000149011612), as a JSON number.
double shortest_float(float f) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), f);
  if (res.ec != std::errc()) return f;
  double d = 0.0;
  std::from_chars(buf, res.ptr, d);
  return d;
}

void finish(SceneLoad& result) {
  // A file with 330,000 unknown keys gives 20 warnings and a count, not 330,000 lines.
  constexpr size_t kMaxWarnings = 20;
  if (result.warnings.size() > kMaxWarnings + 1) {  // (+ 1: a list already summarised stays as it is)
    const size_t more = result.warnings.size() - kMaxWarnings;
    result.warnings.resize(kMaxWarnings);
    result.warnings.push_back(
        subst(trn("… and {0} more warning", "… and {0} more warnings", more), {std::to_string(more)}));
  }
  result.ok = result.errors.empty();
  if (result.ok) return;
  result.error = result.errors.front();
  if (result.errors.size() > 1)
    result.error += subst(tr(" (and {0} more)"), {std::to_string(result.errors.size() - 1)});
}

}  // namespace

nlohmann::json scene_value(const Control& control, const nlohmann::json& value) {
  if (control.type != ControlType::Float || !value.is_number()) return value;
  return shortest_float(value.get<float>());
}

// [SECTION] save
namespace {

// The zoom, the focused panel and every window placed on screen (fields documented in scene.h).
void write_presentation(const AppState& state, nlohmann::ordered_json& scene) {
  scene["zoom"] = shortest_float(state.zoom);
  if (!state.focused.empty()) scene["focus"] = state.focused;
  if (state.slide.on()) scene["slide"] = slide_to_json(state.slide);
  if (const std::string front = state.front_panel(); !front.empty()) scene["front"] = front;
  nlohmann::ordered_json windows = nlohmann::ordered_json::object();
  auto entry = [](const WindowLayout& l) {
    nlohmann::ordered_json w = nlohmann::ordered_json::object();
    w["x"] = std::lround(l.x);  // whole logical pixels keep the file readable
    w["y"] = std::lround(l.y);
    w["w"] = std::lround(l.w);
    w["h"] = std::lround(l.h);
    w["collapsed"] = l.collapsed;
    return w;
  };
  if (state.overview_layout.known) windows["overview"] = entry(state.overview_layout);
  for (const auto& slot : state.panels) {
    if (!slot.layout.known && !slot.controls_collapsed) continue;
    nlohmann::ordered_json w = slot.layout.known ? entry(slot.layout) : nlohmann::ordered_json::object();
    w["controls_collapsed"] = slot.controls_collapsed;
    windows[slot.info.id] = std::move(w);
  }
  if (!windows.empty()) scene["windows"] = std::move(windows);
}

}  // namespace

nlohmann::ordered_json scene_to_json(const AppState& state) {
  nlohmann::ordered_json scene;
  scene["version"] = kSceneVersion;
  scene["theme"] = theme_name(state.theme);
  write_presentation(state, scene);
  scene["open"] = nlohmann::ordered_json::array();
  for (const auto& slot : state.panels)
    if (slot.open) scene["open"].push_back(slot.info.id);
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (const auto& slot : state.panels)
    for (const Control& c : slot.panel->controls().all()) values[full_key(slot, c)] = scene_value(c, c.get());
  scene["values"] = std::move(values);
  return scene;
}

std::string scene_to_text(const AppState& state) {
  return scene_to_json(state).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

bool save_scene_file(const AppState& state, const std::string& path, std::string* error) {
  // A name of only spaces writes a file no one can see in a listing: refused, as an empty name is.
  const std::string name = fs::path(path).filename().string();
  if (name.find_first_not_of(" \t") == std::string::npos) {
    *error = subst(tr("'{0}' has no file name; type a name such as scene.twscene.json"), {path});
    return false;
  }
  return write_file_atomic(path, scene_to_text(state), error);
}

// [SECTION] load
namespace {

// Everything a valid scene sets, checked and ready; applying it cannot fail.
struct ScenePlan {
  Theme theme = Theme::Dark;
  std::optional<float> zoom;                         // absent: unchanged
  std::string focus;                                 // "" : no panel focused
  std::string front;                                 // "" : the first placement decides
  SlideMode slide;                                   // off unless the scene names one
  std::optional<WindowLayout> overview;              // absent: unchanged
  std::vector<std::optional<WindowLayout>> windows;  // per slot; absent: unchanged
  std::vector<bool> controls_collapsed;              // per slot
  std::vector<bool> open;                            // per state.panels slot
  std::vector<std::vector<nlohmann::json>> values;   // per slot, per control, declaration order
};

// A number in [lo, hi]: out of range is clamped with a warning (a hand-edited or old layout must still open);
// not a number is an error naming the key.
std::optional<float> clamped_number(const nlohmann::json& v, const std::string& key, double lo, double hi,
                                    SceneLoad* result) {
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    result->errors.push_back(subst(tr("{0}: expected a number, got {1}"), {key, dump_value(v)}));
    return std::nullopt;
  }
  const double d = v.get<double>();
  const double c = std::clamp(d, lo, hi);
  if (c != d)
    result->warnings.push_back(subst(tr("{0}: {1} is outside [{2}, {3}], using {4}"),
                                     {key, dump_value(v), dump_value(lo), dump_value(hi), dump_value(c)}));
  return static_cast<float>(c);
}

// One "windows" entry: place, size, collapsed title bar and (panels only) the collapsed controls column.
void plan_window(const std::string& key, const nlohmann::json& v, bool panel, std::optional<WindowLayout>* layout,
                 bool* controls_collapsed, SceneLoad* result) {
  if (!v.is_object()) {
    result->errors.push_back(key + ": expected an object with x, y, w, h, got " + dump_value(v));
    return;
  }
  constexpr double kMaxCoordinate = 16384;  // larger than any screen; a window is pulled on screen when shown
  WindowLayout l;
  int have = 0;
  for (const auto& [field, value] : v.items()) {
    const std::string k = key + "." + field;
    std::optional<float> n;
    if (field == "x" || field == "y")
      n = clamped_number(value, k, 0, kMaxCoordinate, result);
    else if (field == "w" || field == "h")
      n = clamped_number(value, k, kMinWindowSize, kMaxCoordinate, result);
    if (n) {
      (field == "x" ? l.x : field == "y" ? l.y : field == "w" ? l.w : l.h) = *n;
      ++have;
    } else if (field == "collapsed" || (panel && field == "controls_collapsed")) {
      if (!value.is_boolean())
        result->errors.push_back(subst(tr("{0}: expected true or false, got {1}"), {k, dump_value(value)}));
      else
        (field == "collapsed" ? l.collapsed : *controls_collapsed) = value.get<bool>();
    } else if (field != "x" && field != "y" && field != "w" && field != "h") {
      result->warnings.push_back(subst(tr("unknown field '{0}' ignored"), {clip(k, 60)}));
    }
  }
  if (have == 4) {
    l.known = true;
    *layout = l;
  } else if (have > 0) {
    result->warnings.push_back(
        subst(tr("{0}: a place needs all of x, y, w and h; the window stays where it is"), {key}));
  }
}

void plan_presentation(const AppState& state, const std::string& field, const nlohmann::json& value, ScenePlan* plan,
                       SceneLoad* result) {
  if (field == "zoom") {
    plan->zoom = clamped_number(value, "zoom", kZoomMin, kZoomMax, result);
  } else if (field == "focus") {
    if (!value.is_string())
      result->errors.push_back(subst(tr("{0}: expected a panel id, got {1}"), {"focus", dump_value(value)}));
    else if (!find_slot(state, value.get<std::string>()))
      result->warnings.push_back(
          subst(tr("{0}: no panel with id '{1}', ignored"), {"focus", clip(value.get<std::string>(), 60)}));
    else
      plan->focus = value.get<std::string>();
  } else if (field == "slide") {
    if (std::optional<SlideMode> slide = slide_from_json(state, value, &result->errors, &result->warnings))
      plan->slide = std::move(*slide);
  } else if (field == "front") {
    if (!value.is_string())
      result->errors.push_back(subst(tr("{0}: expected a panel id, got {1}"), {"front", dump_value(value)}));
    else if (!find_slot(state, value.get<std::string>()))
      result->warnings.push_back(
          subst(tr("{0}: no panel with id '{1}', ignored"), {"front", clip(value.get<std::string>(), 60)}));
    else
      plan->front = value.get<std::string>();
  } else if (field == "windows") {
    if (!value.is_object()) {
      result->errors.push_back(subst(tr("windows: expected an object of window places, got {0}"), {dump_value(value)}));
      return;
    }
    for (const auto& [id, entry] : value.items()) {
      const std::string key = "windows." + clip(id, 60);
      if (id == "overview") {
        bool unused = false;
        plan_window(key, entry, false, &plan->overview, &unused, result);
        continue;
      }
      size_t i = 0;
      while (i < state.panels.size() && state.panels[i].info.id != id) ++i;
      if (i == state.panels.size()) {
        result->warnings.push_back(subst(tr("{0}: no panel with id '{1}', ignored"), {"windows", clip(id, 60)}));
        continue;
      }
      bool collapsed = false;
      plan_window(key, entry, true, &plan->windows[i], &collapsed, result);
      plan->controls_collapsed[i] = collapsed;
    }
  }
}

void plan_scene(const AppState& state, const nlohmann::json& scene, const std::vector<SceneOverride>& overrides,
                ScenePlan* plan, SceneLoad* result) {
  auto& errors = result->errors;
  auto& warnings = result->warnings;
  if (!scene.is_object()) {
    errors.push_back(subst(tr("a scene must be a JSON object, got {0}"), {scene.type_name()}));
    return;
  }

  // version first: a file from a future build is refused before its contents are judged.
  const auto version = scene.find("version");
  if (version == scene.end()) {
    errors.push_back(
        subst(tr("version: missing (this build reads scene version {0})"), {std::to_string(kSceneVersion)}));
    return;
  }
  if (!version->is_number_integer() || *version != kSceneVersion) {
    errors.push_back(subst(tr("version: {0} is not supported (this build reads scene version {1})"),
                           {dump_value(*version), std::to_string(kSceneVersion)}));
    return;
  }

  for (const auto& [field, value] : scene.items()) {
    if (field == "version") continue;
    // Read by the start page and File > Open only (the card's Chinese title and description, the thumbnail).
    if (field == "description" || field == "thumbnail" || field == "title_zh" || field == "description_zh") {
      if (!value.is_string())
        errors.push_back(subst(tr("{0}: expected a string, got {1}"), {field, dump_value(value)}));
    } else if (field == "theme") {
      if (value == "dark")
        plan->theme = Theme::Dark;
      else if (value == "print")
        plan->theme = Theme::Print;
      else
        errors.push_back(subst(tr("theme: expected \"dark\" or \"print\", got {0}"), {dump_value(value)}));
    } else if (field == "open") {
      if (!value.is_array()) {
        errors.push_back(subst(tr("open: expected an array of panel ids, got {0}"), {dump_value(value)}));
        continue;
      }
      for (const auto& id : value) {
        if (!id.is_string()) {
          errors.push_back(subst(tr("open: expected panel ids (strings), got {0}"), {dump_value(id)}));
          continue;
        }
        bool found = false;
        for (size_t i = 0; i < state.panels.size(); ++i)
          if (state.panels[i].info.id == id.get<std::string>()) plan->open[i] = found = true;
        if (!found) errors.push_back(subst(tr("open: no panel with id '{0}'"), {clip(id.get<std::string>(), 60)}));
      }
    } else if (field == "zoom" || field == "focus" || field == "front" || field == "slide" || field == "windows") {
      plan_presentation(state, field, value, plan, result);
    } else if (field == "exports") {
      // The session's export settings (session_exports_* below); a scene file's are ignored.
    } else if (field != "values") {
      warnings.push_back(subst(tr("unknown field '{0}' ignored"), {clip(field, 60)}));
    }
  }

  // Gather the named values: scene first, then the overrides on top.
  std::map<std::string, nlohmann::json> named;
  if (const auto values = scene.find("values"); values != scene.end()) {
    if (!values->is_object()) {
      errors.push_back(
          subst(tr("values: expected an object of \"panel.control\": value, got {0}"), {dump_value(*values)}));
    } else {
      for (const auto& [key, value] : values->items()) {
        if (find_control(state, key))
          named[key] = value;
        else
          warnings.push_back(subst(tr("unknown key '{0}' ignored"), {clip(key, 60)}));
      }
    }
  }
  for (const auto& [key, value] : overrides) {
    if (find_control(state, key))
      named[key] = value;
    else
      errors.push_back(subst(tr("{0}: no such key (transformer-workbench scene-keys lists them)"), {clip(key, 60)}));
  }

  // Every control gets a value: the named one if valid, else its default (a scene is the whole state).
  for (size_t i = 0; i < state.panels.size(); ++i) {
    const PanelSlot& slot = state.panels[i];
    for (const Control& c : slot.panel->controls().all()) {
      const std::string key = full_key(slot, c);
      const auto it = named.find(key);
      if (it == named.end()) {
        plan->values[i].push_back(c.default_value);
        continue;
      }
      const nlohmann::json value = as_control_value(c, it->second);
      if (auto problem = c.check(value, key)) errors.push_back(clip(*problem, 200));
      plan->values[i].push_back(value);
    }
  }
}

void apply_plan(AppState& state, const ScenePlan& plan) {
  state.theme = plan.theme;
  if (plan.zoom) state.zoom = *plan.zoom;
  if (plan.overview) {
    state.overview_layout = *plan.overview;
    state.place_overview_next_frame = true;
  }
  state.focused = plan.focus;
  state.slide = plan.slide;
  state.front_request = plan.front;
  if (!plan.front.empty()) state.last_active = plan.front;  // saved again as it was, even before a click
  for (size_t i = 0; i < state.panels.size(); ++i) {
    PanelSlot& slot = state.panels[i];
    // A focused panel and the slide's panel are open.
    slot.open = plan.open[i] || slot.info.id == plan.focus || slot.info.id == plan.slide.panel;
    if (plan.windows[i]) {
      slot.layout = *plan.windows[i];
      slot.place_next_frame = true;
    }
    slot.controls_collapsed = plan.controls_collapsed[i];
    const std::span<Control> controls = slot.panel->controls().all();
    for (size_t k = 0; k < controls.size(); ++k) controls[k].set(plan.values[i][k]);
  }
}

}  // namespace

SceneLoad load_scene_text(AppState& state, std::string_view text, const std::vector<SceneOverride>& overrides) {
  SceneLoad result;
  try {
    if (text.size() > kSceneMaxBytes) {
      result.errors.push_back(subst(tr("scene file is larger than {0} MiB"), {std::to_string(kSceneMaxBytes >> 20)}));
    } else {
      nlohmann::json scene;
      if (std::string why; !parse_json(text, &scene, &why, kSceneMaxDepth))
        result.errors.push_back(why.rfind("nests", 0) == 0 ? "scene " + why : clip(why, 180));
      if (result.errors.empty()) {
        ScenePlan plan;
        plan.open.assign(state.panels.size(), false);
        plan.values.resize(state.panels.size());
        plan.windows.resize(state.panels.size());
        plan.controls_collapsed.assign(state.panels.size(), false);
        plan_scene(state, scene, overrides, &plan, &result);
        if (result.errors.empty()) apply_plan(state, plan);
      }
    }
  } catch (const std::exception& e) {
    // Validation only reads; reaching here means nothing was applied yet.
    result.errors.push_back(subst(tr("scene rejected: {0}"), {clip(e.what())}));
  }
  finish(result);
  return result;
}

SceneLoad load_scene_file(AppState& state, const std::string& path, const std::vector<SceneOverride>& overrides) {
  SceneLoad result;
  if (path.empty()) {
    result.errors.push_back(tr("no scene file given"));
  } else if (std::string text, error; !read_file_bounded(path, kSceneMaxBytes, &text, &error)) {
    result.errors.push_back(error);
  } else {
    result = load_scene_text(state, text, overrides);
    for (auto& e : result.errors) e = path + ": " + e;
    for (auto& w : result.warnings) w = path + ": " + w;
  }
  finish(result);
  return result;
}

// [SECTION] --set
std::optional<std::string> parse_set_argument(const AppState& state, std::string_view argument, SceneOverride* out) {
  const size_t eq = argument.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return subst(tr("--set {0}: expected key=value, e.g. --set softmax.d_k=64"), {clip(std::string(argument), 60)});
  const std::string key(argument.substr(0, eq));
  const std::string text(argument.substr(eq + 1));
  const Control* c = find_control(state, key);
  if (!c) return subst(tr("--set {0}: no such key (transformer-workbench scene-keys lists them)"), {clip(key, 60)});
  if (!json_nesting_within(text))
    return subst(tr("--set {0}: the value nests deeper than {1} levels"),
                 {clip(key, 60), std::to_string(kJsonMaxDepth)});
  nlohmann::json value = parse_json_or_discarded(text);
  const bool wants_string = c->type == ControlType::Enum || c->type == ControlType::Text;
  if (value.is_discarded() || (wants_string && !value.is_string())) value = text;
  // An integer list may be written as the help says, comma-separated (1,2,3 or a single 8), or as JSON [1,2,3].
  if (c->type == ControlType::IntList && !value.is_array())
    if (nlohmann::json list = parse_json_or_discarded("[" + text + "]"); list.is_array()) value = std::move(list);
  value = as_control_value(*c, value);
  if (auto problem = c->check(value, key)) return "--set " + clip(*problem, 200);
  *out = {key, std::move(value)};
  return std::nullopt;
}

// [SECTION] session
std::string session_change_text(const AppState& state) {
  nlohmann::ordered_json scene = scene_to_json(state);
  scene.erase("windows");
  return scene.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string keep_aside_as_bad(const std::string& path, std::string* error) {
  // The first free name of path.bad, path.bad.2, path.bad.3, ...: an older kept file is never overwritten.
  std::error_code ec;
  std::string kept = path + ".bad";
  for (int n = 2; n <= 1000 && fs::symlink_status(kept, ec).type() != fs::file_type::not_found; ++n)
    kept = path + ".bad." + std::to_string(n);
  fs::rename(path, kept, ec);
  if (ec) {
    *error = ec.message();
    return {};
  }
  return kept;
}

std::string last_session_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  fs::path dir;
  if (xdg && xdg[0] == '/') {  // the XDG spec says relative values are to be ignored
    dir = xdg;
  } else if (const char* home = std::getenv("HOME"); home && home[0] != '\0') {
    dir = fs::path(home) / ".config";
  } else {
    return {};
  }
  return (dir / "transformer-workbench" / "last-session.json").string();
}

SceneLoad restore_last_session(AppState& state) {
  const std::string path = last_session_path();
  std::error_code ec;
  const fs::file_status status = path.empty() ? fs::file_status() : fs::symlink_status(path, ec);
  if (path.empty() || status.type() == fs::file_type::not_found) {
    SceneLoad nothing;
    nothing.ok = true;
    return nothing;
  }
  if (ec) {  // e.g. a directory on the way that cannot be searched: the file may exist, so this is not "no session"
    SceneLoad unreadable;
    unreadable.errors.push_back(path + ": cannot read (" + ec.message() + ")");
    finish(unreadable);
    return unreadable;
  }
  SceneLoad loaded = load_scene_file(state, path);
  if (loaded.ok) {
    if (std::string problem = session_exports_from_file(session_exports_path(), &state.exports); !problem.empty())
      loaded.warnings.push_back(problem);
    session_language_from_file(session_exports_path());
  }
  return loaded;
}

std::string session_dir_problem() {
  const std::string path = last_session_path();
  if (path.empty()) return tr("neither XDG_CONFIG_HOME nor HOME is set, so the session will not be saved");
  // The nearest existing ancestor decides: it must be a directory we may write into (or search, when deeper).
  fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    const fs::file_status st = fs::status(p, ec);
    if (ec && st.type() != fs::file_type::not_found)
      return subst(tr("cannot use {0} ({1}), so the session will not be saved"), {dir.string(), ec.message()});
    if (st.type() == fs::file_type::not_found) {
      if (p == p.parent_path()) break;
      continue;
    }
    if (st.type() != fs::file_type::directory)
      return subst(tr("{0} is not a directory, so the session cannot be saved in {1}"), {p.string(), dir.string()});
    const int need = p == dir ? (R_OK | W_OK | X_OK) : (W_OK | X_OK);
    if (::access(p.c_str(), need) != 0)
      return subst(tr("cannot write in {0} ({1}), so the session will not be saved"),
                   {p.string(), std::strerror(errno)});
    return {};
  }
  return {};
}

bool save_last_session(const AppState& state, std::string* error) {
  const std::string path = last_session_path();
  if (path.empty()) {
    *error = tr("neither XDG_CONFIG_HOME nor HOME is set, so the session was not saved");
    return false;
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) {
    *error = subst(tr("cannot create {0}: {1}"), {fs::path(path).parent_path().string(), ec.message()});
    return false;
  }
  if (!save_scene_file(state, path, error)) return false;
  // Beside the session scene (which stays a plain scene file): the export settings. Losing them is not worth an
  // error at exit; the next export asks for the folder again.
  nlohmann::ordered_json exports;
  session_exports_to_json(state.exports, &exports);
  exports["language"] = language_code(language());
  std::string ignored;
  write_file_atomic(session_exports_path(),
                    exports.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n", &ignored);
  return true;
}

void restore_session_at_startup(AppState& state, bool fresh) {
  // Said at start-up, not only when saving at exit fails, so the user knows before changing anything.
  if (const std::string problem = session_dir_problem(); !problem.empty()) {
    std::fprintf(stderr, "transformer-workbench: last session: %s\n", problem.c_str());
    state.status = tr("Last session: ") + problem;
  }
  if (fresh) {
    // --fresh starts from defaults without discarding the saved session: only a change made in this run replaces it.
    state.fresh_session_baseline = session_change_text(state);
    return;
  }
  const SceneLoad restored = restore_last_session(state);
  for (const auto& w : restored.warnings) std::fprintf(stderr, "transformer-workbench: last session: %s\n", w.c_str());
  if (restored.ok) {
    if (!restored.warnings.empty()) state.status = tr("Last session: ") + restored.warnings.back();
    return;
  }
  // The file that failed (corrupt, from a newer version, one bad value, unreadable) is moved aside, never
  // overwritten by this run's session: the user may want to repair it.
  const std::string path = last_session_path();
  std::string why;
  const std::string kept = keep_aside_as_bad(path, &why);
  std::string where;
  if (!kept.empty()) {
    where = subst(tr("; the file was kept as {0}"), {kept});
  } else {
    state.keep_last_session = true;
    where = subst(tr("; the file was left in place and will not be overwritten (cannot rename it: {0})"), {why});
  }
  state.status = tr("Last session not restored: ") + restored.error + where;
  std::fprintf(stderr, "transformer-workbench: last session not restored (starting fresh): %s%s\n",
               restored.error.c_str(), where.c_str());
}

void save_session_at_exit(const AppState& state) {
  if (state.keep_last_session) return;
  if (!state.fresh_session_baseline.empty() && session_change_text(state) == state.fresh_session_baseline) return;
  std::string error;
  if (!save_last_session(state, &error))
    std::fprintf(stderr, "transformer-workbench: last session not saved: %s\n", error.c_str());
}

// [SECTION] session: export settings
// The GUI's export settings live with the session, in export-settings.json beside last-session.json (a lecture's
// scene says what to show, not where this machine keeps its figures). A value of the wrong type or a relative folder is
// ignored: the default stays.
std::string session_exports_path() {
  const std::string session = last_session_path();
  return session.empty() ? std::string() : (fs::path(session).parent_path() / "export-settings.json").string();
}

void session_exports_to_json(const ExportSettings& ex, nlohmann::ordered_json* session) {
  (*session)["exports"] = {{"dir", ex.dir},
                           {"png", ex.png},
                           {"svg", ex.svg},
                           {"csv", ex.csv},
                           {"png_scale", ex.png_scale},
                           {"print_theme", ex.print_theme},
                           {"slide", ex.slide},
                           {"caption", ex.caption}};
}

void session_exports_from_json(const nlohmann::json& session, ExportSettings* ex) {
  const auto it = session.is_object() ? session.find("exports") : session.end();
  if (it == session.end() || !it->is_object()) return;
  const nlohmann::json& e = *it;
  if (const auto d = e.find("dir"); d != e.end() && d->is_string() && fs::path(d->get<std::string>()).is_absolute())
    ex->dir = d->get<std::string>();
  for (auto [key, flag] : {std::pair{"png", &ex->png},
                           {"svg", &ex->svg},
                           {"csv", &ex->csv},
                           {"print_theme", &ex->print_theme},
                           {"slide", &ex->slide},
                           {"caption", &ex->caption}})
    if (const auto v = e.find(key); v != e.end() && v->is_boolean()) *flag = v->get<bool>();
  if (const auto v = e.find("png_scale"); v != e.end() && v->is_number_integer() && *v >= 1 && *v <= 4)
    ex->png_scale = v->get<int>();
}

// The interface language is the user's, not the lecture's: it is kept here too, never in a scene file.
void session_language_from_file(const std::string& path) {
  std::string text, error;
  if (path.empty() || !read_file_bounded(path, kSceneMaxBytes, &text, &error)) return;
  const nlohmann::json j = parse_json_or_discarded(text);
  if (!j.is_object()) return;
  if (const auto v = j.find("language"); v != j.end() && v->is_string())
    if (const auto lang = parse_language(v->get<std::string>())) set_language(*lang);
}
std::string session_exports_from_file(const std::string& path, ExportSettings* ex) {
  std::string text, error;
  std::error_code ec;
  if (path.empty() || fs::symlink_status(path, ec).type() == fs::file_type::not_found) return {};
  nlohmann::json settings;
  if (read_file_bounded(path, kSceneMaxBytes, &text, &error) && parse_json(text, &settings, &error) &&
      settings.is_object()) {
    session_exports_from_json(settings, ex);
    return {};
  }
  if (error.empty()) error = tr("not a JSON object");
  // Broken (cut off mid-write, edited by hand): the defaults stay, and the file is kept for the user, as the session.
  std::string why;
  const std::string kept = keep_aside_as_bad(path, &why);
  return kept.empty() ? subst(tr("{0}: {1}; export settings reset to defaults"), {path, clip(error, 160)})
                      : subst(tr("{0}: {1}; export settings reset to defaults, the file was kept as {2}"),
                              {path, clip(error, 160), kept});
}

}  // namespace tw
