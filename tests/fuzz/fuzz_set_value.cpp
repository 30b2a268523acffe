// libFuzzer target: `--set key=value` on the command line of export and train, for any key and value bytes: either
// an override that passes the control's own check, or one line saying why not (never a crash on deep nesting, a
// huge number or a NUL).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/app_state.h"
#include "app/scene.h"

namespace {
tw::AppState& fuzz_state() {
  static tw::AppState state = tw::make_app_state();
  return state;
}
// Real keys of several control types, so most inputs reach a control's parser instead of "no such key".
constexpr const char* kKeys[] = {
    "softmax.d_k=", "norms.dims=", "tokenizers.file=", "train.seed=", "forward.model=", "rope.base=", ""};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string argument =
      std::string(kKeys[data[0] % std::size(kKeys)]) + std::string(reinterpret_cast<const char*>(data + 1), size - 1);
  tw::SceneOverride out;
  const auto problem = tw::parse_set_argument(fuzz_state(), argument, &out);
  if (problem && (problem->empty() || problem->find('\n') != std::string::npos)) std::abort();
  if (!problem) {
    // An accepted override applies like a scene value.
    tw::AppState& state = fuzz_state();
    const std::string before = tw::scene_to_text(state);
    const tw::SceneLoad load = tw::load_scene_text(state, before, {out});
    if (!load.ok && tw::scene_to_text(state) != before) std::abort();
  }
  return 0;
}
