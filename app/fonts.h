#pragma once
#include <string>

namespace tw {

// Glyph ranges the panels need: Latin-1, Greek, sub/superscripts, arrows, math operators, ᵀ, ✓ ✗, ▶ ■.
const unsigned short* workbench_glyph_ranges();

// Loads DejaVu Sans (regular + monospace) at `pixel_size`. If the font file is missing, ImGui's built-in font is
// used and a one-line warning is returned for the UI to show; never fails hard.
// Returns an empty string on success.
std::string load_fonts(const std::string& font_dir, float pixel_size);

}  // namespace tw
