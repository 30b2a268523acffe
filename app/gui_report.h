#pragma once
// What is on screen after a frame, as JSON, for the GUI test (tests/gui/interaction_test.sh) that drives the real
// window with xdotool: the menu bar and every window's rectangle, the window in front, the figures with their
// rectangles, scroll and zoom, the theme and the presentation zoom. Written with --gui-report FILE after each frame.

#include <string>

namespace tw {

struct AppState;
// Returns false (with `error`) when the file cannot be written.
bool write_gui_report(const AppState& state, const std::string& path, std::string* error);

}  // namespace tw
