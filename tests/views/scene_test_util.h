#pragma once
// Scene test helper: a state saved as scene text and read back into a fresh state, as Save then Open do.
#include <string>

#include "app/app_state.h"
#include "app/scene.h"

namespace tw::testing {

struct SceneRoundTrip {
  std::string text;  // the saved scene
  AppState loaded;   // a fresh state (make_app_state) with `text` loaded into it
  SceneLoad result;  // what the load said
};

inline SceneRoundTrip scene_round_trip(const AppState& saved) {
  SceneRoundTrip t{scene_to_text(saved), make_app_state(), {}};
  t.result = load_scene_text(t.loaded, t.text);
  return t;
}

}  // namespace tw::testing
