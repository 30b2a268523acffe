// Without Noto Sans CJK (fonts-noto-cjk not installed) the font chain degrades: one warning naming the package,
// Chinese measured and drawn as U+XXXX placeholders, exports still written, nothing crashes. Every test points
// TW_CJK_FONT_DIR at an empty directory before the text layer first loads its fonts (ctest runs each test in its
// own process; run together they agree on the same setting).
#include <gtest/gtest.h>

#include <cstdlib>

#include "views/plot/export.h"
#include "views/plot/figure.h"
#include "views/plot/text.h"

namespace tw::plot {
namespace {

void without_cjk_font() { setenv("TW_CJK_FONT_DIR", "/nonexistent-font-dir", 1); }

TEST(MissingFont, OneWarningNamesTheFileAndThePackage) {
  without_cjk_font();
  EXPECT_EQ(figure_font_error(), "");  // DejaVu Sans is there: figures still work
  const std::string& w = font_chain_warning();
  EXPECT_NE(w.find("NotoSansCJK-Regular.ttc"), std::string::npos) << w;
  EXPECT_NE(w.find("fonts-noto-cjk"), std::string::npos) << w;
  EXPECT_EQ(w.find('\n'), std::string::npos) << w;  // one line
  for (const ChainFont& f : font_chain()) EXPECT_NE(f.family, "Noto Sans CJK SC");
}

TEST(MissingFont, ChineseBecomesPlaceholdersOnScreenInPngAndSvg) {
  without_cjk_font();
  EXPECT_FALSE(has_glyph(0x6CE8));  // 注
  EXPECT_EQ(displayable_text("注 a"), "U+6CE8 a");
  EXPECT_FLOAT_EQ(text_width("注 a", 15), text_width("U+6CE8 a", 15));
  Figure fig("softmax", "注意力");
  fig.axes().line("p", {0, 1}, {0.5, 0.5});
  const RenderedPng png = render_png(fig, {.scale = 1});
  EXPECT_EQ(png.error, "");
  EXPECT_GT(png.width, 0);
  const std::string svg = render_svg(fig, {});
  EXPECT_NE(svg.find(">U+6CE8U+610FU+529B</text>"), std::string::npos);
}

}  // namespace
}  // namespace tw::plot
