#pragma once
// Text metrics and glyph rendering through FreeType, shared by the layout (text widths for margins), the PNG
// rasteriser and the screen's font atlas (app/fonts.cpp builds it with imgui_freetype from the same font chain and
// takes its advances from glyph_advance below), so widths on screen and in exports agree. Neither applies kerning.
//
// The font chain, defined once here (font_chain): each face (Regular, Italic, Bold, Math) is a DejaVu font first,
// then Noto Sans CJK SC for Chinese, Japanese and Korean, then the other DejaVu faces for symbols the first lacks.
// A character no font of the chain has, and any character beyond the Basic Multilingual Plane (emoji: Debian's
// ImGui stores characters in 16 bits and cannot draw them), shows as a readable placeholder such as "U+1F642"
// (displayable_text), the same on screen, in PNG and in SVG — never '?'.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/utf8.h"

namespace tw::plot {

// Path of the figure font: TW_FONT_DIR "/DejaVuSans.ttf" (the environment variable TW_FONT_DIR overrides the
// directory, as TW_CJK_FONT_DIR does for Noto Sans CJK).
std::string figure_font_path();
// Empty when the figure font (DejaVu Sans) loaded; otherwise a one-line message (exports that need glyphs fail
// with it).
const std::string& figure_font_error();
// Empty when every font of the chain loaded; otherwise one line naming what is missing, what it costs and the
// Debian package to install. The app shows it once; exports still work (missing characters become placeholders).
const std::string& font_chain_warning();

// The faces of the font chain. Math layout sets variables in Italic, bold vectors in Bold, and large operators,
// radicals and growing delimiters in Math (an OpenType math font). Every face falls back along the same chain for
// characters it lacks (CJK, symbols).
enum class FontStyle { Regular, Italic, Bold, Math };

// One font of a face's chain, loaded (memory-mapped, read-only for the life of the process).
struct ChainFont {
  std::string path;
  int face_index = 0;  // the face within a collection (.ttc): Noto Sans CJK SC is face 2
  std::string family;  // for SVG's font-family list
  bool cjk = false;    // a CJK collection (thousands of glyphs): the screen rasterises it for Regular only
  const unsigned char* data = nullptr;
  size_t size = 0;
  // Pixel height (ascent − descent, FreeType's REAL_DIM and ImGui's convention) to request from this font so its
  // em matches the em of the face's first font at pixel height 1: CJK glyphs stand as tall as the Latin ones do
  // beside them, as a browser sets both at one font-size.
  float size_factor = 1;
};
// The loaded fonts of `style` in fallback order (missing files left out; empty when none loaded).
const std::vector<ChainFont>& font_chain(FontStyle style = FontStyle::Regular);
// The CSS font-family list of `style` for SVG text: the chain's families, then generic fallbacks.
std::string svg_font_family(FontStyle style = FontStyle::Regular);

// True when some font of the chain of `style` draws `cp` (and cp is in the Basic Multilingual Plane).
bool has_glyph(uint32_t cp, FontStyle style = FontStyle::Regular);
// `utf8` with every character that has no glyph replaced by its placeholder "U+XXXX"; the text itself when
// nothing needs replacing. text_width and render_text measure and draw this form; the screen and SVG show it.
std::string displayable_text(std::string_view utf8, FontStyle style = FontStyle::Regular);
// Advance of `cp` at pixel height `size`, unhinted and unrounded (the width text_width sums); 0 without a glyph.
float glyph_advance(uint32_t cp, float size, FontStyle style = FontStyle::Regular);

// Width in pixels of `utf8` at pixel height `size` (falls back to an estimate if the font is missing).
float text_width(const std::string& utf8, float size, FontStyle style = FontStyle::Regular);
// Distance from the top of the text box to the baseline at pixel height `size` (as ImGui places it).
float text_baseline(float size);
// The CSS/SVG font-size (the em) that draws glyphs as large as pixel height `size` does here. `size` is the font's
// ascent − descent (FreeType's REAL_DIM and ImGui's convention); an em is smaller (DejaVu Sans: 0.859 of it), so
// writing `size` as font-size drew SVG text about 16% too wide.
float text_em_size(float size);

// An 8-bit coverage bitmap of one line of text, the box's top-left at (0, 0), box height ≈ size.
struct TextBitmap {
  int width = 0, height = 0;
  std::vector<uint8_t> alpha;
};
// Renders `utf8` at pixel height `size`; `x_offset` is the fractional pixel position of the box's left edge.
TextBitmap render_text(const std::string& utf8, float size, float x_offset = 0, FontStyle style = FontStyle::Regular);

}  // namespace tw::plot
