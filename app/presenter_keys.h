#pragma once
// The keys a presenter's clicker sends, read once per frame: PageDown / PageUp (what remote clickers send) move one
// step forward / back, whoever uses them (the lesson bar, slide mode). Ignored while a text field is being edited.

namespace tw {

// +1 for next (PageDown), -1 for previous (PageUp), 0 otherwise. Call inside the frame (reads ImGui's key state).
int presenter_step();

}  // namespace tw
