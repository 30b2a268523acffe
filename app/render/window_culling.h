#pragma once
// Draw only what is visible: a window entirely behind another one (the pages of the tiling cover one another
// exactly, a maximised panel covers the rest) is neither built nor rasterized.

#include <string>

namespace tw {

// Call right before ImGui::Begin(name). When the window is entirely covered by an opaque window in front of it,
// it is hidden for this frame: Begin returns false, so the caller skips its body, and none of it is drawn. It keeps
// its place, z-order, scroll and state, and is built again the frame it comes forward (a drag or a resize of the
// window in front uncovers it, the user brings it to the front). Returns true when it hid the window.
// A window with a pending SetNextWindowPos/Size/Focus/Collapsed is never hidden: its place changes this frame.
bool hide_window_if_covered(const char* name);

// The window `name` opens behind others this frame (a later page of a new tiling, whose first page comes to the
// front a frame later): its next begin_window_unless_covered() creates or places it but neither builds nor draws it.
void keep_window_behind_this_frame(const char* name);

// ImGui::Begin(name, p_open, flags) after hide_window_if_covered(name), honouring keep_window_behind_this_frame.
// Returns Begin's result (false: skip the body); ImGui::End() is called either way, as after Begin.
bool begin_window_unless_covered(const char* name, bool* p_open, int flags);

}  // namespace tw
