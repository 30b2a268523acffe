#pragma once
// The paragraph on top of each panel ("About this panel"), by panel id, in the interface language.
//
// The prose lives in views/text/<id>.txt as plain UTF-8, where it reads and diffs as text rather than as C
// string literals full of \x escapes; formulas are written as $…$ math. views/text/panel_text.cmake turns the
// files into panel_text_strings.cpp (committed, so xgettext extracts it): lines are joined with spaces, and a
// blank line starts a new paragraph. Each paragraph is one catalogue entry.

#include <string_view>

namespace tw {

// The explanation of panel `id`, each paragraph translated (tr) and paragraphs joined by '\n'; "" when views/text
// has no <id>.txt (test_panel_text checks every panel has one). The pointer stays valid for the life of the
// process.
const char* panel_text(std::string_view id);

}  // namespace tw
