// The font chain (views/plot/text.h): every character of the interface's texts has a glyph, Chinese renders with
// real glyphs in PNG and stays text in SVG, and characters no font draws (emoji) become readable placeholders.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/utf8.h"
#include "views/plot/export.h"
#include "views/plot/figure.h"
#include "views/plot/text.h"

namespace tw::plot {
namespace {

// Every character of `texts` that no font of the chain draws, as "U+XXXX in <where>" (empty: full coverage).
// Line breaks and tabs are layout, not glyphs.
std::vector<std::string> missing_glyphs(const std::vector<std::pair<std::string, std::string>>& texts) {
  std::vector<std::string> missing;
  std::vector<uint32_t> reported;
  for (const auto& [where, text] : texts)
    for (uint32_t cp : decode_utf8(text)) {
      if (cp == '\n' || cp == '\t' || cp == '\r' || has_glyph(cp)) continue;
      if (std::find(reported.begin(), reported.end(), cp) != reported.end()) continue;
      reported.push_back(cp);
      char buf[16];
      std::snprintf(buf, sizeof buf, "U+%04X", cp);
      missing.push_back(std::string(buf) + " in " + where);
    }
  return missing;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The msgstr strings of a PO file (continuation lines joined, escapes \" \\ \n \t undone).
std::vector<std::string> po_msgstrs(const std::string& po) {
  std::vector<std::string> out;
  std::istringstream in(po);
  std::string line;
  bool in_msgstr = false;
  auto unquote = [](const std::string& s) {
    std::string r;
    const size_t a = s.find('"'), b = s.rfind('"');
    if (a == std::string::npos || b <= a) return r;
    for (size_t i = a + 1; i < b; ++i) {
      if (s[i] == '\\' && i + 1 < b) {
        const char e = s[++i];
        r += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        r += s[i];
      }
    }
    return r;
  };
  while (std::getline(in, line)) {
    if (line.rfind("msgstr", 0) == 0) {
      out.push_back(unquote(line));
      in_msgstr = true;
    } else if (in_msgstr && !line.empty() && line[0] == '"') {
      out.back() += unquote(line);
    } else {
      in_msgstr = false;
    }
  }
  return out;
}

TEST(FontChain, RegularIsDejaVuThenNotoCjkSc) {
  ASSERT_EQ(figure_font_error(), "");
  EXPECT_EQ(font_chain_warning(), "");  // install-deps installs every font of the chain
  const std::vector<ChainFont>& chain = font_chain();
  ASSERT_GE(chain.size(), 2u);
  EXPECT_EQ(chain[0].family, "DejaVu Sans");
  EXPECT_EQ(chain[1].family, "Noto Sans CJK SC");
  EXPECT_EQ(chain[1].face_index, 2);
  // The em matches: Noto Sans CJK's pixel height (ascent 1160 − descent −288 = 1448 units of 1000 per em) is set so
  // its em equals DejaVu Sans's (2048 units per em, 1901 + 483 = 2384 units high).
  EXPECT_NEAR(chain[1].size_factor, (2048.0f / 2384.0f) * (1448.0f / 1000.0f), 1e-5f);
  EXPECT_EQ(font_chain(FontStyle::Italic)[0].path.substr(font_chain(FontStyle::Italic)[0].path.rfind('/') + 1),
            "DejaVuSans-Oblique.ttf");
  EXPECT_NE(svg_font_family().find("Noto Sans CJK SC"), std::string::npos);
}

TEST(FontChain, EveryCharacterOfTheInterfaceTextsHasAGlyph) {
  std::vector<std::pair<std::string, std::string>> texts = {
      {"sample Chinese",
       "床前明月光，疑是地上霜。注意力、缩放点积、旋转位置编码、分组查询注意力、低秩适配、归一化、困惑度"},
      {"sample Traditional Chinese", "注意力機制與旋轉位置編碼"},
      {"sample Japanese", "こんにちは、トークナイザー"},
      {"sample Korean", "어텐션 토크나이저"},
      {"sample Greek, Cyrillic and math", "αβγδεθλμπσφω ΣΩ Привет √∑∞≤≥⊙∈≈→⟨E6 B3⟩␣ᵀ⁻¹ₖ·×"},
  };
  const std::filesystem::path src(TW_SOURCE_DIR);
  for (const auto& e : std::filesystem::directory_iterator(src / "views" / "text"))
    if (e.path().extension() == ".txt") texts.emplace_back(e.path().filename().string(), read_file(e.path()));
  int po_strings = 0;
  for (const std::string& s : po_msgstrs(read_file(src / "po" / "zh.po"))) {
    texts.emplace_back("zh.po", s);
    ++po_strings;
  }
  ASSERT_GT(texts.size(), 10u);
  const std::vector<std::string> missing = missing_glyphs(texts);
  std::string list;
  for (const std::string& m : missing) list += m + "\n";
  EXPECT_TRUE(missing.empty()) << list << "(" << po_strings << " catalogue strings checked)";
}

TEST(FontChain, CoverageCheckFindsWhatIsMissing) {
  // The check itself can fail: an emoji and a private-use character have no glyph.
  EXPECT_EQ(missing_glyphs({{"t", "ok \xF0\x9F\x99\x82 \xEE\x80\x80"}}),
            (std::vector<std::string>{"U+1F642 in t", "U+E000 in t"}));
}

TEST(FontChain, ChineseIsMeasuredWithCjkGlyphs) {
  // A Han character is one em wide: 1000 units of Noto's 1000-unit em, at DejaVu's em (pixel height · 2048/2384).
  EXPECT_NEAR(text_width("注意力", 20), 3 * 20 * 2048.0f / 2384.0f, 0.01f);
  EXPECT_NEAR(text_width("a注", 30), text_width("a", 30) + text_width("注", 30), 1e-3f);
}

TEST(FontChain, EmojiBecomeReadablePlaceholdersNotQuestionMarks) {
  const std::string smile = "ok \xF0\x9F\x99\x82";  // "ok 🙂"
  EXPECT_EQ(displayable_text(smile), "ok U+1F642");
  EXPECT_EQ(displayable_text("注意力 α"), "注意力 α");  // drawable text passes unchanged
  EXPECT_FLOAT_EQ(text_width(smile, 15), text_width("ok U+1F642", 15));
  const TextBitmap a = render_text(smile, 15), b = render_text("ok U+1F642", 15), q = render_text("ok ?", 15);
  EXPECT_EQ(a.alpha, b.alpha);
  EXPECT_NE(a.width, q.width);
}

// Columns of `r` between rows y0 and y1 where any pixel differs from `base`.
std::pair<int, int> ink_columns(const RenderedPng& r, const RenderedPng& base, int y0, int y1) {
  int lo = r.width, hi = -1;
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < r.width; ++x) {
      const size_t i = (size_t(y) * size_t(r.width) + size_t(x)) * 4;
      if (std::abs(int(r.rgba[i]) - int(base.rgba[i])) + std::abs(int(r.rgba[i + 1]) - int(base.rgba[i + 1])) +
              std::abs(int(r.rgba[i + 2]) - int(base.rgba[i + 2])) >
          60)
        lo = std::min(lo, x), hi = std::max(hi, x);
    }
  return {lo, hi};
}

TEST(FontChain, PngOfAChineseTitleHasGlyphPixelsWhereTheTitleIs) {
  auto figure = [](const std::string& title) {
    Figure fig("softmax", title);
    fig.axes().line("p", {0, 1, 2}, {0.2, 0.3, 0.5});
    return fig;
  };
  const std::string title = "注意力权重";
  const ExportOptions opt{.theme = Theme::Print, .scale = 1, .width = 480, .height = 300};
  const RenderedPng with = render_png(figure(title), opt), without = render_png(figure(""), opt);
  ASSERT_EQ(with.error, "");
  ASSERT_EQ(without.error, "");
  // The layout gives the titled figure a title band; compare that band with the untitled render's pixels there
  // (its background). The ink spans the title's measured width, five em-wide glyphs — not "U+6CE8…" placeholders.
  const Layout l = layout_for_export(figure(title), opt);
  const Primitive* t = nullptr;
  for (const Primitive& p : l.prims)
    if (p.kind == PrimKind::Text && p.text == title) t = &p;
  ASSERT_NE(t, nullptr);
  const float w = text_width(title, t->size);
  EXPECT_NEAR(w, 5 * text_em_size(t->size), 0.01f);
  const int y0 = int(t->pos.y - t->align_y * t->size), y1 = int(y0 + t->size + 1);
  RenderedPng blank = with;  // the background colour of the band: the untitled figure's top-left pixel
  for (size_t i = 0; i < blank.rgba.size(); i += 4)
    std::copy(without.rgba.begin(), without.rgba.begin() + 4, blank.rgba.begin() + long(i));
  const auto [lo, hi] = ink_columns(with, blank, std::max(0, y0), std::min(with.height, y1));
  ASSERT_GE(hi, lo) << "no title pixels";
  const float left = t->pos.x - t->align_x * w;
  EXPECT_NEAR(lo, left, 3.0f);
  EXPECT_NEAR(hi, left + w, 3.0f);
  const std::string svg = render_svg(figure(title), opt);
  EXPECT_NE(svg.find(">" + title + "</text>"), std::string::npos);
  EXPECT_NE(svg.find("Noto Sans CJK SC"), std::string::npos);
}

}  // namespace
}  // namespace tw::plot
