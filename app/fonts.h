#pragma once
#include <memory>
#include <string>
#include <vector>

struct ImFontAtlas;

namespace tw {

// Glyph ranges every atlas holds whatever text is in use: Latin-1, Greek, Cyrillic, sub/superscripts, arrows, math
// operators, ᵀ, ✓ ✗, ▶ ■, CJK punctuation and full-width forms, U+FFFD.
const unsigned short* workbench_glyph_ranges();
// workbench_glyph_ranges() plus every character of the Basic Multilingual Plane noted in use
// (core/base/text_in_use.h), as ImGui glyph ranges (pairs, 0-terminated).
std::vector<unsigned short> glyph_ranges_in_use();

// Adds the four faces of the font chain (views/plot/text.h font_chain: DejaVu Sans, its oblique and bold cuts and
// DejaVu Math TeX Gyre, each falling back to Noto Sans CJK SC and the other DejaVu fonts) at `pixel_size` (rounded
// to whole pixels: imgui_freetype truncates sizes) to `atlas`, builds it with FreeType (imgui_freetype, as PNG
// exports draw glyphs), sets each glyph's advance to the exporters' unrounded advance (so text on screen is as wide
// as the layout measured), and installs the faces for the plot layer (plot::set_screen_font). Glyphs: the base
// ranges and the characters in use, so the atlas stays small. If DejaVu Sans is missing, ImGui's built-in font is
// used. Returns "" or a one-line warning for the UI (a missing font file and its Debian package); never fails hard.
// `font_dir` is unused (the chain names its files; TW_FONT_DIR / TW_CJK_FONT_DIR in the environment override).
std::string add_fonts(ImFontAtlas& atlas, const std::string& font_dir, float pixel_size);

// The same fonts in the current ImGui context's atlas (io.Fonts).
std::string load_fonts(const std::string& font_dir, float pixel_size);

// A finished atlas (glyphs rasterised, RGBA texture data ready) for ImGui::CreateContext(atlas). Needs no ImGui
// context, so it can be built on another thread while the window opens, as long as no ImGui context is created or
// destroyed meanwhile (ImGui's allocator counts allocations in the current context). `warning` as add_fonts.
std::unique_ptr<ImFontAtlas> build_font_atlas(const std::string& font_dir, float pixel_size, std::string* warning);

// Between frames: notes the text of the text box being edited (typed or pasted characters) and returns true when
// characters came into use that the last atlas built lacks; the app then rebuilds the atlas as it does for zoom.
bool font_atlas_out_of_date();

}  // namespace tw
