#include "views/plot/text.h"

#include "core/base/i18n.h"
#include "core/base/utf8.h"

#include <fcntl.h>
#include <ft2build.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include FT_ADVANCES_H

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace tw::plot {

namespace {

// [SECTION] the chain: which files, in which order, and why
//
// DejaVu Sans first in every face: the figures, the width tests and the SVG em size were made with it, and it covers
// Latin, Greek, Cyrillic, arrows and most math operators with one consistent design. Noto Sans CJK SC next: Debian's
// fonts-noto-cjk, one collection that covers Simplified and Traditional Chinese, Japanese kana and Korean Hangul
// (the SC face gives Chinese readers the mainland glyph forms); it comes after DejaVu so Latin, digits and symbols
// inside Chinese sentences keep DejaVu's shapes and widths. DejaVu Math TeX Gyre last: it adds the mathematical
// alphanumerics and operators DejaVu Sans lacks (⟦, ⨁, …). The Italic and Bold faces fall back to DejaVu Sans before
// Noto (the oblique and bold cuts lack some symbol blocks); CJK is set in Noto's regular weight in every face, as the
// screen shares Regular's CJK glyphs with the other faces (app/fonts.cpp). Emoji: no Debian emoji font is
// outline-only, and Debian's ImGui stores characters in 16 bits, so characters beyond U+FFFF show as "U+1F642".
enum FileId { kSans, kOblique, kBold, kMathFont, kCjk, kFileCount };

struct FileSpec {
  bool cjk_dir;  // in TW_CJK_FONT_DIR, else TW_FONT_DIR
  const char* file;
  int face_index;
  const char* family;
  const char* package;
};

constexpr FileSpec kFiles[kFileCount] = {
    {false, "DejaVuSans.ttf", 0, "DejaVu Sans", "fonts-dejavu-core"},
    {false, "DejaVuSans-Oblique.ttf", 0, "DejaVu Sans", "fonts-dejavu-extra"},
    {false, "DejaVuSans-Bold.ttf", 0, "DejaVu Sans", "fonts-dejavu-core"},
    {false, "DejaVuMathTeXGyre.ttf", 0, "DejaVu Math TeX Gyre", "fonts-dejavu-extra"},
    {true, "NotoSansCJK-Regular.ttc", 2, "Noto Sans CJK SC", "fonts-noto-cjk"},  // face 2 of 10: SC
};

// The chain of each FontStyle, in fallback order.
const std::vector<FileId>& chain_files(FontStyle style) {
  static const std::vector<FileId> chains[4] = {
      {kSans, kCjk, kMathFont},            // Regular
      {kOblique, kSans, kCjk, kMathFont},  // Italic
      {kBold, kSans, kCjk, kMathFont},     // Bold
      {kMathFont, kSans, kCjk},            // Math
  };
  return chains[static_cast<int>(style)];
}

std::string font_dir(bool cjk) {
  const char* env = std::getenv(cjk ? "TW_CJK_FONT_DIR" : "TW_FONT_DIR");
  if (env && *env) return env;
  return cjk ? TW_CJK_FONT_DIR : TW_FONT_DIR;
}

// [SECTION] loading

struct LoadedFile {
  ChainFont info;
  FT_Face face = nullptr;
  float real_dim = 0;  // ascent − descent in font units (FreeType's REAL_DIM, ImGui's pixel height)
  float upem = 0;
  long requested = -1;  // the pixel height (26.6) last requested from the face
};

struct Glyph {
  int font = -1;  // index into Chain::fonts; -1: no glyph
  FT_UInt index = 0;
  float advance = 0;  // at pixel height 1
};

struct Chain {
  std::vector<int> files;      // indices into Fonts::files
  std::vector<float> factors;  // size_factor of each
  std::vector<ChainFont> public_view;
  std::array<Glyph, 128> ascii{};
  std::unordered_map<uint32_t, Glyph> cache;  // guarded by Fonts::mu
};

// The fonts, loaded once on first use. FreeType faces are not thread-safe, so every use after loading holds `mu`.
struct Fonts {
  FT_Library lib = nullptr;
  std::array<LoadedFile, kFileCount> files;
  std::array<Chain, 4> chains;
  std::string error, warning;
  bool ok = false;
  float ascent_ratio = 0.8f, em_ratio = 1.0f;  // of DejaVu Sans: ascent / real_dim, units_per_em / real_dim
  std::mutex mu;
};

// Maps `path` read-only for the life of the process (the 20 MB CJK collection is paged in only where read).
bool map_file(const std::string& path, const unsigned char** data, size_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  void* p = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && st.st_size > 0)
    p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  *data = static_cast<const unsigned char*>(p);
  *size = static_cast<size_t>(st.st_size);
  return true;
}

Glyph find_glyph(Fonts& f, const Chain& c, uint32_t cp) {
  if (cp > 0xFFFF) return {};  // ImGui (16-bit ImWchar in Debian's build) cannot draw it: placeholder everywhere
  for (size_t k = 0; k < c.files.size(); ++k) {
    LoadedFile& file = f.files[static_cast<size_t>(c.files[k])];
    const FT_UInt index = FT_Get_Char_Index(file.face, cp);
    if (index == 0) continue;
    FT_Fixed units = 0;
    FT_Get_Advance(file.face, index, FT_LOAD_NO_SCALE, &units);
    return {static_cast<int>(k), index, static_cast<float>(units) / file.real_dim * c.factors[k]};
  }
  return {};
}

Fonts& fonts() {
  static Fonts data;  // process-wide font cache (not panel state)
  static std::once_flag once;
  std::call_once(once, [] {
    if (FT_Init_FreeType(&data.lib) != 0) {
      data.error = tr("FreeType could not start: figures cannot draw text");
      return;
    }
    std::vector<std::string> missing;
    for (int id = 0; id < kFileCount; ++id) {
      const FileSpec& spec = kFiles[id];
      LoadedFile& file = data.files[static_cast<size_t>(id)];
      file.info.path = font_dir(spec.cjk_dir) + "/" + spec.file;
      file.info.face_index = spec.face_index;
      file.info.family = spec.family;
      file.info.cjk = spec.cjk_dir;
      if (!map_file(file.info.path, &file.info.data, &file.info.size) ||
          FT_New_Memory_Face(data.lib, file.info.data, static_cast<FT_Long>(file.info.size), spec.face_index,
                             &file.face) != 0 ||
          !FT_IS_SCALABLE(file.face)) {
        file.face = nullptr;
        const std::string name = std::string(spec.file) + " (" + spec.package + ")";
        if (std::find(missing.begin(), missing.end(), name) == missing.end()) missing.push_back(name);
        continue;
      }
      file.real_dim = static_cast<float>(file.face->ascender - file.face->descender);
      file.upem = static_cast<float>(file.face->units_per_EM);
    }
    if (!data.files[kSans].face) {
      data.error = subst(tr("figure font {0} not found (install fonts-dejavu-core)"), {data.files[kSans].info.path});
      return;
    }
    const LoadedFile& sans = data.files[kSans];
    data.ascent_ratio = static_cast<float>(sans.face->ascender) / sans.real_dim;
    data.em_ratio = sans.upem / sans.real_dim;
    for (int s = 0; s < 4; ++s) {
      Chain& c = data.chains[static_cast<size_t>(s)];
      const LoadedFile* first = nullptr;
      for (FileId id : chain_files(static_cast<FontStyle>(s))) {
        const LoadedFile& file = data.files[id];
        if (!file.face) continue;
        if (!first) first = &file;
        // Same em as the first font at every size: em = height · upem / real_dim.
        const float factor = (first->upem / first->real_dim) * (file.real_dim / file.upem);
        c.files.push_back(id);
        c.factors.push_back(factor);
        ChainFont view = file.info;
        view.size_factor = factor;
        c.public_view.push_back(view);
      }
      for (uint32_t cp = 0; cp < 128; ++cp) c.ascii[cp] = find_glyph(data, c, cp);
    }
    if (!missing.empty()) {
      std::string list;
      for (size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
      data.warning = subst(tr("Fonts missing: {0}. Characters only they draw (Chinese, Japanese, Korean; italic, "
                              "bold or math symbols) show as U+XXXX placeholders; install the packages named."),
                           {list});
    }
    data.ok = true;
  });
  return data;
}

// The glyph of `cp` in `style`'s chain; fonts().ok must hold.
Glyph glyph_of(Fonts& f, FontStyle style, uint32_t cp) {
  Chain& c = f.chains[static_cast<size_t>(style)];
  if (cp < 128) return c.ascii[cp];
  std::lock_guard<std::mutex> lock(f.mu);
  auto it = c.cache.find(cp);
  if (it == c.cache.end()) it = c.cache.emplace(cp, find_glyph(f, c, cp)).first;
  return it->second;
}

void append_placeholder(std::u32string& out, uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", cp);
  for (const char* p = buf; *p; ++p) out.push_back(static_cast<char32_t>(*p));
}

// The characters drawn for `utf8`: placeholders expanded, each with its glyph.
std::vector<std::pair<uint32_t, Glyph>> shape(Fonts& f, std::string_view utf8, FontStyle style) {
  std::vector<std::pair<uint32_t, Glyph>> out;
  out.reserve(utf8.size());
  for (uint32_t cp : decode_utf8(utf8)) {
    const Glyph g = glyph_of(f, style, cp);
    if (g.font >= 0) {
      out.emplace_back(cp, g);
      continue;
    }
    std::u32string placeholder;
    append_placeholder(placeholder, cp);
    for (char32_t ch : placeholder) out.emplace_back(ch, glyph_of(f, style, ch));
  }
  return out;
}

}  // namespace

std::string figure_font_path() { return font_dir(false) + "/" + kFiles[kSans].file; }

const std::string& figure_font_error() { return fonts().error; }

const std::string& font_chain_warning() { return fonts().warning; }

const std::vector<ChainFont>& font_chain(FontStyle style) {
  return fonts().chains[static_cast<size_t>(style)].public_view;
}

std::string svg_font_family(FontStyle style) {
  std::string out;
  std::vector<std::string> seen;
  for (FileId id : chain_files(style)) {
    const std::string family = kFiles[id].family;
    if (std::find(seen.begin(), seen.end(), family) != seen.end()) continue;
    seen.push_back(family);
    out += (out.empty() ? "" : ", ") + family;
  }
  // Renderers without the chain's fonts: other CJK families a reader's system may have, then generic sans.
  return out + ", Noto Sans SC, Source Han Sans SC, PingFang SC, Microsoft YaHei, sans-serif";
}

bool has_glyph(uint32_t cp, FontStyle style) {
  Fonts& f = fonts();
  return f.ok && glyph_of(f, style, cp).font >= 0;
}

std::string displayable_text(std::string_view utf8, FontStyle style) {
  Fonts& f = fonts();
  if (!f.ok) return std::string(utf8);
  bool all_drawn = true;
  for (uint32_t cp : decode_utf8(utf8))
    if (glyph_of(f, style, cp).font < 0) {
      all_drawn = false;
      break;
    }
  if (all_drawn) return std::string(utf8);
  std::string out;
  for (const auto& [cp, g] : shape(f, utf8, style)) {
    append_utf8(&out, cp);
  }
  return out;
}

float glyph_advance(uint32_t cp, float size, FontStyle style) {
  Fonts& f = fonts();
  if (!f.ok) return 0;
  return glyph_of(f, style, cp).advance * size;
}

float text_width(const std::string& utf8, float size, FontStyle style) {
  Fonts& f = fonts();
  if (!f.ok) return 0.55f * size * static_cast<float>(decode_utf8(utf8).size());
  float w = 0;
  bool ascii = true;
  for (char ch : utf8) ascii &= static_cast<unsigned char>(ch) < 0x80;
  if (ascii) {  // the common case, without decoding or locking
    const Chain& c = f.chains[static_cast<size_t>(style)];
    for (char ch : utf8) w += c.ascii[static_cast<unsigned char>(ch)].advance;
    return w * size;
  }
  for (const auto& [cp, g] : shape(f, utf8, style)) w += g.advance;
  return w * size;  // no kerning: ImGui 1.86 does not kern either
}

float text_baseline(float size) {
  const Fonts& f = fonts();
  if (!f.ok) return 0.8f * size;
  // ImGui's FreeType builder places the baseline at the ascent rounded up (FreeType's scaled ascender, FT_CEIL).
  return std::ceil(f.ascent_ratio * size - 1e-4f);
}

float text_em_size(float size) {
  const Fonts& f = fonts();
  if (!f.ok) return size;
  return size * f.em_ratio;
}

TextBitmap render_text(const std::string& utf8, float size, float x_offset, FontStyle style) {
  TextBitmap bmp;
  Fonts& f = fonts();
  if (!f.ok || size <= 0) return bmp;
  const std::vector<std::pair<uint32_t, Glyph>> glyphs = shape(f, utf8, style);
  const float baseline = text_baseline(size);
  const float frac = x_offset - std::floor(x_offset);
  float width = 0;
  for (const auto& [cp, g] : glyphs) width += g.advance * size;
  bmp.width = static_cast<int>(std::ceil(frac + width)) + 2;
  bmp.height = static_cast<int>(std::ceil(size)) + 2;
  bmp.alpha.assign(static_cast<size_t>(bmp.width) * bmp.height, 0);
  const Chain& c = f.chains[static_cast<size_t>(style)];
  float pen = frac;
  std::lock_guard<std::mutex> lock(f.mu);
  for (const auto& [cp, g] : glyphs) {
    if (g.font < 0) continue;
    LoadedFile& file = f.files[static_cast<size_t>(c.files[static_cast<size_t>(g.font)])];
    // The size ImGui's FreeType builder requests: this font's pixel height (REAL_DIM) for the chain's em.
    const long height = std::lround(size * c.factors[static_cast<size_t>(g.font)] * 64);
    if (file.requested != height) {
      FT_Size_RequestRec req{FT_SIZE_REQUEST_TYPE_REAL_DIM, 0, height, 0, 0};
      FT_Request_Size(file.face, &req);
      file.requested = height;
    }
    const float gx = std::floor(pen);
    const float shift = pen - gx;
    // Unhinted as on screen (app/fonts.cpp): glyphs keep their shapes at sub-pixel offsets.
    if (FT_Load_Glyph(file.face, g.index, FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP) == 0) {
      FT_GlyphSlot slot = file.face->glyph;
      if (slot->format == FT_GLYPH_FORMAT_OUTLINE) FT_Outline_Translate(&slot->outline, std::lround(shift * 64), 0);
      if (FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0) {
        const FT_Bitmap& gb = slot->bitmap;
        for (int y = 0; y < static_cast<int>(gb.rows); ++y) {
          const int ty = static_cast<int>(baseline) - slot->bitmap_top + y;
          if (ty < 0 || ty >= bmp.height) continue;
          const unsigned char* row = gb.buffer + static_cast<ptrdiff_t>(y) * gb.pitch;
          for (int x = 0; x < static_cast<int>(gb.width); ++x) {
            const int tx = static_cast<int>(gx) + slot->bitmap_left + x;
            if (tx < 0 || tx >= bmp.width) continue;
            uint8_t& dst = bmp.alpha[static_cast<size_t>(ty) * bmp.width + tx];
            dst = static_cast<uint8_t>(std::min(255, dst + row[x]));
          }
        }
      }
    }
    pen += g.advance * size;
  }
  return bmp;
}

}  // namespace tw::plot
