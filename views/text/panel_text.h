#pragma once
// The paragraph on top of each panel ("About this panel"), by panel id.
//
// The prose lives in views/text/<id>.txt as plain UTF-8, where it reads and diffs as text rather than as C
// string literals full of \x escapes. CMake compiles the files in (views/text/panel_text.cmake): lines are joined
// with spaces, and a blank line starts a new paragraph.

#include <string_view>

namespace tw {

// The explanation of panel `id`; "" when views/text has no <id>.txt (test_panel_text checks every panel has one).
const char* panel_text(std::string_view id);

}  // namespace tw
