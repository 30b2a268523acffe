#pragma once
// Text drawn in pieces. ImGui reserves four vertices per byte of a string in one call and indexes them with 16 bits,
// so one string of more than ~16,000 characters (a long unbroken run in a lesson, a long label) aborts on its "Too
// many vertices in ImDrawList using 16-bit indices" assertion. Text is drawn in pieces of at most kMaxDrawBytes
// bytes, cut at character boundaries (implemented in views/plot/plot_imgui.cpp).

#include <imgui.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace tw::plot {

constexpr size_t kMaxDrawBytes = 4096;

// `text` cut into such pieces (empty text: no piece). Joined they are `text`.
std::vector<std::string_view> draw_pieces(std::string_view text, size_t max_bytes = kMaxDrawBytes);

// AddText in pieces: each next piece starts where the previous one ended on the line.
void add_text(ImDrawList* dl, ImFont* font, float size, ImVec2 pos, ImU32 color, std::string_view text);

}  // namespace tw::plot
