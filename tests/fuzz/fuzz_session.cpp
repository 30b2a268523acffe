// libFuzzer target: the GUI's saved state at start-up, last-session.json (a scene) and export-settings.json, read
// from any bytes: the scene loads or changes nothing and says why; the export settings keep their defaults for
// anything they cannot use and every value they take stays in its documented range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "app/app_state.h"
#include "app/scene.h"
#include "core/base/json_parse.h"

namespace {
tw::AppState& fuzz_state() {
  static tw::AppState state = tw::make_app_state();  // panels are costly to build; reuse across inputs
  return state;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tw::AppState& state = fuzz_state();
  const std::string before = tw::scene_to_text(state);
  const tw::SceneLoad load = tw::load_scene_text(state, text);
  if (!load.ok && (load.error.empty() || tw::scene_to_text(state) != before)) std::abort();
  // export-settings.json: the same bytes as the file beside the session.
  tw::ExportSettings ex;
  const tw::ExportSettings defaults;
  tw::session_exports_from_json(tw::parse_json_or_discarded(text), &ex);
  if (ex.png_scale < 1 || ex.png_scale > 4) std::abort();
  if (ex.dir != defaults.dir && !std::filesystem::path(ex.dir).is_absolute()) std::abort();
  return 0;
}
