// libFuzzer target: the scene loader validates before applying, so any bytes either load or leave the state
// exactly as it was, with a message naming the problem.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/app_state.h"
#include "app/scene.h"

namespace {
tw::AppState& fuzz_state() {
  static tw::AppState state = tw::make_app_state();  // panels are costly to build; reuse across inputs
  return state;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tw::AppState& state = fuzz_state();
  const std::string before = tw::scene_to_text(state);
  const tw::SceneLoad load = tw::load_scene_text(state, std::string_view(reinterpret_cast<const char*>(data), size));
  if (!load.ok) {
    if (load.error.empty()) std::abort();                  // a refusal must say why
    if (tw::scene_to_text(state) != before) std::abort();  // and must change nothing
  }
  return 0;
}
