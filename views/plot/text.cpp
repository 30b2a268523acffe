#include "views/plot/text.h"

#include <stb_truetype.h>

#include <cmath>
#include <fstream>
#include <mutex>

namespace tw::plot {

namespace {

// The figure font, loaded once on first use. Read-only afterwards, so concurrent exports may share it.
struct FontData {
  std::vector<unsigned char> bytes;
  stbtt_fontinfo info{};
  bool ok = false;
  std::string error;
  int ascent = 0, descent = 0;
};

FontData& font() {
  static FontData data;  // process-wide font cache (not panel state)
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string path = figure_font_path();
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      data.error = "figure font " + path + " not found (install fonts-dejavu-core)";
      return;
    }
    // One read of the whole file: copying the 740 KB font character by character through istreambuf_iterator
    // cost about 1 ms of CPU in every headless export process.
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    in.seekg(0, std::ios::beg);
    if (size > 0) {
      data.bytes.resize(static_cast<size_t>(size));
      if (!in.read(reinterpret_cast<char*>(data.bytes.data()), size)) data.bytes.clear();
    }
    if (data.bytes.empty() ||
        !stbtt_InitFont(&data.info, data.bytes.data(), stbtt_GetFontOffsetForIndex(data.bytes.data(), 0))) {
      data.error = "figure font " + path + " could not be read";
      return;
    }
    int gap = 0;
    stbtt_GetFontVMetrics(&data.info, &data.ascent, &data.descent, &gap);
    data.ok = true;
  });
  return data;
}

int glyph_for(const FontData& f, uint32_t cp) {
  int g = stbtt_FindGlyphIndex(&f.info, static_cast<int>(cp));
  if (g == 0) g = stbtt_FindGlyphIndex(&f.info, '?');  // as ImGui shows missing glyphs
  return g;
}

}  // namespace

std::string figure_font_path() { return std::string(TW_FONT_DIR) + "/DejaVuSans.ttf"; }

const std::string& figure_font_error() { return font().error; }

float text_width(const std::string& utf8, float size, FontStyle /*style: one face until the font chain lands*/) {
  const FontData& f = font();
  const std::vector<uint32_t> cps = decode_utf8(utf8);
  if (!f.ok) return 0.55f * size * static_cast<float>(cps.size());
  const float scale = stbtt_ScaleForPixelHeight(&f.info, size);
  float w = 0;
  for (uint32_t cp : cps) {
    int advance = 0, lsb = 0;
    stbtt_GetGlyphHMetrics(&f.info, glyph_for(f, cp), &advance, &lsb);
    w += static_cast<float>(advance) * scale;  // no kerning: ImGui 1.86 does not kern either
  }
  return w;
}

float text_baseline(float size) {
  const FontData& f = font();
  if (!f.ok) return 0.8f * size;
  const float scale = stbtt_ScaleForPixelHeight(&f.info, size);
  // ImGui rounds the ascent this way when it builds the atlas (ImFontAtlasBuildSetupFont).
  return std::floor(static_cast<float>(f.ascent) * scale + 1.0f);
}

float text_em_size(float size) {
  const FontData& f = font();
  if (!f.ok) return size;
  return stbtt_ScaleForPixelHeight(&f.info, size) / stbtt_ScaleForMappingEmToPixels(&f.info, 1.0f);
}

TextBitmap render_text(const std::string& utf8, float size, float x_offset, FontStyle /*style*/) {
  TextBitmap bmp;
  const FontData& f = font();
  if (!f.ok || size <= 0) return bmp;
  const float scale = stbtt_ScaleForPixelHeight(&f.info, size);
  const float baseline = text_baseline(size);
  const std::vector<uint32_t> cps = decode_utf8(utf8);
  const float frac = x_offset - std::floor(x_offset);
  bmp.width = static_cast<int>(std::ceil(frac + text_width(utf8, size))) + 2;
  bmp.height = static_cast<int>(std::ceil(size)) + 2;
  bmp.alpha.assign(static_cast<size_t>(bmp.width) * bmp.height, 0);
  float pen = frac;
  std::vector<unsigned char> glyph;
  for (uint32_t cp : cps) {
    const int g = glyph_for(f, cp);
    int advance = 0, lsb = 0;
    stbtt_GetGlyphHMetrics(&f.info, g, &advance, &lsb);
    const float gx = std::floor(pen);
    const float shift = pen - gx;
    int x0, y0, x1, y1;
    stbtt_GetGlyphBitmapBoxSubpixel(&f.info, g, scale, scale, shift, 0, &x0, &y0, &x1, &y1);
    const int gw = x1 - x0, gh = y1 - y0;
    if (gw > 0 && gh > 0) {
      glyph.assign(static_cast<size_t>(gw) * gh, 0);
      stbtt_MakeGlyphBitmapSubpixel(&f.info, glyph.data(), gw, gh, gw, scale, scale, shift, 0, g);
      for (int y = 0; y < gh; ++y) {
        const int ty = static_cast<int>(baseline) + y0 + y;
        if (ty < 0 || ty >= bmp.height) continue;
        for (int x = 0; x < gw; ++x) {
          const int tx = static_cast<int>(gx) + x0 + x;
          if (tx < 0 || tx >= bmp.width) continue;
          uint8_t& dst = bmp.alpha[static_cast<size_t>(ty) * bmp.width + tx];
          dst = static_cast<uint8_t>(std::min(255, dst + glyph[static_cast<size_t>(y) * gw + x]));
        }
      }
    }
    pen += static_cast<float>(advance) * scale;
  }
  return bmp;
}

}  // namespace tw::plot
