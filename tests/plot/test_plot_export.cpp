// SVG, PNG and CSV exports: well-formed, correctly sized, faithful to the data, deterministic, atomic.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "scratch_dir.h"
#include "views/plot/export.h"
#include "views/plot/export_raster.h"

namespace tw::plot {
namespace {

namespace fs = std::filesystem;
using testing::read_file_bytes;

// [SECTION] a tiny XML well-formedness checker
// Enough of XML 1.0 for our SVG: prolog, elements, quoted attributes (no duplicates), entity references,
// properly nested end tags, exactly one root. Counts elements by name for the assertions below.
struct XmlCheck {
  std::string error;
  std::map<std::string, int> elements;
  std::vector<std::string> texts;  // character data of every element, entities decoded
  std::string root;
};

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '-' || c == '.';
}

bool check_entities(const std::string& s, std::string* decoded) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') return false;
    if (s[i] != '&') {
      decoded->push_back(s[i]);
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string::npos) return false;
    const std::string ent = s.substr(i + 1, semi - i - 1);
    static const std::map<std::string, char> known = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    if (!known.count(ent)) return false;
    decoded->push_back(known.at(ent));
    i = semi;
  }
  return true;
}

XmlCheck check_xml(const std::string& x) {
  XmlCheck r;
  size_t i = 0;
  auto fail = [&](const std::string& m) {
    r.error = m + " at offset " + std::to_string(i);
    return r;
  };
  if (x.rfind("<?xml", 0) == 0) {
    i = x.find("?>");
    if (i == std::string::npos) return fail("unterminated prolog");
    i += 2;
  }
  std::vector<std::string> stack;
  bool root_closed = false;
  while (i < x.size()) {
    if (x[i] != '<') {
      const size_t next = x.find('<', i);
      const std::string text = x.substr(i, next == std::string::npos ? std::string::npos : next - i);
      std::string decoded;
      if (!check_entities(text, &decoded)) return fail("bad character data");
      if (stack.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos) return fail("text outside the root");
      if (!stack.empty()) r.texts.push_back(decoded);
      if (next == std::string::npos) break;
      i = next;
      continue;
    }
    if (x.compare(i, 4, "<!--") == 0) {
      i = x.find("-->", i);
      if (i == std::string::npos) return fail("unterminated comment");
      i += 3;
      continue;
    }
    if (x.compare(i, 2, "</") == 0) {
      size_t j = i + 2;
      while (j < x.size() && name_char(x[j])) ++j;
      const std::string name = x.substr(i + 2, j - i - 2);
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size() || x[j] != '>') return fail("bad end tag");
      if (stack.empty() || stack.back() != name) return fail("mismatched end tag </" + name + ">");
      stack.pop_back();
      if (stack.empty()) root_closed = true;
      i = j + 1;
      continue;
    }
    if (root_closed) return fail("second root element");
    size_t j = i + 1;
    while (j < x.size() && name_char(x[j])) ++j;
    const std::string name = x.substr(i + 1, j - i - 1);
    if (name.empty()) return fail("empty element name");
    std::set<std::string> attrs;
    bool self_closing = false;
    for (;;) {
      while (j < x.size() && std::isspace(static_cast<unsigned char>(x[j]))) ++j;
      if (j >= x.size()) return fail("unterminated tag");
      if (x[j] == '>') break;
      if (x.compare(j, 2, "/>") == 0) {
        self_closing = true;
        ++j;
        break;
      }
      size_t k = j;
      while (k < x.size() && name_char(x[k])) ++k;
      const std::string attr = x.substr(j, k - j);
      if (attr.empty() || k >= x.size() || x[k] != '=') return fail("bad attribute in <" + name + ">");
      if (!attrs.insert(attr).second) return fail("duplicate attribute " + attr);
      const char q = x[k + 1];
      if (q != '"' && q != '\'') return fail("unquoted attribute " + attr);
      const size_t end = x.find(q, k + 2);
      if (end == std::string::npos) return fail("unterminated attribute " + attr);
      std::string decoded;
      if (!check_entities(x.substr(k + 2, end - k - 2), &decoded)) return fail("bad attribute value " + attr);
      j = end + 1;
    }
    if (stack.empty()) r.root = name;
    ++r.elements[name];
    if (!self_closing)
      stack.push_back(name);
    else if (stack.empty())
      root_closed = true;
    i = j + 1;
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">");
  if (r.root.empty()) return fail("no root element");
  return r;
}

// [SECTION] fixtures
Figure sample_figure() {
  Figure fig("sample", "Scores <raw> & \"scaled\"");
  Axes& ax = fig.axes();
  ax.setup("key position j", "", "score", "nats");
  ax.line("scaled", {0, 1, 2, 3}, {0.5, 0.25, 0.125, 0.0625});
  ax.scatter("raw", {0, 1, 2, 3}, {1, 0.5, 0.25, 0.125});
  ax.vline("p = 0.9", 1.5);
  return fig;
}

Figure masked_heatmap() {
  Figure fig("attn", "Attention");
  std::vector<float> p = {1.0f, -INFINITY, 0.25f, 0.75f};  // 2 × 2 causal
  HeatmapOptions o;
  o.value_label = "probability";
  o.vmin = 0;
  o.vmax = 1;
  fig.axes().heatmap("P", p.data(), 2, 2, o);
  return fig;
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("tw_plot_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// [SECTION] SVG
TEST(XmlChecker, RejectsBrokenDocuments) {
  EXPECT_TRUE(check_xml("<a><b x=\"1\"/>t &amp; u</a>").error.empty());
  EXPECT_FALSE(check_xml("<a><b></a></b>").error.empty());
  EXPECT_FALSE(check_xml("<a>x & y</a>").error.empty());
  EXPECT_FALSE(check_xml("<a x=1/>").error.empty());
  EXPECT_FALSE(check_xml("<a/><b/>").error.empty());
  EXPECT_FALSE(check_xml("<a x=\"1\" x=\"2\"/>").error.empty());
}

TEST(Svg, WellFormedWithVectorElementsAndEscapedText) {
  const std::string svg = render_svg(sample_figure(), {.theme = Theme::Print});
  const XmlCheck x = check_xml(svg);
  ASSERT_TRUE(x.error.empty()) << x.error;
  EXPECT_EQ(x.root, "svg");
  EXPECT_GE(x.elements.at("polyline"), 3);   // line, frame ticks, marker line
  EXPECT_GE(x.elements.at("text"), 8);       // title, labels, ticks, legend
  EXPECT_GE(x.elements.at("polygon"), 4);    // scatter markers
  EXPECT_EQ(x.elements.count("image"), 0u);  // no raster in a line plot
  auto has_text = [&](const std::string& t) { return std::find(x.texts.begin(), x.texts.end(), t) != x.texts.end(); };
  EXPECT_TRUE(has_text("Scores <raw> & \"scaled\""));  // escaped in the file, intact after decoding
  EXPECT_TRUE(has_text("score [nats]"));
  EXPECT_TRUE(has_text("key position j"));
  EXPECT_TRUE(has_text("scaled"));
}

// Heatmap cells are vector rects, so every renderer (rsvg included, which smooths embedded images) shows sharp
// cells: the 2 × 2 map gives its four cells (the masked one in the masked grey) and no raster at all.
TEST(Svg, HeatmapIsVectorCellsWithColourBar) {
  const std::string svg = render_svg(masked_heatmap(), {});
  const XmlCheck x = check_xml(svg);
  ASSERT_TRUE(x.error.empty()) << x.error;
  EXPECT_EQ(x.elements.count("image"), 0u);
  EXPECT_EQ(svg.find("data:image/png;base64,"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"" + css_hex(kMaskedColor) + "\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"" + css_hex(colormap_at(Colormap::Viridis, 0.25)) + "\""), std::string::npos);  // 0.25
  EXPECT_NE(svg.find("textLength="), std::string::npos);  // text held to the measured width
  // Opaque neighbouring cells overlap (the later paints over the earlier), so a renderer that rounds each crisp
  // edge on its own leaves no seam of background between them: the first row's two cells (1.0, then the masked one)
  // touch with the first reaching past the second's left edge.
  {
    const std::regex rect(
        R"re(<rect x="([-0-9.e]+)" y="([-0-9.e]+)" width="([-0-9.e]+)" height="([-0-9.e]+)" fill="([^"]+)")re");
    const std::string viridis1 = css_hex(colormap_at(Colormap::Viridis, 1.0)), masked = css_hex(kMaskedColor);
    double first_right = -1, masked_left = -1;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it) {
      const double x = std::stod((*it)[1]), w = std::stod((*it)[3]);
      if ((*it)[5] == viridis1 && first_right < 0) first_right = x + w;
      if ((*it)[5] == masked && masked_left < 0) masked_left = x;
    }
    ASSERT_GT(first_right, 0) << svg;
    ASSERT_GT(masked_left, 0) << svg;
    EXPECT_GT(first_right, masked_left);
    EXPECT_LT(first_right, masked_left + 1.0);  // by less than a pixel
  }
  // A map of more than 65,536 visible cells is one embedded nearest-neighbour PNG instead.
  Figure big("big", "");
  std::vector<float> cells(300 * 300, 0.5f);
  big.axes().heatmap("X", cells.data(), 300, 300, {});
  const XmlCheck xb = check_xml(render_svg(big, {}));
  ASSERT_TRUE(xb.error.empty()) << xb.error;
  EXPECT_EQ(xb.elements.at("image"), 1);
  EXPECT_TRUE(std::find(x.texts.begin(), x.texts.end(), "probability") != x.texts.end());
  EXPECT_TRUE(std::find(x.texts.begin(), x.texts.end(), "\xE2\x88\x92\xE2\x88\x9E masked") != x.texts.end());
}

TEST(Svg, EmptyFigureIsStillWellFormed) {
  Figure fig("empty", "");
  const XmlCheck x = check_xml(render_svg(fig, {}));
  EXPECT_TRUE(x.error.empty()) << x.error;
}

// [SECTION] PNG
TEST(Png, DimensionsFollowTheScaleAndTheImageIsNotBlank) {
  const Figure fig = sample_figure();
  for (float scale : {1.0f, 2.0f, 3.0f}) {
    const RenderedPng r = render_png(fig, {.theme = Theme::Dark, .scale = scale, .width = 320, .height = 200});
    ASSERT_TRUE(r.error.empty()) << r.error;
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(r.png.data()),
                                              static_cast<int>(r.png.size()), &w, &h, &n, 4);
    ASSERT_NE(px, nullptr);
    EXPECT_EQ(w, static_cast<int>(320 * scale));
    EXPECT_EQ(h, static_cast<int>(200 * scale));
    std::set<uint32_t> colours;
    for (int i = 0; i < w * h; ++i)
      colours.insert(uint32_t(px[4 * i]) << 16 | uint32_t(px[4 * i + 1]) << 8 | px[4 * i + 2]);
    stbi_image_free(px);
    EXPECT_GT(colours.size(), 20u) << "scale " << scale;  // lines, text anti-aliasing, legend
  }
}

TEST(Png, DefaultSizeIsTwiceTheLogicalSize) {
  const RenderedPng r = render_png(sample_figure(), {});
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Vec2 logical = default_figure_size(sample_figure());
  EXPECT_EQ(r.width, static_cast<int>(logical.x * 2));
  EXPECT_EQ(r.height, static_cast<int>(logical.y * 2));
}

// A 16:9 slide is 1280 × 720 logical whatever size the screen gave the figure; PNG pixels follow the scale.
TEST(Png, SlideSizeIsSixteenByNine) {
  for (float scale : {1.0f, 2.0f}) {
    const RenderedPng r = render_png(
        sample_figure(), {.theme = Theme::Print, .scale = scale, .width = 500, .height = 480, .slide = true});
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.width, static_cast<int>(kSlideWidth * scale));
    EXPECT_EQ(r.height, static_cast<int>(kSlideHeight * scale));
    EXPECT_EQ(r.width * 9, r.height * 16);
  }
  const XmlCheck x = check_xml(render_svg(sample_figure(), {.slide = true}));
  ASSERT_TRUE(x.error.empty()) << x.error;
  EXPECT_EQ(layout_for_export(sample_figure(), {.slide = true}).width, kSlideWidth);
}

// Caption off: no title or note drawn (the <title> element names the figure's id), the plot keeps its labels and
// grows into the room; the figure passed in keeps its caption.
TEST(Svg, CaptionOffDrawsNoTitleOrNote) {
  Figure fig = sample_figure();
  fig.note = "a note under the title";
  const XmlCheck with = check_xml(render_svg(fig, {.theme = Theme::Print}));
  const XmlCheck without = check_xml(render_svg(fig, {.theme = Theme::Print, .caption = false}));
  ASSERT_TRUE(with.error.empty() && without.error.empty()) << with.error << without.error;
  auto has = [](const XmlCheck& x, const std::string& t) {
    return std::find(x.texts.begin(), x.texts.end(), t) != x.texts.end();
  };
  EXPECT_TRUE(has(with, "Scores <raw> & \"scaled\""));
  EXPECT_FALSE(has(without, "Scores <raw> & \"scaled\""));
  EXPECT_FALSE(has(without, "a note under the title"));
  EXPECT_TRUE(has(without, "key position j"));
  EXPECT_TRUE(has(without, "sample")) << "the <title> element falls back to the id";
  EXPECT_EQ(fig.title, "Scores <raw> & \"scaled\"");
  const Layout lw = layout_for_export(fig, {}), lo = layout_for_export(without_caption(fig), {});
  ASSERT_FALSE(lw.frames.empty());
  ASSERT_FALSE(lo.frames.empty());
  EXPECT_GT(lo.frames[0].plot.height(), lw.frames[0].plot.height()) << "the plot takes the caption's room";
}

TEST(Png, MaskedCellIsGreyAndOthersUseTheScale) {
  const Figure fig = masked_heatmap();
  const ExportOptions opt{.theme = Theme::Print, .scale = 1, .width = 400, .height = 300};
  const RenderedPng r = render_png(fig, opt);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Layout l = layout_figure(fig, {.width = 400, .height = 300, .theme = Theme::Print});
  auto pixel = [&](double x, double y) {
    const Vec2 p = l.frames[0].to_pixel(x, y);
    const size_t i = (size_t(p.y) * size_t(r.width) + size_t(p.x)) * 4;
    return rgba(r.rgba[i], r.rgba[i + 1], r.rgba[i + 2]);
  };
  EXPECT_EQ(pixel(1, 0), kMaskedColor);                         // (i = 0, j = 1) is −∞
  EXPECT_EQ(pixel(0, 0), colormap_at(Colormap::Viridis, 1.0));  // 1.0 at the top of the scale
  EXPECT_EQ(pixel(0, 1), colormap_at(Colormap::Viridis, 0.25));
  EXPECT_NE(pixel(1, 1), kMaskedColor);
}

TEST(Png, ScaleOutOfRangeIsAMessage) {
  const RenderedPng r = render_png(sample_figure(), {.scale = 9});
  EXPECT_NE(r.error.find("scale"), std::string::npos);
}

// The fast rectangle fill is an optimisation of the general fill, not a second look: byte for byte the same over
// fractional, inverted, clipped and off-canvas rectangles, opaque and translucent, onto a non-uniform canvas.
TEST(Png, RectangleFastPathEqualsTheGeneralFill) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-8.0f, 72.0f), frac(0.0f, 1.0f);
  detail::Canvas start;
  start.w = 64, start.h = 48;
  start.rgba.resize(size_t(start.w) * start.h * 4);
  for (size_t i = 0; i < start.rgba.size(); ++i) start.rgba[i] = static_cast<uint8_t>(i * 37 % 251);
  for (int trial = 0; trial < 400; ++trial) {
    Rect r{coord(rng), coord(rng), coord(rng), coord(rng)};
    if (trial % 4 == 0) r = {std::round(r.x0), std::round(r.y0), std::round(r.x1), std::round(r.y1)};  // on pixels
    if (trial % 4 == 1) r.y1 = r.y0 + 0.2f * frac(rng);  // thinner than a sub-scanline gap
    if (trial % 8 == 2) {  // edges exactly on sub-scanlines (5 per pixel row): the inside test's boundary
      r.y0 = std::floor(r.y0) + (static_cast<float>(trial % 5) + 0.5f) / 5;
      r.y1 = std::floor(r.y1) + (static_cast<float>(trial / 8 % 5) + 0.5f) / 5;
    }
    const uint32_t color = rgba(200, 30, 90, trial % 3 == 0 ? 255 : static_cast<uint8_t>(255 * frac(rng)));
    const detail::IRect clip = trial % 2 ? detail::IRect{0, 0, start.w, start.h} : detail::IRect{5, 7, 50, 40};
    detail::Canvas fast = start, general = start;
    detail::fill_rect(fast, r, color, clip);
    detail::fill_nonzero(general, {{{r.x0, r.y0}, {r.x1, r.y0}, {r.x1, r.y1}, {r.x0, r.y1}}}, color, clip);
    ASSERT_EQ(fast.rgba, general.rgba) << "trial " << trial << ": rect " << r.x0 << ", " << r.y0 << " – " << r.x1
                                       << ", " << r.y1;
  }
}

// encode_png writes its own chunks around zlib's stream: another decoder must read back every pixel, for opaque
// images (stored as RGB) and translucent ones (RGBA), at awkward sizes.
TEST(Png, EncodedImagesDecodeToTheSamePixels) {
  std::mt19937 rng(11);
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{3, 2}, std::pair{257, 5}, std::pair{640, 400}}) {
    for (const bool opaque : {true, false}) {
      std::vector<uint8_t> px(size_t(w) * size_t(h) * 4);
      for (size_t i = 0; i < px.size(); ++i)
        px[i] = (i % 4 == 3 && opaque) ? 255 : static_cast<uint8_t>(i / 4 % 7 == 0 ? rng() : i / 4 / 13);
      const std::string png = encode_png(w, h, px);
      ASSERT_GT(png.size(), 33u) << w << "×" << h;
      EXPECT_EQ(static_cast<int>(png[25]), opaque ? 2 : 6) << "colour type";  // IHDR: RGB when nothing is translucent
      int dw = 0, dh = 0, channels = 0;
      unsigned char* back = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                                  static_cast<int>(png.size()), &dw, &dh, &channels, 4);
      ASSERT_NE(back, nullptr) << stbi_failure_reason();
      EXPECT_EQ(dw, w);
      EXPECT_EQ(dh, h);
      EXPECT_TRUE(std::equal(px.begin(), px.end(), back)) << w << "×" << h << (opaque ? " opaque" : " translucent");
      stbi_image_free(back);
    }
  }
  EXPECT_TRUE(encode_png(0, 4, {}).empty());
  EXPECT_TRUE(encode_png(2, 2, std::vector<uint8_t>(15)).empty());  // fewer bytes than 2 × 2 × 4
}

// [SECTION] determinism
TEST(Determinism, TwoExportsAreByteIdentical) {
  const ExportOptions opt{.theme = Theme::Print, .scale = 2};
  for (const Figure& fig : {sample_figure(), masked_heatmap()}) {
    EXPECT_EQ(render_png(fig, opt).png, render_png(fig, opt).png) << fig.id;
    EXPECT_EQ(render_svg(fig, opt), render_svg(fig, opt)) << fig.id;
  }
  const fs::path a = temp_dir("det_a"), b = temp_dir("det_b");
  std::vector<std::string> wa, wb;
  ASSERT_EQ(export_figure(masked_heatmap(), a.string(), "p", ExportFormat_All, opt, &wa), "");
  ASSERT_EQ(export_figure(masked_heatmap(), b.string(), "p", ExportFormat_All, opt, &wb), "");
  ASSERT_EQ(wa.size(), 3u);
  for (const char* name : {"p-attn.png", "p-attn.svg", "p-attn.csv"})
    EXPECT_EQ(read_file_bytes(a / name), read_file_bytes(b / name)) << name;
  fs::remove_all(a);
  fs::remove_all(b);
}

// [SECTION] CSV
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
          cell += '"', ++i;
        else if (c == '"')
          quoted = false;
        else
          cell += c;
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.push_back(cell), cell.clear();
      } else {
        cell += c;
      }
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(Csv, LineValuesReadBackExactly) {
  Figure fig("f", "");
  const std::vector<double> xs = {0.1, 1.0 / 3.0, 2e-7}, ys = {M_PI, -1e300, 42};
  fig.axes().setup("d_k", "", "p", "").line("curve", xs, ys);
  const auto rows = parse_csv(to_csv(figure_table(fig)));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"axes", "item", "kind", "d_k", "p", "value"}));
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_EQ(rows[i + 1][1], "curve");
    EXPECT_EQ(std::strtod(rows[i + 1][3].c_str(), nullptr), xs[i]);
    EXPECT_EQ(std::strtod(rows[i + 1][4].c_str(), nullptr), ys[i]);
  }
}

TEST(Csv, FloatHeatmapCellsPrintAsShortFloats) {
  const auto rows = parse_csv(to_csv(figure_table(masked_heatmap())));
  ASSERT_EQ(rows.size(), 5u);  // header + 4 cells
  EXPECT_EQ(rows[1][5], "1");
  EXPECT_EQ(rows[2][5], "-inf");  // masked stays −∞ in the data
  EXPECT_EQ(rows[3][5], "0.25");
  EXPECT_EQ(format_number(0.1f), "0.1");  // a float from core, not 0.100000001490116
  EXPECT_EQ(std::strtof(format_number(0.1f).c_str(), nullptr), 0.1f);
}

TEST(Csv, ExplicitTableWithNamedColumnsWins) {
  Figure fig = sample_figure();
  fig.table.header = {"d_k", "max_p_scaled", "note"};
  fig.table.add_row({16.0, 0.5, std::string("a, \"quoted\" cell")});
  const std::string csv = to_csv(figure_table(fig));
  EXPECT_EQ(csv, "d_k,max_p_scaled,note\n16,0.5,\"a, \"\"quoted\"\" cell\"\n");
}

TEST(Csv, HistogramBinsCountEverySample) {
  Figure fig("h", "");
  fig.axes().histogram("x", {0, 0.1, 0.2, 0.9, 1.0, NAN}, 2);
  const auto rows = parse_csv(to_csv(figure_table(fig)));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][5], "3");  // [0, 0.5)
  EXPECT_EQ(rows[2][5], "2");  // [0.5, 1] includes the upper edge
}

// [SECTION] files
TEST(Files, ExportWritesNamedFilesAtomically) {
  const fs::path dir = temp_dir("files") / "nested";
  std::vector<std::string> written;
  const std::string err = export_figure(sample_figure(), dir.string(), "softmax", ExportFormat_All, {}, &written);
  ASSERT_EQ(err, "");
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(fs::path(written[0]).filename(), "softmax-sample.png");
  EXPECT_EQ(fs::path(written[1]).filename(), "softmax-sample.svg");
  EXPECT_EQ(fs::path(written[2]).filename(), "softmax-sample.csv");
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << "temporary file left behind: " << e.path();
  }
  EXPECT_EQ(files, 3);
  EXPECT_EQ(read_file_bytes(dir / "softmax-sample.csv"), to_csv(figure_table(sample_figure())));
  fs::remove_all(dir.parent_path());
}

// The CSV exporter streams rows instead of building the Table; the bytes are the Table's, for every item kind and
// for a heatmap with tick labels and masked cells, and across the writer's 64 KiB flushes.
TEST(Files, StreamedCsvEqualsTheTable) {
  const fs::path dir = temp_dir("streamed-csv") / "out";
  fs::create_directories(dir);
  Figure big("big", "Big heatmap");
  std::vector<float> data(300 * 200);
  for (size_t i = 0; i < data.size(); ++i) data[i] = i % 7 == 0 ? -INFINITY : 0.001f * float(i);
  big.axes().heatmap("P", data.data(), 300, 200, {.row_labels = {"a,b", "\"q\""}, .col_labels = {" x"}});
  for (const Figure& fig : {sample_figure(), masked_heatmap(), big}) {
    const fs::path path = dir / (fig.id + ".csv");
    ASSERT_EQ(export_csv(fig, path.string()), "");
    EXPECT_EQ(read_file_bytes(path), to_csv(figure_table(fig))) << fig.id;
  }
  fs::remove_all(dir.parent_path());
}

TEST(Files, UnwritablePathGivesAMessage) {
  const fs::path dir = temp_dir("unwritable");
  const fs::path blocker = dir / "not-a-directory";
  std::ofstream(blocker) << "x";
  // A regular file in the way of the directory: fails even when the tests run as root.
  const std::string e1 = export_png(sample_figure(), (blocker / "f.png").string(), {});
  EXPECT_NE(e1.find((blocker / "f.png").string()), std::string::npos) << e1;
  std::vector<std::string> written;
  const std::string e2 =
      export_figure(sample_figure(), (blocker / "sub").string(), "p", ExportFormat_All, {}, &written);
  EXPECT_NE(e2.find("cannot create directory"), std::string::npos) << e2;
  EXPECT_TRUE(written.empty());
  EXPECT_NE(write_file_atomic("", "x"), "");
  fs::remove_all(dir);
}

TEST(Files, BadFigureIdIsRejected) {
  Figure fig = sample_figure();
  fig.id = "../escape";
  std::vector<std::string> written;
  EXPECT_NE(export_figure(fig, fs::temp_directory_path().string(), "p", ExportFormat_Csv, {}, &written), "");
  EXPECT_TRUE(written.empty());
}

}  // namespace
}  // namespace tw::plot
