#include "views/widgets.h"

#include <imgui.h>

#include <algorithm>

#include "core/text/i18n.h"
#include "views/plot/plot_imgui.h"

namespace tw {

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void panel_explanation(const char* text) {
  if (ImGui::CollapsingHeader((std::string(tr("About this panel")) + "###about").c_str(),
                              ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
  }
}

void empty_state(const char* text) {
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size = ImGui::CalcTextSize(text, nullptr, false, avail.x);
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + (avail.x - size.x) * 0.5f);
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (avail.y - size.y) * 0.4f);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + avail.x);
  ImGui::TextDisabled("%s", text);
  ImGui::PopTextWrapPos();
}

namespace {
ImVec4 role_color(plot::UiRole role) {
  const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  const bool light = 0.2126f * bg.x + 0.7152f * bg.y + 0.0722f * bg.z > 0.5f;
  const uint32_t c = plot::ui_color(light ? Theme::Print : Theme::Dark, role);
  return ImVec4(float(c >> 24) / 255.0f, float((c >> 16) & 0xFF) / 255.0f, float((c >> 8) & 0xFF) / 255.0f, 1.0f);
}
}  // namespace

void role_text(plot::UiRole role, const char* text) { ImGui::TextColored(role_color(role), "%s", text); }

void check_mark(bool ok, const char* label) {
  const ImVec4 color = role_color(ok ? plot::UiRole::Good : plot::UiRole::Bad);
  ImGui::TextColored(color, "%s", ok ? "\u2713" : "\u2717");
  ImGui::SameLine();
  ImGui::TextUnformatted(label);
}

void warning_text(const char* text) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(role_color(plot::UiRole::Warning), "%s", text);
  ImGui::PopTextWrapPos();
}

// [SECTION] two-column panel layout

void begin_controls_column(const DrawContext& ctx, float width) {
  bool* collapsed = ctx.controls_collapsed;
  if (collapsed && *collapsed) {
    const float strip = ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().WindowPadding.x;
    ImGui::BeginChild("controls_strip", ImVec2(strip, 0), true);
    if (ImGui::Button("\xC2\xBB")) *collapsed = false;  // »
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Show the controls (Ctrl+B)"));
    ImGui::EndChild();
    ImGui::SameLine();
    // A child too small to show or hit anything: the controls run but the figures get the width.
    ImGui::BeginChild("controls", ImVec2(1, 1), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoInputs);
    return;
  }
  ImGui::BeginChild("controls", ImVec2(width * ctx.dpi_scale, 0), true);
  if (collapsed) {
    const char* label = tr("\xC2\xAB hide controls");  // «
    const float w = ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x;
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w));
    if (ImGui::SmallButton(label)) *collapsed = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Give the figures the full width (Ctrl+B)"));
  }
}

void begin_figures_column() {
  const bool hidden_controls = ImGui::GetWindowWidth() < 2;  // the collapsed column's 1-pixel child
  ImGui::EndChild();
  ImGui::SameLine(0, hidden_controls ? 0.0f : -1.0f);
  ImGui::BeginChild("figures", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
}

void end_figures_column() { ImGui::EndChild(); }

void draw_controls_column(const Controls& controls, const DrawContext& ctx, float item_width,
                          const std::function<bool(const Control&)>& visible,
                          const std::function<void(const Control&)>& after) {
  for (const Control& c : controls.all()) {
    if (visible && !visible(c)) continue;
    ImGui::SetNextItemWidth(item_width * ctx.dpi_scale);
    draw_control(c);
    if (after) after(c);
  }
}

void draw_figure_rows(const std::vector<plot::Figure>& figs, const DrawContext& ctx, const char* panel_id,
                      const std::vector<FigureRow>& rows, float min_width) {
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float avail = ImGui::GetContentRegionAvail().x;
  // Side by side only when each figure still gets a readable width; otherwise one figure per row at the column's
  // width, which reads better than a sideways scroll (that is left for a column narrower than one figure).
  const float readable = std::max(min_width, kReadableFigureWidth) * ctx.dpi_scale;
  const bool stack = (avail - spacing) / 2 < readable;
  const float w = stack ? std::max(min_width * ctx.dpi_scale, avail) : (avail - spacing) / 2;
  for (const FigureRow& row : rows) {
    const bool wide = row.figures.size() == 1 && !row.half;
    for (size_t k = 0; k < row.figures.size(); ++k) {
      const size_t i = static_cast<size_t>(row.figures[k]);
      if (i >= figs.size()) continue;
      if (stack) {
        // Keep each figure's shape: in a shared row it was w/2 wide and w/2 · aspect tall.
        plot::draw_figure(figs[i], ctx, panel_id, ImVec2(w, w * row.aspect * (wide ? 0.5f : 1.0f)));
        continue;
      }
      if (k > 0) ImGui::SameLine();
      plot::draw_figure(figs[i], ctx, panel_id, ImVec2(wide ? 2 * w + spacing : w, w * row.aspect));
    }
  }
}

bool job_progress(float fraction, const char* label) {
  const float button = ImGui::CalcTextSize(tr("Cancel")).x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::ProgressBar(fraction, ImVec2(-(button + ImGui::GetStyle().ItemSpacing.x), 0), label);
  ImGui::SameLine();
  const bool cancel = ImGui::Button(tr("Cancel"));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip(tr("Stop this computation; the figures keep the previous settings."));
  return cancel;
}

}  // namespace tw
