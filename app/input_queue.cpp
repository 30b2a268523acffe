#include "app/input_queue.h"

#include <algorithm>
#include <utility>

namespace tw {

std::vector<InputEvent> InputQueue::take_frame() {
  std::vector<InputEvent> frame;
  std::vector<std::pair<InputEvent::Kind, int>> changed;  // keys and buttons changed in this frame
  bool wheel = false, other_key = false;
  while (!events_.empty()) {
    const InputEvent& e = events_.front();
    if (e.kind == InputEvent::Kind::Key || e.kind == InputEvent::Kind::MouseButton) {
      const std::pair<InputEvent::Kind, int> what{e.kind, e.code};
      if (wheel || (e.modifier && other_key) || std::find(changed.begin(), changed.end(), what) != changed.end()) break;
      changed.push_back(what);
      other_key = other_key || !e.modifier;
    } else if (e.kind == InputEvent::Kind::Wheel) {
      wheel = true;
    }
    frame.push_back(e);
    events_.pop_front();
  }
  return frame;
}

}  // namespace tw
