#pragma once
// Formulas as a textbook sets them: text with TeX-subset math between dollars ("Softmax $S_i = e^{x_i}$"), laid out
// once into positioned glyph runs, rules and strokes that the screen, PNG and SVG all draw. No ImGui here.
//
//   MathLayoutPtr m = layout_math("scale $\\frac{1}{\\sqrt{d_k}}$", 15);
//   for (const MathRun& r : m->runs) draw(r.text, r.style, r.size, x + r.x, baseline + r.y);
//
// The layout follows TeX's rules for math (The TeXbook, appendix G), simplified: four styles (display, text,
// script, scriptscript) at 1, 1, 0.7 and 0.5 of the size; italic letters and upright digits, operators and
// operator names; sub/superscripts shifted by σ-parameters; fractions on the math axis; radicals with a vinculum;
// \left…\right delimiters that grow to cover their content; the spacing table between ord, op, bin, rel, open,
// close, punct and inner atoms. A command it does not know is drawn as its source in the warning colour and named
// in MathLayout::unsupported, never dropped. "\$" is a literal dollar; an unmatched "$" is drawn as itself.
//
// Coordinates are logical pixels, x to the right from the left edge, y DOWN from the baseline (negative = above).

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "views/plot/text.h"

namespace tw::plot {

struct MathPoint {
  float x = 0, y = 0;
};

// Glyphs of one face and size on one baseline, drawn as one string.
struct MathRun {
  std::string text;  // UTF-8
  FontStyle style = FontStyle::Regular;
  float size = 12;       // pixel height (text.h convention)
  float x = 0;           // left edge of the run
  float y = 0;           // baseline, relative to the line's baseline (y down)
  float width = 0;       // text_width(text, size, style)
  bool warning = false;  // the source of an unsupported command
};

// A filled rectangle: fraction bars, vinculums, \bar, \overline.
struct MathRule {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// A stroked path: grown delimiters, the radical sign, \vec's arrow.
struct MathStroke {
  std::vector<MathPoint> points;
  float width = 1;
};

struct MathLayout {
  std::vector<MathRun> runs;  // reading order
  std::vector<MathRule> rules;
  std::vector<MathStroke> strokes;
  float width = 0;
  float ascent = 0;                      // above the baseline (≥ the font's ascent at `size`)
  float descent = 0;                     // below the baseline (≥ the font's descent at `size`)
  bool has_math = false;                 // the source had a $…$ span
  std::vector<std::string> unsupported;  // commands drawn as source ("\\foo"), in order of appearance
  // Where a formula passed kMaxMathDepth levels of nesting (a character index into its $…$ span; -1: it did not).
  // The rest of that formula is drawn as a warning "…": a lesson or scene text is refused at load on this.
  long nesting_cut = -1;
};

// Deepest nesting of groups, fractions, radicals and scripts the layout follows (see MathLayout::nesting_cut).
constexpr int kMaxMathDepth = 48;
using MathLayoutPtr = std::shared_ptr<const MathLayout>;

struct MathOptions {
  bool display = false;  // formula lines: \frac, \sum at display size; running text: inline (text style)
};

// True when `s` has a $…$ span to typeset (a lone "$" or "\$" alone is not math).
bool has_math(const std::string& s);

// Lays out `s` (text with $…$ math) at pixel height `size`. Cached by (string, size, display): laying out every
// label of every figure each frame costs a hash lookup per label. Thread-safe.
MathLayoutPtr layout_math(const std::string& s, float size, MathOptions options = {});
// Uncached (tests, benchmarks of the cold path).
MathLayout layout_math_uncached(const std::string& s, float size, MathOptions options = {});
// Empties the cache (benchmarks).
void clear_math_cache();

// Width in pixels of a label as it is drawn: text_width for plain text, the math layout's width otherwise.
float label_width(const std::string& s, float size);

// Height in pixels of a label's box as it is drawn: `size` for plain text, ascent + descent of the math layout
// otherwise (a fraction in a title needs a taller line).
float label_height(const std::string& s, float size);

// `s` with the math spans replaced by the characters they draw, separated as they read ("$x_i^2$" → "xi2"):
// what a search or a screen reader should see, and what an SVG's text content is.
std::string math_plain_text(const std::string& s);

// The units a label may be shortened by: each character outside math, each $…$ span whole.
std::vector<std::string> label_units(const std::string& s);

// `s` cut where a line may break, each piece keeping its trailing spaces: after a space, and between Chinese
// characters (not before closing or after opening punctuation); never inside a formula. Joined they draw as `s`.
std::vector<std::string> label_words(const std::string& s);

// Plain text (no formulas) broken into lines no wider than `max_width`, as `width` measures a piece: after a space
// and between Chinese characters, as label_words breaks, never inside a word or a number ("0.00046" stays whole where
// ImGui's own wrapping breaks after its '.'). A word wider than a line alone is cut between characters. Each "\n"
// starts a new line; lines keep no trailing spaces.
std::vector<std::string> wrap_plain_text(std::string_view text, float max_width,
                                         const std::function<float(std::string_view)>& width);

// The positions in `s` outside any $…$ span ("split a label at a space" must not split inside a formula).
bool inside_math(const std::string& s, size_t pos);

}  // namespace tw::plot
