#pragma once
// Scene files: the whole workbench state — open panels, theme, every control of every panel — as JSON.
//
//   {
//     "version": 1,                        // required; this build reads kSceneVersion only
//     "description": "Why this preset",    // optional, shown in File > Open
//     "title_zh": "softmax 饱和",           // optional: the start card's title and the description in Chinese
//     "description_zh": "…",
//     "thumbnail": "stability.zloss",      // optional: <panel>.<figure> on the preset's start-page card
//     "theme": "print",                    // optional: dark | print (default dark)
//     "zoom": 2,                           // optional: 0.75 … 3 (absent: the zoom stays as it is)
//     "focus": "softmax",                  // optional: the panel filling the window (absent: none)
//     "slide": {"panel": "softmax", "figure": "probs", "controls": ["d_k"]},  // optional: slide mode (absent: off)
//     "windows": {                         // optional: where windows were (absent ones stay where they are)
//       "softmax": {"x": 560, "y": 40, "w": 1000, "h": 700, "collapsed": false, "controls_collapsed": true},
//       "overview": {"x": 20, "y": 40, "w": 520, "h": 560}
//     },
//     "open": ["softmax", "masks"],        // optional: ids of the panel windows that are open
//     "values": {                          // optional: dotted <panel>.<control> keys (see `scene-keys`)
//       "softmax.d_k": 64
//     }
//   }
//
// A scene is the whole state, not a patch: a key missing from "values" is reset to its default, a panel
// missing from "open" is closed. So a preset naming three keys looks the same whatever was on screen before.
//
// Loading validates everything first and applies only when every value passed, so a rejected scene leaves
// the state exactly as it was. Unknown keys and fields are warnings (the rest is applied); bad JSON, a wrong
// or missing version, an unknown panel in "open", a wrong type or an out-of-range value are errors naming
// the key. Any input bytes are safe to load (load_scene_text is the fuzzing entry point). Window places and the zoom
// are presentation, not content: a preset without them leaves the screen as it is; out-of-range ones (a negative
// size, a zoom of 10) are clamped with a warning; the GUI also pulls windows back onto a smaller screen.
// docs/scene-format.md says the same for people writing presets; docs/scenes.md lists every key.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/app_state.h"

namespace tw {

constexpr int kSceneVersion = 1;
constexpr int kSceneMaxDepth = 32;  // deeper nesting is refused (scenes need 3 levels)

struct SceneLoad {
  bool ok = false;
  std::string error;                  // one line for the status bar when !ok (the first problem, and a count)
  std::vector<std::string> errors;    // every problem found, each naming its key
  std::vector<std::string> warnings;  // unknown keys and fields; the scene was still applied
};

// One `--set key=value`: a full dotted key and its value as JSON.
using SceneOverride = std::pair<std::string, nlohmann::json>;

// The state as a scene (keys in panel and declaration order, floats in their shortest exact form).
nlohmann::ordered_json scene_to_json(const AppState& state);
std::string scene_to_text(const AppState& state);  // pretty-printed, newline-terminated, deterministic

// Validates `text` as a scene with `overrides` applied on top, then applies it; on error nothing changes.
// An override naming an unknown key is an error (it was typed on purpose), unlike an unknown scene key.
SceneLoad load_scene_text(AppState& state, std::string_view text, const std::vector<SceneOverride>& overrides = {});
SceneLoad load_scene_file(AppState& state, const std::string& path, const std::vector<SceneOverride>& overrides = {});
// Writes the scene atomically (temporary file, then rename). Returns false and fills `error` on failure.
bool save_scene_file(const AppState& state, const std::string& path, std::string* error);

// Parses "key=value" from the command line. The value is read as JSON; for enum and text controls a value
// that is not a JSON string is taken literally ("--set masks.kind=causal"). Returns an error line or nothing.
std::optional<std::string> parse_set_argument(const AppState& state, std::string_view argument, SceneOverride* out);

// How a control's value is written to scenes and docs: floats in the shortest form that reads back as the
// same float (0.1, not 0.10000000149011612); everything else unchanged.
nlohmann::json scene_value(const Control& control, const nlohmann::json& value);

// The last session lives in $XDG_CONFIG_HOME/transformer-workbench/last-session.json (or ~/.config/...).
// Empty when neither XDG_CONFIG_HOME nor HOME is set: then nothing is restored or saved.
std::string last_session_path();
// A missing file is not a problem (ok, no warnings). A broken one is reported and the state stays default.
SceneLoad restore_last_session(AppState& state);
bool save_last_session(const AppState& state, std::string* error);
// Why the session could not be saved (a file where the directory should be, no write permission), or "".
std::string session_dir_problem();
// main(): restore at start-up unless --fresh, save on exit. Problems go to stderr and state.status as one
// line each and never stop the app. A session file that fails to load is renamed to last-session.json.bad (the
// message says where); with --fresh the saved session is rewritten at exit only if the state was changed.
void restore_session_at_startup(AppState& state, bool fresh);
// The export settings (folder, formats, scale, theme) are saved with the session as {"exports": {...}} in
// session_exports_path() (export-settings.json beside last-session.json) and read back with it; scene files do not
// carry them (an "exports" field in a scene is accepted and ignored).
std::string session_exports_path();
void session_exports_to_json(const ExportSettings& ex, nlohmann::ordered_json* session);
void session_exports_from_json(const nlohmann::json& session, ExportSettings* ex);
// Returns "" when the file is missing or was read; otherwise a line saying what was wrong. A broken file leaves the
// defaults and is renamed aside with keep_aside_as_bad (the line says where).
std::string session_exports_from_file(const std::string& path, ExportSettings* ex);
// The interface language saved beside the export settings ({"language": "zh"}); sets it when the file names one.
void session_language_from_file(const std::string& path);
void save_session_at_exit(const AppState& state);
// What decides whether the session changed and is worth saving: the scene without window places, which the first
// frames set by themselves (a screenshot run must not replace the user's session).
std::string session_change_text(const AppState& state);
// Renames `path` to the first free name of path.bad, path.bad.2, path.bad.3, ... (an older kept file is never
// overwritten) and returns that name, or "" with the reason in *error.
std::string keep_aside_as_bad(const std::string& path, std::string* error);

}  // namespace tw
