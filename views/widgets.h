#pragma once
// Small ImGui helpers shared by every panel (the one place for them, as Tracy's TracyImGui.hpp).

#include <string>

namespace tw {

// A greyed "(?)" that shows `text` as a tooltip on hover; placed on the same line as the previous item.
void help_marker(const char* text);
// The panel's one-paragraph explanation, wrapped, in a collapsible header open by default.
void panel_explanation(const char* text);
// Centered grey text for a panel or figure with nothing to show yet.
void empty_state(const char* text);
// A green check or red cross followed by a label, for live invariant checks.
void check_mark(bool ok, const char* label);
// Text in the warning colour (yellow-orange).
void warning_text(const char* text);

}  // namespace tw
