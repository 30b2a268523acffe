// Math layout ($…$ in labels): structural checks of TeX's rules on a table of formulas — script baselines and
// sizes, fraction bars, vinculums, growing delimiters, faces, spacing, unsupported commands kept as source.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>

#include "views/plot/export.h"
#include "views/plot/layout_internal.h"
#include "views/plot/math.h"

namespace tw::plot {
namespace {

constexpr float kSize = 20;

// The run whose text is exactly `text` (the n-th such run).
const MathRun* run(const MathLayout& m, const std::string& text, int nth = 0) {
  for (const MathRun& r : m.runs)
    if (r.text == text && nth-- == 0) return &r;
  return nullptr;
}

std::string dump(const MathLayout& m) {
  std::string s;
  for (const MathRun& r : m.runs)
    s += "[" + r.text + " size " + std::to_string(r.size) + " x " + std::to_string(r.x) + " y " + std::to_string(r.y) +
         "] ";
  return s;
}

// Left and right ends of the runs in [first, last) of `m`.
std::pair<float, float> extent(const std::vector<const MathRun*>& runs) {
  float l = INFINITY, r = -INFINITY;
  for (const MathRun* x : runs) l = std::min(l, x->x), r = std::max(r, x->x + x->width);
  return {l, r};
}

TEST(MathLayout, SuperscriptAboveSubscriptBelowTheBaseline) {
  struct Case {
    const char* src;
    const char* base;
    const char* sup;  // "" when none
    const char* sub;
  };
  const Case cases[] = {
      {"$x_i^2$", "x", "2", "i"},     {"$x^2$", "x", "2", ""},         {"$\\theta_k$", "θ", "", "k"},
      {"$W_{Q}$", "W", "", "Q"},      {"$e^{-m}$", "e", "m", ""},      {"$\\hat{v}_t$", "v", "", "t"},
      {"$S_j^{(n)}$", "S", "(", "j"}, {"$\\beta_1^t$", "β", "t", "1"},
  };
  for (const Case& c : cases) {
    const MathLayout m = layout_math_uncached(c.src, kSize);
    EXPECT_TRUE(m.unsupported.empty()) << c.src;
    const MathRun* base = run(m, c.base);
    ASSERT_NE(base, nullptr) << c.src << ": " << dump(m);
    EXPECT_FLOAT_EQ(base->y, 0) << c.src;
    EXPECT_FLOAT_EQ(base->size, kSize) << c.src;
    if (*c.sup) {
      const MathRun* sup = run(m, c.sup);
      ASSERT_NE(sup, nullptr) << c.src << ": " << dump(m);
      EXPECT_LT(sup->y, -0.2f * kSize) << c.src;  // baseline clearly above the base's
      EXPECT_NEAR(sup->size, 0.7f * kSize, 1e-4f) << c.src;
      EXPECT_GE(sup->x, base->x + base->width - 1e-3f) << c.src;  // after the base
    }
    if (*c.sub) {
      const MathRun* sub = run(m, c.sub);
      ASSERT_NE(sub, nullptr) << c.src << ": " << dump(m);
      EXPECT_GT(sub->y, 0.05f * kSize) << c.src;  // baseline below the base's
      EXPECT_NEAR(sub->size, 0.7f * kSize, 1e-4f) << c.src;
      EXPECT_GE(sub->x, base->x + base->width - 1e-3f) << c.src;
    }
    if (*c.sup && *c.sub) {  // stacked, not side by side: both start at the same place (italic correction aside)
      EXPECT_NEAR(run(m, c.sup)->x, run(m, c.sub)->x, 0.15f * kSize) << c.src;
    }
  }
}

TEST(MathLayout, SizesShrinkOneLevelPerScriptDepth) {
  // e^{x_{i_k}}: depth 0, 1, 2, 3 → 1, 0.7, 0.5, 0.5 (scriptscript is the smallest).
  const MathLayout m = layout_math_uncached("$e^{x_{i_k}}$", kSize);
  ASSERT_NE(run(m, "e"), nullptr);
  ASSERT_NE(run(m, "x"), nullptr);
  ASSERT_NE(run(m, "i"), nullptr);
  ASSERT_NE(run(m, "k"), nullptr);
  EXPECT_NEAR(run(m, "e")->size, kSize, 1e-4f);
  EXPECT_NEAR(run(m, "x")->size, 0.7f * kSize, 1e-4f);
  EXPECT_NEAR(run(m, "i")->size, 0.5f * kSize, 1e-4f);
  EXPECT_NEAR(run(m, "k")->size, 0.5f * kSize, 1e-4f);
  // Each level's baseline is below the one it hangs from (subscripts) / above (superscript).
  EXPECT_LT(run(m, "x")->y, 0);
  EXPECT_GT(run(m, "i")->y, run(m, "x")->y);
  EXPECT_GT(run(m, "k")->y, run(m, "i")->y);
  // The layout holds the superscript's ink.
  EXPECT_GE(m.ascent, -run(m, "x")->y + 0.47f * run(m, "x")->size);
  EXPECT_GT(layout_math_uncached("$e^{x^{2}}$", kSize).ascent, layout_math_uncached("$e$", kSize).ascent);
}

TEST(MathLayout, FractionBarBetweenNumeratorAndDenominatorAsWideAsTheWider) {
  const char* cases[][3] = {{"$\\frac{a+b}{c}$", "a", "c"},
                            {"$\\frac{1}{\\sqrt{d_k}}$", "1", "d"},
                            {"$\\frac{x_i - \\mu}{\\sigma}$", "x", "σ"},
                            {"$\\dfrac{\\partial L}{\\partial x}$", "L", "x"}};
  for (auto& c : cases) {
    const MathLayout m = layout_math_uncached(c[0], kSize);
    EXPECT_TRUE(m.unsupported.empty()) << c[0];
    ASSERT_GE(m.rules.size(), 1u) << c[0];
    const MathRule& bar = m.rules.back().x1 - m.rules.back().x0 > m.rules.front().x1 - m.rules.front().x0
                              ? m.rules.back()
                              : m.rules.front();  // the widest rule is the fraction bar
    const MathRun* num = run(m, c[1]);
    const MathRun* den = run(m, c[2]);
    ASSERT_NE(num, nullptr) << c[0] << dump(m);
    ASSERT_NE(den, nullptr) << c[0] << dump(m);
    EXPECT_LE(num->y, bar.y0) << c[0];                              // numerator baseline above the bar
    EXPECT_GE(den->y - 0.64f * den->size, bar.y1 - 1e-3f) << c[0];  // denominator's top below the bar
    EXPECT_LT(bar.y0, 0) << c[0];                                   // the bar sits on the math axis, above the baseline
    EXPECT_GT(bar.y1 - bar.y0, 0) << c[0];
    // The bar covers both numerator and denominator and is not much wider than the wider one.
    std::vector<const MathRun*> above, below;
    for (const MathRun& r : m.runs) (r.y < bar.y0 ? above : below).push_back(&r);
    auto [nl, nr] = extent(above);
    auto [dl, dr] = extent(below);
    for (const MathStroke& st : m.strokes)  // a radical in the denominator
      for (const MathPoint& p : st.points) dl = std::min(dl, p.x), dr = std::max(dr, p.x);
    for (const MathRule& r : m.rules)
      if (r.y0 > bar.y1) dl = std::min(dl, r.x0), dr = std::max(dr, r.x1);
    const float wider = std::max(nr - nl, dr - dl);
    EXPECT_LE(bar.x0, std::min(nl, dl) + 1e-3f) << c[0];
    EXPECT_GE(bar.x1, std::max(nr, dr) - 1e-3f) << c[0];
    EXPECT_LE(bar.x1 - bar.x0, wider + 0.2f * kSize) << c[0];
  }
}

TEST(MathLayout, FractionIsSmallerInRunningTextThanInAFormulaLine) {
  const MathLayout inline_ = layout_math_uncached("$\\frac{a}{b}$", kSize);
  const MathLayout display = layout_math_uncached("$\\frac{a}{b}$", kSize, {.display = true});
  EXPECT_NEAR(run(inline_, "a")->size, 0.7f * kSize, 1e-4f);
  EXPECT_NEAR(run(display, "a")->size, kSize, 1e-4f);
  EXPECT_GT(display.ascent + display.descent, inline_.ascent + inline_.descent);
  // \tfrac stays small and \dfrac large whatever the target.
  EXPECT_NEAR(run(layout_math_uncached("$\\tfrac{a}{b}$", kSize, {.display = true}), "a")->size, 0.7f * kSize, 1e-4f);
  EXPECT_NEAR(run(layout_math_uncached("$\\dfrac{a}{b}$", kSize), "a")->size, kSize, 1e-4f);
}

TEST(MathLayout, RadicalVinculumCoversTheRadicand) {
  for (const char* src : {"$\\sqrt{d_k}$", "$\\sqrt{x}$", "$\\sqrt{\\hat{v}_t + \\epsilon}$", "$\\sqrt{2}$",
                          "$\\sqrt{\\frac{a}{b}}$", "$\\sqrt[3]{x}$"}) {
    const MathLayout m = layout_math_uncached(src, kSize);
    EXPECT_TRUE(m.unsupported.empty()) << src;
    ASSERT_FALSE(m.rules.empty()) << src;
    ASSERT_FALSE(m.strokes.empty()) << src;  // the radical sign
    // The vinculum is the topmost rule.
    const MathRule vinc = *std::min_element(m.rules.begin(), m.rules.end(),
                                            [](const MathRule& a, const MathRule& b) { return a.y0 < b.y0; });
    std::vector<const MathRun*> body;
    for (const MathRun& r : m.runs)
      if (!(r.text == "3" && r.size < kSize * 0.6f)) body.push_back(&r);  // not the index
    const auto [l, r] = extent(body);
    EXPECT_LE(vinc.x0, l) << src;
    EXPECT_GE(vinc.x1, r) << src;
    for (const MathRun* x : body) EXPECT_LE(vinc.y1, x->y - 0.45f * x->size) << src << ": " << x->text;
    // The sign's stroke reaches up to the vinculum at its left end.
    const MathStroke& sign = m.strokes.front();
    EXPECT_NEAR(sign.points.back().y, (vinc.y0 + vinc.y1) / 2, 0.5f) << src;
    EXPECT_NEAR(sign.points.back().x, vinc.x0, 0.1f * kSize) << src;
  }
}

TEST(MathLayout, LeftRightDelimitersGrowWithAFractionInside) {
  const MathLayout plain = layout_math_uncached("$\\left(x\\right)$", kSize);
  EXPECT_TRUE(plain.strokes.empty());  // the glyphs at the running size
  ASSERT_NE(run(plain, "("), nullptr);
  ASSERT_NE(run(plain, ")"), nullptr);

  const MathLayout tall = layout_math_uncached("$\\left(\\frac{a}{b}\\right)$", kSize, {.display = true});
  EXPECT_TRUE(tall.unsupported.empty());
  ASSERT_EQ(tall.strokes.size(), 2u) << dump(tall);  // ( and ) grown
  const MathRun* a = run(tall, "a");
  const MathRun* b = run(tall, "b");
  for (const MathStroke& st : tall.strokes) {
    float top = INFINITY, bottom = -INFINITY;
    for (const MathPoint& p : st.points) top = std::min(top, p.y), bottom = std::max(bottom, p.y);
    EXPECT_GT(bottom - top, 1.2f * kSize);   // taller than a parenthesis glyph
    EXPECT_LE(top, a->y - 0.47f * a->size);  // reaches the numerator's top
    EXPECT_GE(bottom, b->y);                 // and the denominator's baseline
  }
  // Left one before the fraction, right one after it.
  EXPECT_LT(tall.strokes[0].points[0].x, a->x);
  EXPECT_GT(tall.strokes[1].points[0].x, a->x + a->width);
  // Other delimiters grow too; \left. draws nothing.
  for (const char* src : {"$\\left[\\frac{a}{b}\\right]$", "$\\left|\\frac{a}{b}\\right|$",
                          "$\\left\\{\\frac{a}{b}\\right\\}$", "$\\left\\langle\\frac{a}{b}\\right\\rangle$"})
    EXPECT_EQ(layout_math_uncached(src, kSize, {.display = true}).strokes.size(), 2u) << src;
  EXPECT_EQ(layout_math_uncached("$\\left.\\frac{a}{b}\\right|$", kSize, {.display = true}).strokes.size(), 1u);
}

TEST(MathLayout, UnsupportedCommandIsKeptAsSourceWithAWarningFlag) {
  const MathLayout m = layout_math_uncached("$\\foo{x} + \\begin y$", kSize);
  ASSERT_EQ(m.unsupported, (std::vector<std::string>{"\\foo", "\\begin"}));
  const MathRun* foo = run(m, "\\foo");
  ASSERT_NE(foo, nullptr) << dump(m);
  EXPECT_TRUE(foo->warning);
  ASSERT_NE(run(m, "x"), nullptr);  // what follows is not lost
  ASSERT_NE(run(m, "y"), nullptr);
  EXPECT_FALSE(run(m, "x")->warning);
  // Everything the issue asks for is supported.
  const MathLayout all = layout_math_uncached(
      "$x_i^2 \\theta_k e^{-m(i-j)} \\alpha\\beta\\gamma\\Sigma\\Omega \\sqrt{d} \\frac{a}{b} \\sum_j \\prod_k "
      "\\max_j \\log \\exp \\operatorname{softmax} \\softmax \\hat{a} \\bar{b} \\tilde{c} \\vec{d} \\mathbf{W} "
      "\\cdot \\odot \\otimes \\le \\ge \\ne \\approx \\infty \\to \\in \\times \\pm \\partial \\nabla \\ell "
      "\\mathcal{N} \\left( x \\right) \\text{if } \\mathrm{d}x \\, \\; \\quad \\leq \\geq \\neq$",
      kSize);
  EXPECT_TRUE(all.unsupported.empty()) << ::testing::PrintToString(all.unsupported);
}

TEST(MathLayout, VariablesItalicDigitsAndOperatorsUpright) {
  const MathLayout m =
      layout_math_uncached("$2x - \\sin\\theta + \\mathbf{W}\\Sigma \\cdot \\mathcal{N} + \\mathcal{L}$", kSize);
  ASSERT_NE(run(m, "2"), nullptr) << dump(m);
  EXPECT_EQ(run(m, "2")->style, FontStyle::Regular);
  EXPECT_EQ(run(m, "x")->style, FontStyle::Italic);
  ASSERT_NE(run(m, "−"), nullptr) << "a hyphen in math is a minus sign: " << dump(m);
  EXPECT_EQ(run(m, "sin")->style, FontStyle::Regular);
  EXPECT_EQ(run(m, "θ")->style, FontStyle::Italic);
  EXPECT_EQ(run(m, "W")->style, FontStyle::Bold);
  EXPECT_EQ(run(m, "Σ")->style, FontStyle::Regular);  // capital Greek upright, as TeX sets it
  // ℒ (U+2112) is a script capital the screen can draw; 𝒩 (U+1D4A9) is not in the 16-bit range Debian's ImGui holds,
  // so every target sets it as an italic N.
  ASSERT_NE(run(m, "ℒ"), nullptr) << dump(m);
  EXPECT_EQ(run(m, "ℒ")->style, FontStyle::Math);
  EXPECT_EQ(run(m, "𝒩"), nullptr) << dump(m);
  ASSERT_NE(run(m, "N"), nullptr) << dump(m);
  EXPECT_EQ(run(m, "N")->style, FontStyle::Italic);
  // Text outside the dollars is plain.
  const MathLayout t = layout_math_uncached("scale $x$ by", kSize);
  EXPECT_EQ(run(t, "scale ")->style, FontStyle::Regular);
  EXPECT_EQ(run(t, "x")->style, FontStyle::Italic);
  EXPECT_EQ(run(t, " by")->style, FontStyle::Regular);
}

TEST(MathLayout, SpacingFollowsTheAtomClasses) {
  const float a = text_width("a", kSize, FontStyle::Italic), b = text_width("b", kSize, FontStyle::Italic);
  const float minus = text_width("−", kSize), eq = text_width("=", kSize);
  const float mu = 0.859f * kSize / 18;
  // Binary minus gets medium spaces (4mu each side); a leading minus is unary and gets none.
  EXPECT_NEAR(layout_math_uncached("$a-b$", kSize).width, a + minus + b + 8 * mu, 0.1f * kSize);
  EXPECT_NEAR(layout_math_uncached("$-b$", kSize).width, minus + b, 1e-3f);
  // Relations get thick spaces (5mu), operators a thin one before an ordinary atom.
  EXPECT_NEAR(layout_math_uncached("$a=b$", kSize).width, a + eq + b + 10 * mu, 0.1f * kSize);
  EXPECT_GT(layout_math_uncached("$\\log x$", kSize).width,
            text_width("log", kSize) + text_width("x", kSize, FontStyle::Italic) + 2.9f * mu);
  // In scripts the medium and thick spaces disappear.
  const MathLayout s = layout_math_uncached("$e^{a=b}$", kSize);
  const MathRun* ra = run(s, "a");
  const MathRun* rb = run(s, "b");
  EXPECT_NEAR(rb->x - (ra->x + ra->width), text_width("=", 0.7f * kSize), 0.05f * kSize);
}

TEST(MathLayout, LargeOperatorsTakeLimitsInAFormulaLineAndScriptsInText) {
  const MathLayout display = layout_math_uncached("$\\sum_{j=1}^{n} x_j$", kSize, {.display = true});
  const MathLayout text = layout_math_uncached("$\\sum_{j=1}^{n} x_j$", kSize);
  const MathRun* sum_d = run(display, "∑");
  const MathRun* sum_t = run(text, "∑");
  ASSERT_NE(sum_d, nullptr);
  ASSERT_NE(sum_t, nullptr);
  EXPECT_GT(sum_d->size, sum_t->size);  // bigger in display
  const MathRun* n_d = run(display, "n");
  EXPECT_LT(n_d->y, sum_d->y - 0.5f * sum_d->size);               // above the sigma
  EXPECT_LT(n_d->x, sum_d->x + sum_d->width);                     // over it, not beside it
  EXPECT_GE(run(text, "n")->x, sum_t->x + sum_t->width - 1e-3f);  // beside it in running text
}

TEST(MathLayout, AccentsSitAboveTheirBase) {
  const MathLayout hat = layout_math_uncached("$\\hat{x}$", kSize);
  const MathRun* x = run(hat, "x");
  const MathRun* h = run(hat, "ˆ");
  ASSERT_NE(h, nullptr) << dump(hat);
  EXPECT_NEAR(h->x + h->width / 2, x->x + x->width / 2, 0.15f * kSize);  // centred (with the italic skew)
  const MathLayout hat_tall = layout_math_uncached("$\\hat{W}$", kSize);
  EXPECT_LT(run(hat_tall, "ˆ")->y, 0);  // raised over a capital
  const MathLayout bar = layout_math_uncached("$\\bar{x}$", kSize);
  ASSERT_EQ(bar.rules.size(), 1u);
  EXPECT_LT(bar.rules[0].y1, -0.45f * kSize);
  const MathLayout vec = layout_math_uncached("$\\vec{v}$", kSize);
  ASSERT_EQ(vec.strokes.size(), 2u);  // shaft and head
  for (const MathPoint& p : vec.strokes[0].points) EXPECT_LT(p.y, -0.45f * kSize);
}

TEST(MathLayout, MathInsideChineseText) {
  const std::string s = "温度 $\\tau$ 越高，分布越平：$p_i = e^{x_i/\\tau}$";
  const MathLayout m = layout_math_uncached(s, kSize);
  EXPECT_TRUE(m.has_math);
  EXPECT_TRUE(m.unsupported.empty());
  ASSERT_NE(run(m, "温度 "), nullptr) << dump(m);
  ASSERT_NE(run(m, "τ"), nullptr);
  ASSERT_NE(run(m, " 越高，分布越平："), nullptr) << dump(m);
  EXPECT_EQ(run(m, "τ")->style, FontStyle::Italic);
  // Reading order is left to right.
  EXPECT_LT(run(m, "温度 ")->x, run(m, "τ")->x);
  EXPECT_LT(run(m, "τ")->x, run(m, " 越高，分布越平：")->x);
  EXPECT_NEAR(run(m, "τ")->x, text_width("温度 ", kSize), 1e-3f);
  EXPECT_LT(run(m, " 越高，分布越平：")->x + run(m, " 越高，分布越平：")->width, run(m, "p")->x + 1e-3f);
}

TEST(MathLayout, PlainTextAndDollarsThatAreNotMath) {
  for (const char* s : {"cost", "costs $5", "a \\$ b", "$$", "tokens/s"}) {
    EXPECT_FALSE(has_math(s)) << s;
    const MathLayout m = layout_math_uncached(s, kSize);
    EXPECT_FALSE(m.has_math) << s;
  }
  EXPECT_FLOAT_EQ(label_width("plain label", kSize), text_width("plain label", kSize));
  EXPECT_EQ(math_plain_text("a \\$ b"), "a \\$ b");
  EXPECT_EQ(run(layout_math_uncached("a \\$ b", kSize), "a $ b")->style, FontStyle::Regular);
  EXPECT_TRUE(has_math("x $y$"));
  EXPECT_TRUE(inside_math("a $b c$ d", 4));
  EXPECT_FALSE(inside_math("a $b c$ d", 8));
  EXPECT_FALSE(inside_math("a $b c", 4));  // unmatched: not math
  // Ascent and descent are never below the font's.
  const MathLayout m = layout_math_uncached("$x$", kSize);
  EXPECT_GE(m.ascent, text_baseline(kSize));
  EXPECT_GE(m.ascent + m.descent, kSize - 1e-3f);
}

TEST(MathLayout, LinesBreakAtSpacesAndBetweenChineseCharactersNeverInAFormula) {
  using V = std::vector<std::string>;
  EXPECT_EQ(label_words("scale by $\\frac{1}{\\sqrt{d_k}}$ here"),
            (V{"scale ", "by ", "$\\frac{1}{\\sqrt{d_k}}$ ", "here"}));
  // Chinese breaks between characters, but not before "，" or "）", nor after "（"; a formula stays whole.
  EXPECT_EQ(label_words("每个头$m_h$，（偏置）"), (V{"每", "个", "头", "$m_h$，", "（偏", "置）"}));
  EXPECT_EQ(label_words("当 $j \\le i$ 时"), (V{"当 ", "$j \\le i$ ", "时"}));
  EXPECT_EQ(label_words("token，有"), (V{"token，", "有"}));
  EXPECT_EQ(label_words(""), V{});
  // Joined, the pieces are the label.
  for (const std::string s : {"ALiBi 不添加位置向量。每个头 $h$ 在注意力分数上", "a  b $x$"}) {
    std::string joined;
    for (const std::string& w : label_words(s)) joined += w;
    EXPECT_EQ(joined, s);
  }
}

// Plain text wrapped for the screen (views/widgets.cpp wrapped_text): at spaces and between Chinese characters, never
// inside a number, whose '.' ImGui's own wrapping breaks after ("0.\n00046", "2.\n6e-06"). Every character is 1
// wide here, so the widths are the character counts.
TEST(MathLayout, PlainTextWrapsAtSpacesAndNeverInsideANumber) {
  using V = std::vector<std::string>;
  const auto chars = [](std::string_view s) { return float(decode_utf8(s).size()); };
  EXPECT_EQ(wrap_plain_text("the goal is 0.25 ± 0.0005 here", 14, chars), (V{"the goal is", "0.25 ± 0.0005", "here"}));
  // The probability line: each number whole, even where the line is full just after its '.'.
  for (float w = 7; w <= 30; ++w) {
    const V lines = wrap_plain_text("a 0.00046  b 2.6e-06  c 0.91", w, chars);
    for (const std::string& line : lines) EXPECT_LE(chars(line), w) << line;
    for (const std::string number : {"0.00046", "2.6e-06", "0.91"})
      EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                              [&](const std::string& l) { return l.find(number) != std::string::npos; }))
          << "width " << w << ": " << number << " split";
  }
  // Chinese breaks between characters, not before "，"; a number inside Chinese stays whole.
  EXPECT_EQ(wrap_plain_text("每个词元的概率：通 0.00046，的", 9, chars), (V{"每个词元的概率：通", "0.00046，的"}));
  EXPECT_EQ(wrap_plain_text("每个词元的概率：通 0.00046，的", 8, chars), (V{"每个词元的概率：", "通", "0.00046，", "的"}));
  // Paragraphs stay; a word longer than a line is cut between characters; a "$" is a dollar, not math.
  EXPECT_EQ(wrap_plain_text("ab\ncd ef", 5, chars), (V{"ab", "cd ef"}));
  EXPECT_EQ(wrap_plain_text("abcdefgh ij", 3, chars), (V{"abc", "def", "gh", "ij"}));
  EXPECT_EQ(wrap_plain_text("$5 and $6", 6, chars), (V{"$5 and", "$6"}));
  EXPECT_EQ(wrap_plain_text("", 5, chars), V{""});
}

TEST(MathLayout, CacheReturnsTheSameLayout) {
  const MathLayoutPtr a = layout_math("$x_i^2$", 13);
  const MathLayoutPtr b = layout_math("$x_i^2$", 13);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(layout_math("$x_i^2$", 14).get(), a.get());
  EXPECT_NE(layout_math("$x_i^2$", 13, {.display = true}).get(), a.get());
  EXPECT_FLOAT_EQ(label_width("$x_i^2$", 13), a->width);
}

TEST(MathLayout, MalformedSourceNeverCrashesAndLosesNothingVisible) {
  const char* bad[] = {
      "$\\frac{a$", "$x^$", "$}$",      "$\\left($", "$\\sqrt[$", "$\\$",    "$^^__$", "$\\left(\\right$",
      "${{{$",      "$\\$", "$\\frac$", "$\\",       "$x_{$",     "$\\hat$", "$'$",    "$\\left\\foo x\\right)$"};
  for (const char* s : bad) {
    const MathLayout m = layout_math_uncached(s, kSize);
    EXPECT_TRUE(std::isfinite(m.width) && m.width >= 0) << s;
    EXPECT_TRUE(std::isfinite(m.ascent) && std::isfinite(m.descent)) << s;
  }
  EXPECT_NE(run(layout_math_uncached("$a}b$", kSize), "}"), nullptr);  // an unbalanced brace is shown
  std::mt19937 rng(7);
  const std::string alphabet = "$\\{}^_ab()[]|.frac sqrt left right 1'";
  for (int k = 0; k < 2000; ++k) {
    std::string s;
    const int n = int(rng() % 24);
    for (int j = 0; j < n; ++j) s += alphabet[rng() % alphabet.size()];
    const MathLayout m = layout_math_uncached(s, kSize);
    ASSERT_TRUE(std::isfinite(m.width)) << s;
  }
}

// [SECTION] Typeset labels in figures and exports

Figure typeset_figure() {
  Figure fig("typeset", "Softmax $S_i = \\frac{e^{x_i/\\tau}}{\\sum_j e^{x_j/\\tau}}$");
  fig.axes().setup("dimension pair $k$", "", "$\\theta_k = b^{-2k/d}$", "");
  fig.axes().line("$\\sqrt{d_k}$", {0, 1, 2}, {1, 2, 3});
  fig.note = "$\\tau = 0.5$, $\\mathcal{N}(0, 1)$ logits";
  return fig;
}

// The character data of every <text> element (tspans concatenated), entities decoded.
std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> out;
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const size_t end = svg.find("</text>", at);
    std::string content;
    bool tag = false;
    for (size_t k = svg.find('>', at) + 1; k < end; ++k) {
      if (svg[k] == '<') tag = true;
      if (!tag) content += svg[k];
      if (svg[k] == '>') tag = false;
    }
    for (const auto& [ent, ch] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}})
      for (size_t k = content.find(ent); k != std::string::npos; k = content.find(ent, k))
        content.replace(k, ent.size(), ch);
    out.push_back(content);
  }
  return out;
}

TEST(MathInFigures, SvgOfATypesetTitleHasEachGlyphOnceInReadingOrder) {
  const std::string svg = render_svg(typeset_figure(), {});
  const std::vector<std::string> texts = svg_texts(svg);
  // Written out by hand from the formula: S, subscript i, =, the numerator e x i / τ, the denominator ∑ j e x j / τ.
  const std::string title = "Softmax Si=exi/τ∑jexj/τ";
  EXPECT_EQ(std::count(texts.begin(), texts.end(), title), 1) << ::testing::PrintToString(texts);
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "θk=b−2k/d"), 1) << ::testing::PrintToString(texts);
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "dimension pair k"), 1) << ::testing::PrintToString(texts);
  EXPECT_EQ(std::count(texts.begin(), texts.end(), "τ=0.5, N(0,1) logits"), 1) << ::testing::PrintToString(texts);
  for (const std::string& t : texts) EXPECT_EQ(t.find('$'), std::string::npos) << "TeX source drawn raw: " << t;
  // One <text> per label, a <tspan> per run: italic variables say so; the fraction bar is a <rect>.
  EXPECT_NE(svg.find("font-style=\"italic\">S</tspan>"), std::string::npos);
  EXPECT_NE(svg.find("<tspan"), std::string::npos);
}

TEST(MathInFigures, LayoutTypesetsEveryLabelAndNeverSplitsAFormula) {
  const Figure fig = typeset_figure();
  for (float width : {640.0f, 420.0f, 300.0f}) {
    const Layout l = layout_figure(fig, {.width = width, .height = 400, .theme = Theme::Print});
    bool vertical_group = false, rule = false;
    for (const Primitive& p : l.prims) {
      if (p.kind == PrimKind::Text) {
        EXPECT_EQ(p.text.find('$'), std::string::npos) << width << ": " << p.text;
      }
      vertical_group |= p.kind == PrimKind::Text && p.group >= 0 && p.vertical;  // the y label
      rule |= p.kind == PrimKind::Rect && p.group >= 0;                          // the title's fraction bar
    }
    EXPECT_TRUE(vertical_group) << width;
    EXPECT_TRUE(rule) << width;
  }
  // A shortened label drops whole formulas, never half of one.
  const std::string cut = detail::fit_text("scores $\\frac{q \\cdot k}{\\sqrt{d_k}}$ and $x_i^2$ more", 12, 90);
  EXPECT_EQ(std::count(cut.begin(), cut.end(), '$') % 2, 0) << cut;
}

TEST(MathInFigures, TallFormulasGetTallerLinesAndStayInsideTheFigure) {
  Figure fig("tall", "$\\left(\\frac{\\partial L}{\\partial x_i}\\right)^2$ over $\\frac{1}{\\sqrt{d_k}}$ scales");
  fig.axes().setup("$\\frac{i - j}{\\sqrt{d}}$", "", "$\\frac{e^{x}}{\\sum_j e^{x_j}}$", "");
  fig.axes().line("a", {0, 1}, {0, 1});
  const Layout l = layout_figure(fig, {.width = 640, .height = 400, .theme = Theme::Print});
  EXPECT_TRUE(l.problems.empty()) << ::testing::PrintToString(l.problems);
  const Rect plot = l.frames.at(0).plot;
  // Every glyph run of a typeset label lies inside the figure, and none inside the plot area.
  int runs = 0;
  for (const Primitive& p : l.prims) {
    if (p.kind != PrimKind::Text || p.group < 0) continue;
    ++runs;
    const float w = text_width(p.text, p.size, p.style);
    const Rect box = p.vertical ? Rect{p.pos.x, p.pos.y - w, p.pos.x + p.size, p.pos.y}
                                : Rect{p.pos.x, p.pos.y, p.pos.x + w, p.pos.y + p.size};
    EXPECT_GE(box.x0, -0.5f) << p.text;
    EXPECT_GE(box.y0, -0.5f) << p.text;
    EXPECT_LE(box.x1, l.width + 0.5f) << p.text;
    EXPECT_LE(box.y1, l.height + 0.5f) << p.text;
    const bool in_plot = box.x0 > plot.x0 && box.x1 < plot.x1 && box.y0 > plot.y0 && box.y1 < plot.y1;
    EXPECT_FALSE(in_plot) << p.text;
  }
  EXPECT_GT(runs, 20);
  // The plot area shrank to make room, compared with the same figure labelled in one plain line.
  Figure plain = fig;
  plain.title = "plain title";
  plain.grid[0].setup("x", "", "y", "");
  const Rect plain_plot = layout_figure(plain, {.width = 640, .height = 400, .theme = Theme::Print}).frames.at(0).plot;
  EXPECT_GT(plot.y0, plain_plot.y0);
  EXPECT_LT(plot.y1, plain_plot.y1);
  EXPECT_GT(plot.x0, plain_plot.x0);
  if (const char* dir = std::getenv("TW_MATH_DUMP")) export_png(fig, std::string(dir) + "/tall.png", {.scale = 2});
}

// Vertical extent of every typeset label's glyphs and rules, by label (primitive group), in drawing order.
std::vector<std::pair<float, float>> label_extents(const Layout& l) {
  std::vector<std::pair<int, std::pair<float, float>>> groups;
  for (const Primitive& p : l.prims) {
    if (p.group < 0 || (p.kind != PrimKind::Text && p.kind != PrimKind::Rect && p.kind != PrimKind::Polyline)) continue;
    float y0 = p.kind == PrimKind::Text ? p.pos.y : p.rect.y0,
          y1 = p.kind == PrimKind::Text ? p.pos.y + p.size : p.rect.y1;
    if (p.kind == PrimKind::Polyline) {
      y0 = INFINITY, y1 = -INFINITY;
      for (const Vec2& q : p.points) y0 = std::min(y0, q.y), y1 = std::max(y1, q.y);
    }
    if (groups.empty() || groups.back().first != p.group) groups.push_back({p.group, {y0, y1}});
    auto& e = groups.back().second;
    e.first = std::min(e.first, y0), e.second = std::max(e.second, y1);
  }
  std::vector<std::pair<float, float>> out;
  for (const auto& g : groups) out.push_back(g.second);
  return out;
}

TEST(MathInFigures, LegendRowsGrowWithTallFormulas) {
  Figure fig("legend", "");
  fig.axes().setup("x", "", "y", "");
  fig.axes().flags |= AxesFlags_LegendOutside;
  const std::vector<std::string> labels = {"$x_i$", "$\\left(\\frac{\\partial L}{\\partial x_i}\\right)^2$",
                                           "$\\sqrt{\\frac{1}{d_k}}$", "$y$"};
  for (size_t i = 0; i < labels.size(); ++i) fig.axes().line(labels[i], {0, 1}, {double(i), double(i) + 1});
  const Layout l = layout_figure(fig, {.width = 640, .height = 400, .theme = Theme::Print});
  ASSERT_EQ(l.legends.size(), 1u);
  const Rect box = l.legends[0];
  // The legend's labels are the last four typeset groups: each inside the box, each below the one before.
  const auto all = label_extents(l);
  ASSERT_GE(all.size(), labels.size());
  const std::vector<std::pair<float, float>> rows(all.end() - labels.size(), all.end());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_GE(rows[i].first, box.y0) << labels[i];
    EXPECT_LE(rows[i].second, box.y1) << labels[i];
    if (i > 0) {
      EXPECT_GE(rows[i].first, rows[i - 1].second) << labels[i] << " overlaps " << labels[i - 1];
    }
  }
  // The fraction's row is taller than the plain one's, and the whole box taller than four plain rows.
  EXPECT_GT(rows[1].second - rows[1].first, 1.3f * (rows[0].second - rows[0].first));
  Figure plain = fig;
  plain.grid[0].items.clear();
  for (size_t i = 0; i < labels.size(); ++i) plain.axes().line("row", {0, 1}, {double(i), double(i) + 1});
  const Layout lp = layout_figure(plain, {.width = 640, .height = 400, .theme = Theme::Print});
  ASSERT_EQ(lp.legends.size(), 1u);
  EXPECT_GT(box.y1 - box.y0, lp.legends[0].y1 - lp.legends[0].y0 + 10);
}

// A Chinese title too wide for one line breaks between characters (it has no space at all), never inside its formula,
// and both lines fit; before, it could only shrink or be cut.
TEST(MathInFigures, AChineseTitleWrapsBetweenCharacters) {
  Figure fig("zh",
             "一个向量分别经过归一化层和批归一化层并比较它们的输出（其中$\\gamma = 1$，$\\beta = 0$）与输入向量的差别");
  fig.axes().setup("x", "", "y", "");
  fig.axes().line("a", {0, 1}, {0, 1});
  const float width = 420;
  const Layout l = layout_figure(fig, {.width = width, .height = 320, .theme = Theme::Print});
  EXPECT_TRUE(l.problems.empty()) << ::testing::PrintToString(l.problems);
  // The title's runs sit on two lines, all inside the figure (a plain line is centred on its anchor).
  std::set<int> tops;
  for (const Primitive& p : l.prims) {
    if (p.kind != PrimKind::Text || p.pos.y > l.frames.at(0).plot.y0) continue;
    const float w = text_width(p.text, p.size, p.style), left = p.pos.x - p.align_x * w;
    EXPECT_GE(left, -0.5f) << p.text;
    EXPECT_LE(left + w, width + 0.5f) << p.text;
    EXPECT_EQ(p.size, 15.0f) << "shrunk instead of wrapped: " << p.text;
    tops.insert(int(std::lround(p.pos.y)));
  }
  EXPECT_EQ(tops.size(), 2u) << "the title should take two lines";
}

TEST(MathInFigures, PngDrawsTheTypesetTitle) {
  const RenderedPng png = render_png(typeset_figure(), {.scale = 1});
  ASSERT_TRUE(png.error.empty()) << png.error;
  // Some dark ink in the title band (the top 15% of the figure).
  int dark = 0;
  for (int y = 0; y < png.height * 15 / 100; ++y)
    for (int x = 0; x < png.width; ++x) dark += png.rgba[(size_t(y) * png.width + x) * 4] < 100;
  EXPECT_GT(dark, 100);
  // TW_MATH_DUMP=dir writes the figure as PNG and SVG to look at (not part of the check).
  if (const char* dir = std::getenv("TW_MATH_DUMP")) {
    export_png(typeset_figure(), std::string(dir) + "/typeset.png", {.scale = 2});
    export_svg(typeset_figure(), std::string(dir) + "/typeset.svg", {});
    // docs/figures.md's before/after pair: one softmax figure labelled in ASCII, then typeset.
    for (const bool typeset : {false, true}) {
      Figure fig("softmax", typeset ? "Softmax $S_i = \\frac{e^{x_i/\\tau}}{\\sum_j e^{x_j/\\tau}}$ over 8 logits"
                                    : "Softmax S_i = exp(x_i / τ) / Σ_j exp(x_j / τ) over 8 logits");
      std::vector<double> tau, top, second;
      for (int k = 0; k <= 40; ++k) {
        const double t = std::pow(10.0, -1 + k * 0.05);
        double z = 0;
        for (int i = 0; i < 8; ++i) z += std::exp(-i * 0.5 / t);
        tau.push_back(t), top.push_back(1 / z), second.push_back(std::exp(-0.5 / t) / z);
      }
      fig.axes().setup(typeset ? "temperature $\\tau$" : "temperature τ", "", typeset ? "$\\max_j S_j$" : "max_j S_j",
                       "");
      fig.axes().x.scale = Scale::Log10;
      fig.axes().line(typeset ? "$S_1$ (largest logit)" : "S_1 (largest logit)", tau, top);
      fig.axes().line(typeset ? "$S_2$" : "S_2", tau, second);
      fig.note = typeset ? "logits $x_i = -0.5\\,i$; gradient $\\partial S_i / \\partial x_i = S_i(1 - S_i)$"
                         : "logits x_i = -0.5 i; gradient dS_i/dx_i = S_i(1 - S_i)";
      export_png(fig, std::string(dir) + (typeset ? "/math-after.png" : "/math-before.png"), {.scale = 2});
      export_svg(fig, std::string(dir) + (typeset ? "/math-after.svg" : "/math-before.svg"), {});
    }
  }
}

}  // namespace
}  // namespace tw::plot
