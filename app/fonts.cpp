#include "app/fonts.h"

#include <imgui.h>

#include <filesystem>

namespace tw {

const unsigned short* workbench_glyph_ranges() {
  static const ImWchar ranges[] = {
      0x0020, 0x00FF,  // Basic Latin + Latin-1 (·, ×, ², ³, ±)
      0x0370, 0x03FF,  // Greek (α, θ, σ, ε, Σ)
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
      0x27E8, 0x27E9,  // mathematical angle brackets (⟨E6 B3⟩: bytes of a partial UTF-8 token, core/text/token_display)
      0,
  };
  return ranges;
}

std::string add_fonts(ImFontAtlas& atlas, const std::string& font_dir, float pixel_size) {
  const std::filesystem::path sans = std::filesystem::path(font_dir) / "DejaVuSans.ttf";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(sans, ec)) {
    atlas.AddFontDefault();
    return "Font " + sans.string() +
           " not found: using ImGui's built-in font, so Greek letters and math symbols show as '?' "
           "(install fonts-dejavu-core).";
  }
  ImFontConfig config;
  config.OversampleH = pixel_size < 30 ? 2 : 1;  // large zoomed glyphs need no sub-pixel copies (a smaller atlas)
  config.OversampleV = 1;
  ImFont* font = atlas.AddFontFromFileTTF(sans.string().c_str(), pixel_size, &config, workbench_glyph_ranges());
  if (!font) {
    atlas.AddFontDefault();
    return "Font " + sans.string() + " could not be read: using ImGui's built-in font.";
  }
  return "";
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

}  // namespace tw
