// Start page cards (see start_page.h). Each card is one selectable area: thumbnail on top, title, summary.
#include "views/start_page.h"

#include <algorithm>
#include <cmath>

#include "core/base/i18n.h"
#include "views/widgets.h"

namespace tw {

namespace {

// Card size in logical pixels; the thumbnail keeps the figures' 16 : 10 export aspect.
constexpr float kCardWidth = 264.0f;
constexpr float kThumbHeight = 150.0f;

void draw_card(const StartCard& card, float w, float s, bool* clicked) {
  ImGui::BeginGroup();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float h = kThumbHeight * s + line * 5.2f;  // title + up to four lines of summary
  ImGui::BeginDisabled(!card.error.empty());
  push_card_highlight();
  *clicked = ImGui::Selectable("##card", false, ImGuiSelectableFlags_AllowItemOverlap, ImVec2(w, h));
  pop_card_highlight();
  ImGui::EndDisabled();
  const bool hovered = ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRect(top, ImVec2(top.x + w, top.y + h), ImGui::GetColorU32(hovered ? ImGuiCol_ButtonHovered : ImGuiCol_Border),
              4.0f * s, 0, hovered ? 2.0f * s : 1.0f * s);

  // Thumbnail: the texture, or a placeholder saying what is happening.
  const float pad = 6.0f * s;
  const ImVec2 t0(top.x + pad, top.y + pad), t1(top.x + w - pad, top.y + pad + kThumbHeight * s);
  if (card.thumbnail && card.thumb_w > 0 && card.thumb_h > 0) {
    // Fit inside the box keeping the aspect ratio, centred.
    const float bw = t1.x - t0.x, bh = t1.y - t0.y;
    const float k = std::min(bw / float(card.thumb_w), bh / float(card.thumb_h));
    const float iw = float(card.thumb_w) * k, ih = float(card.thumb_h) * k;
    const ImVec2 i0(t0.x + (bw - iw) / 2, t0.y + (bh - ih) / 2);
    dl->AddImage(card.thumbnail, i0, ImVec2(i0.x + iw, i0.y + ih));
  } else {
    dl->AddRectFilled(t0, t1, ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f * s);
    const char* note = !card.error.empty()   ? tr("Cannot be loaded")
                       : card.thumbnail_done ? tr("No figure")
                                             : tr("Rendering...");
    const ImVec2 ts = ImGui::CalcTextSize(note);
    dl->AddText(ImVec2((t0.x + t1.x - ts.x) / 2, (t0.y + t1.y - ts.y) / 2), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                note);
  }

  // Title and summary (or the error), wrapped inside the card, clipped to it.
  const float text_x = top.x + pad, text_w = w - 2 * pad;
  ImGui::SetCursorScreenPos(ImVec2(text_x, t1.y + pad));
  ImGui::PushClipRect(ImVec2(top.x, top.y), ImVec2(top.x + w, top.y + h), true);
  const float wrap_x = ImGui::GetCursorPosX() + text_w;
  ImGui::PushTextWrapPos(wrap_x);
  ImGui::TextUnformatted(card.title.c_str());
  // Back to the card's padding: after a line ImGui puts the cursor at the window's left edge, the card's border.
  ImGui::SetCursorScreenPos(ImVec2(text_x, ImGui::GetCursorScreenPos().y));
  if (!card.error.empty())
    role_text(plot::UiRole::Bad, card.error.c_str());
  else
    math_text(card.summary.c_str(), wrap_x, false, card_summary_color(hovered));
  ImGui::PopTextWrapPos();
  ImGui::PopClipRect();
  ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + h));
  ImGui::Dummy(ImVec2(w, 0));
  ImGui::EndGroup();
  if (hovered && !card.description.empty()) {
    ImGui::BeginTooltip();
    math_text(card.error.empty() ? card.description.c_str() : card.error.c_str(), ImGui::GetFontSize() * 32.0f);
    ImGui::EndTooltip();
  }
}

}  // namespace

int draw_start_cards(const std::vector<StartCard>& cards, const std::string& presets_dir, const DrawContext& ctx) {
  const float s = std::max(0.5f, ImGui::GetFontSize() / plot::kBaseFontSize);
  (void)ctx;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(
      tr("Pick a lecture to start from: each card opens its panels with the settings the lecture uses. Everything "
         "stays adjustable, and View opens any other panel."));
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  if (cards.empty()) {
    const std::string msg = presets_dir.empty()
                                ? tr("No lecture presets were found (no assets/scenes folder next to the "
                                     "program or in its install location).")
                                : subst(tr("No lecture presets in {0}."), {presets_dir});

    empty_state(msg.c_str());
    return -1;
  }
  // As many equal columns as fit; cards stretch to share the row.
  const float avail = ImGui::GetContentRegionAvail().x;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const int cols = std::max(1, static_cast<int>((avail + spacing) / (kCardWidth * s + spacing)));
  const float w = std::floor((avail - spacing * float(cols - 1)) / float(cols));
  int clicked = -1;
  for (size_t i = 0; i < cards.size(); ++i) {
    ImGui::PushID(cards[i].name.c_str());
    if (i % size_t(cols) != 0) ImGui::SameLine();
    bool hit = false;
    draw_card(cards[i], w, s, &hit);
    if (hit) clicked = static_cast<int>(i);
    ImGui::PopID();
  }
  return clicked;
}

}  // namespace tw
