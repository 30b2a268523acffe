#pragma once
// Input events in the order they happened, handed to ImGui one frame's worth at a time.
//
// Dear ImGui 1.86 (Debian's) reads key and mouse state once a frame: a key pressed and released between two frames
// (a quick tap, an xdotool keystroke, a presenter's clicker) left no trace, and two clicks inside one frame counted
// as one, so double-clicks were missed. The window's GLFW callbacks push every event here instead; each frame takes
// events in order until one would change a key or button a second time (or a key changes after a wheel step, which
// must see the modifiers as they were, as must a key pressed just before Ctrl is let go), so a press and its release
// always land in different frames and every event is handled exactly once. No GLFW or ImGui in here: the queue is
// tested on its own (tests/app/test_input_queue).

#include <cstddef>
#include <deque>
#include <vector>

namespace tw {

struct InputEvent {
  enum class Kind { Key, MouseButton, Wheel, Char };
  Kind kind = Kind::Key;
  int code = 0;       // Key: the GLFW key code; MouseButton: the button (0 left, 1 right, 2 middle); Char: codepoint
  bool down = false;  // Key, MouseButton: pressed (true) or released
  bool modifier = false;           // Key: Ctrl, Shift, Alt or Super
  float wheel_x = 0, wheel_y = 0;  // Wheel: the steps
  float x = -1, y = -1;            // MouseButton, Wheel: the cursor position when it happened (window pixels)
};

class InputQueue {
 public:
  void push(const InputEvent& e) { events_.push_back(e); }
  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }
  // The events of the next frame, oldest first: every queued event up to (not including) the first one that
  // changes a key or button already changed in this frame, a key or button change after a wheel step, or a
  // modifier change after another key or button changed (Ctrl released just after T: the T still sees Ctrl).
  std::vector<InputEvent> take_frame();

 private:
  std::deque<InputEvent> events_;
};

}  // namespace tw
