#pragma once
// Text metrics and glyph rendering with DejaVu Sans through stb_truetype, shared by the layout (text
// widths for margins) and the PNG rasteriser. ImGui loads the same font file at the same pixel height
// and neither applies kerning, so widths on screen and in exports agree.

#include <cstdint>
#include <string>
#include <vector>

#include "core/text/utf8.h"

namespace tw::plot {

// Path of the figure font: TW_FONT_DIR "/DejaVuSans.ttf".
std::string figure_font_path();
// Empty when the font loaded; otherwise a one-line message (exports that need glyphs fail with it).
const std::string& figure_font_error();

// The faces of the font chain. Math layout sets variables in Italic, bold vectors in Bold, and large operators,
// radicals and growing delimiters in Math (an OpenType math font). Every face falls back along the same chain for
// characters it lacks (CJK, symbols).
enum class FontStyle { Regular, Italic, Bold, Math };

// Width in pixels of `utf8` at pixel height `size` (falls back to an estimate if the font is missing).
float text_width(const std::string& utf8, float size, FontStyle style = FontStyle::Regular);
// Distance from the top of the text box to the baseline at pixel height `size` (as ImGui places it).
float text_baseline(float size);
// The CSS/SVG font-size (the em) that draws glyphs as large as pixel height `size` does here. `size` is the font's
// ascent − descent (stb_truetype's and ImGui's convention); an em is smaller (DejaVu Sans: 0.859 of it), so writing
// `size` as font-size drew SVG text about 16% too wide.
float text_em_size(float size);

// An 8-bit coverage bitmap of one line of text, the box's top-left at (0, 0), box height ≈ size.
struct TextBitmap {
  int width = 0, height = 0;
  std::vector<uint8_t> alpha;
};
// Renders `utf8` at pixel height `size`; `x_offset` is the fractional pixel position of the box's left edge.
TextBitmap render_text(const std::string& utf8, float size, float x_offset = 0, FontStyle style = FontStyle::Regular);

}  // namespace tw::plot
