#include "app/fonts.h"

#include <imgui.h>
#include <imgui_freetype.h>
#include <imgui_internal.h>

#include <atomic>
#include <cmath>
#include <iterator>
#include <map>
#include <mutex>

#include "core/base/i18n.h"
#include "core/base/text_in_use.h"
#include "views/plot/plot_imgui.h"
#include "views/plot/text.h"

namespace tw {

namespace {

// The in-use generation the last atlas was built for (font_atlas_out_of_date compares).
std::atomic<uint64_t> g_built_generation{0};

// ImGui reads an ImFontConfig's glyph ranges when the atlas is built (and again if it is rebuilt without Clear),
// so each atlas keeps its ranges until its next add_fonts.
struct AtlasRanges {
  std::vector<ImWchar> regular, others;
};
std::mutex g_ranges_mutex;
std::map<const ImFontAtlas*, AtlasRanges> g_ranges;  // process-wide: one entry per live atlas

// No hinting, as stb_truetype drew before and text.cpp draws PNG glyphs: shapes stay true at the fractional
// positions unrounded advances give, and the atlas builds twice as fast as with FreeType's light auto-hinter.
constexpr unsigned kBuilderFlags = ImGuiFreeTypeBuilderFlags_NoHinting;

// What the Italic, Bold and Math faces rasterise themselves: the letters, digits and operators formulas set in
// them. Every other glyph they need they share with Regular (copy_missing_glyphs), which keeps start-up fast.
constexpr ImWchar kMathFaceRanges[] = {
    0x0020, 0x00FF,  // Basic Latin + Latin-1
    0x0370, 0x03FF,  // Greek
    0x2100, 0x214F,  // letterlike symbols (ℓ, ℝ)
    0x2190, 0x21FF,  // arrows
    0x2200, 0x22FF,  // mathematical operators
    0x27E6, 0x27EF,  // mathematical brackets
    0,
};

// Gives `face` every glyph of `regular` it lacks, drawn from the same atlas pixels (CJK, dingbats, …), on its own
// baseline and with the advance its chain measures (text.cpp's chains fall back to the same fonts).
void copy_missing_glyphs(ImFont* face, plot::FontStyle style, const ImFont* regular) {
  const float dy = std::round(face->Ascent) - std::round(regular->Ascent);
  const float scale = face->FontSize / regular->FontSize;
  for (const ImFontGlyph& g : regular->Glyphs) {
    if (g.Codepoint == '\t' || face->FindGlyphNoFallback(static_cast<ImWchar>(g.Codepoint))) continue;
    face->AddGlyph(nullptr, static_cast<ImWchar>(g.Codepoint), g.X0 * scale, g.Y0 * scale + dy, g.X1 * scale,
                   g.Y1 * scale + dy, g.U0, g.V0, g.U1, g.V1, plot::glyph_advance(g.Codepoint, face->FontSize, style));
  }
}

}  // namespace

const unsigned short* workbench_glyph_ranges() {
  static const ImWchar ranges[] = {
      0x0020, 0x00FF,  // Basic Latin + Latin-1 (·, ×, ², ³, ±)
      0x0370, 0x03FF,  // Greek (α, θ, σ, ε, Σ)
      0x0400, 0x045F,  // Cyrillic (the basic letters)
      0x1D00, 0x1DBF,  // phonetic extensions: modifier letters such as ᵀ, ᵢ
      0x2000, 0x206F,  // general punctuation (…, ‖, ′)
      0x2070, 0x209F,  // superscripts and subscripts (⁻¹, ₖ)
      0x2100, 0x214F,  // letterlike symbols (ℓ, ℝ)
      0x2190, 0x21FF,  // arrows (→, ←, ↑, ↓)
      0x2200, 0x22FF,  // mathematical operators (√, ∑, ∞, ≤, ≥, ⊙, ∈, ≈)
      0x2300, 0x23FF,  // miscellaneous technical (⌈ ⌉ ⌊ ⌋ ⏵)
      0x2400, 0x243F,  // control pictures (␣: the tokenizer's visible space in token labels)
      0x25A0, 0x25FF,  // geometric shapes (■, ▶, ●)
      0x2700, 0x27BF,  // dingbats (✓, ✗)
      0x27E6, 0x27EF,  // mathematical brackets (⟨ ⟩: partial UTF-8 tokens are shown as ⟨E6 B3⟩)
      0x3000, 0x303F,  // CJK symbols and punctuation (，is full-width below; 、。「」《》)
      0xFF01, 0xFF5E,  // full-width forms (，：；（）！？)
      0xFFFD, 0xFFFD,  // the replacement character: ImGui's fallback glyph instead of '?'
      0,
  };
  return ranges;
}

std::vector<unsigned short> glyph_ranges_in_use() {
  std::vector<ImWchar> out;
  for (const ImWchar* r = workbench_glyph_ranges(); *r; ++r) out.push_back(*r);
  for (uint32_t cp : characters_in_use()) {
    if (cp > 0xFFFF) break;  // sorted; Debian's ImGui has 16-bit ImWchar (plot::displayable_text shows U+XXXXX)
    if (out.size() >= 2 && out.back() + 1u == cp)
      out.back() = static_cast<ImWchar>(cp);  // extend the previous run
    else
      out.push_back(static_cast<ImWchar>(cp)), out.push_back(static_cast<ImWchar>(cp));
  }
  out.push_back(0);
  return out;
}

std::string add_fonts(ImFontAtlas& atlas, const std::string& /*font_dir*/, float pixel_size) {
  // Before reading the characters: one noted meanwhile makes the next out-of-date check true.
  g_built_generation.store(text_in_use_generation());
  const ImWchar* ranges = nullptr;        // Regular: the base ranges and every character in use
  const ImWchar* other_ranges = nullptr;  // Italic, Bold, Math: formula characters, and those in use outside CJK
  {
    std::lock_guard<std::mutex> lock(g_ranges_mutex);
    AtlasRanges& r = g_ranges[&atlas];
    r.regular = glyph_ranges_in_use();
    r.others.assign(std::begin(kMathFaceRanges), std::end(kMathFaceRanges) - 1);
    for (uint32_t cp : characters_in_use())
      if (cp < 0x2E80) r.others.push_back(static_cast<ImWchar>(cp)), r.others.push_back(static_cast<ImWchar>(cp));
    r.others.push_back(0);
    ranges = r.regular.data();
    other_ranges = r.others.data();
  }
  atlas.FontBuilderIO = ImGuiFreeType::GetBuilderForFreeType();  // Debian builds imgui without IMGUI_ENABLE_FREETYPE
  atlas.FontBuilderFlags = kBuilderFlags;
  atlas.Flags |= ImFontAtlasFlags_NoPowerOfTwoHeight;
  const float px = std::max(1.0f, std::round(pixel_size));
  std::string warning = plot::font_chain_warning();
  constexpr plot::FontStyle kStyles[] = {plot::FontStyle::Regular, plot::FontStyle::Italic, plot::FontStyle::Bold,
                                         plot::FontStyle::Math};
  ImFont* fonts[4] = {};
  for (int s = 0; s < 4; ++s) {
    const std::vector<plot::ChainFont>& chain = plot::font_chain(kStyles[s]);
    for (size_t k = 0; k < chain.size(); ++k) {
      const plot::ChainFont& f = chain[k];
      if (s > 0 && f.cjk) continue;  // shared from Regular below: one CJK face to load and rasterise, not four
      ImFontConfig config;
      config.FontDataOwnedByAtlas = false;  // memory-mapped once by the text layer for the life of the process
      config.FontNo = f.face_index;
      config.MergeMode = fonts[s] != nullptr;
      config.FontBuilderFlags = kBuilderFlags;
      config.OversampleH = config.OversampleV = 1;  // imgui_freetype does not oversample
      std::snprintf(config.Name, sizeof config.Name, "%s", f.path.c_str() + f.path.rfind('/') + 1);
      ImFont* font = atlas.AddFontFromMemoryTTF(const_cast<unsigned char*>(f.data), static_cast<int>(f.size),
                                                std::max(1.0f, std::round(px * f.size_factor)), &config,
                                                s == 0 ? ranges : other_ranges);
      if (!fonts[s]) fonts[s] = font;
    }
  }
  if (!fonts[0]) {
    atlas.AddFontDefault();
    warning = subst(tr("{0}: using ImGui's built-in font, so Greek letters, math symbols and Chinese do not show"),
                    {plot::figure_font_error()});
  }
  atlas.Build();
  // imgui_freetype rounds every advance up to whole pixels; the layout and the exporters use unrounded advances.
  // Putting those into the atlas keeps a label as wide on screen as the layout measured (tests/views:
  // TextWidthsMatchTheExporters), at any zoom, since ImGui scales advances linearly with the drawn size.
  for (int s = 0; s < 4; ++s) {
    if (!fonts[s]) continue;
    for (ImFontGlyph& g : fonts[s]->Glyphs)
      if (g.Codepoint != '\t') g.AdvanceX = plot::glyph_advance(g.Codepoint, fonts[s]->FontSize, kStyles[s]);
    if (s > 0 && fonts[0]) copy_missing_glyphs(fonts[s], kStyles[s], fonts[0]);
    fonts[s]->BuildLookupTable();
  }
  // Faces whose font is missing draw with Regular (screen_font falls back to ImGui's current font).
  for (int s = 0; s < 4; ++s) plot::set_screen_font(kStyles[s], fonts[s]);
  return warning;
}

std::string load_fonts(const std::string& font_dir, float pixel_size) {
  return add_fonts(*ImGui::GetIO().Fonts, font_dir, pixel_size);
}

std::unique_ptr<ImFontAtlas> build_font_atlas(const std::string& font_dir, float pixel_size, std::string* warning) {
  auto atlas = std::make_unique<ImFontAtlas>();
  *warning = add_fonts(*atlas, font_dir, pixel_size);
  // The OpenGL backend asks for RGBA; converting here too keeps that off the first frame.
  unsigned char* pixels = nullptr;
  int width = 0, height = 0;
  atlas->GetTexDataAsRGBA32(&pixels, &width, &height);
  return atlas;
}

bool font_atlas_out_of_date() {
  if (ImGuiContext* ctx = ImGui::GetCurrentContext()) {
    // The text box being edited, as ImGui holds it (typed and pasted characters are there before the panel sees
    // them).
    const ImGuiInputTextState& st = ctx->InputTextState;
    if (ctx->ActiveId != 0 && st.ID == ctx->ActiveId && st.CurLenW > 0) {
      std::string utf8(static_cast<size_t>(st.CurLenW) * 3 + 1, '\0');
      const int n =
          ImTextStrToUtf8(utf8.data(), static_cast<int>(utf8.size()), st.TextW.Data, st.TextW.Data + st.CurLenW);
      note_text_in_use(std::string_view(utf8.data(), static_cast<size_t>(n)));
    }
  }
  return text_in_use_generation() != g_built_generation.load();
}

}  // namespace tw
