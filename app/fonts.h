#pragma once
#include <memory>
#include <string>

struct ImFontAtlas;

namespace tw {

// Glyph ranges the panels need: Latin-1, Greek, sub/superscripts, arrows, math operators, ᵀ, ✓ ✗, ▶ ■.
const unsigned short* workbench_glyph_ranges();

// Adds DejaVu Sans at `pixel_size` to `atlas`. If the font file is missing, ImGui's built-in font is used and a
// one-line warning is returned for the UI to show; never fails hard. (No monospace font: no view uses one, and each
// font doubles the atlas built and uploaded at start-up.)
// Returns an empty string on success.
std::string add_fonts(ImFontAtlas& atlas, const std::string& font_dir, float pixel_size);

// The same fonts in the current ImGui context's atlas (io.Fonts).
std::string load_fonts(const std::string& font_dir, float pixel_size);

// A finished atlas (glyphs rasterised, RGBA texture data ready) for ImGui::CreateContext(atlas). Needs no ImGui
// context, so it can be built on another thread while the window opens, as long as no ImGui context is created or
// destroyed meanwhile (ImGui's allocator counts allocations in the current context). `warning` as add_fonts.
std::unique_ptr<ImFontAtlas> build_font_atlas(const std::string& font_dir, float pixel_size, std::string* warning);

}  // namespace tw
