#include "views/widgets.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/base/i18n.h"
#include "views/plot/math.h"
#include "views/plot/plot_imgui.h"
#include "views/plot/text_pieces.h"

namespace tw {

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    math_text(text, ImGui::GetFontSize() * 32.0f);
    ImGui::EndTooltip();
  }
}

void panel_explanation(const char* text, bool compact) {
  // In a short window (a projector's 720 lines at 150–200%) the text starts folded: open, it took the room of the
  // controls and the figure a lesson step points at.
  const bool short_window = ImGui::GetWindowHeight() < 36.0f * ImGui::GetFontSize();
  ImGui::SetNextItemOpen(!short_window, ImGuiCond_Once);
  if (!ImGui::CollapsingHeader((std::string(tr("About this panel")) + "###about").c_str(),
                               ImGuiTreeNodeFlags_DefaultOpen))
    return;
  compact = compact || short_window;  // opened there, it scrolls in its box instead of filling the window
  if (!compact) {
    math_text(text);
    ImGui::Spacing();
    return;
  }
  // The text's height is known once drawn: kept from the last frame, the child is no taller than the text needs.
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID height_id = ImGui::GetID("about_text_height");
  const float cap = 0.25f * ImGui::GetWindowHeight();
  const float needed = storage->GetFloat(height_id, cap);
  ImGui::BeginChild("about_text", ImVec2(0, std::min(needed, cap)));
  math_text(text);
  const float drawn = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;
  ImGui::EndChild();
  storage->SetFloat(height_id, drawn);
  ImGui::Spacing();
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

void role_text(plot::UiRole role, const char* text) {
  if (plot::has_math(text)) return math_text(text, -1.0f, false, ImGui::ColorConvertFloat4ToU32(role_color(role)));
  ImGui::TextColored(role_color(role), "%s", text);
}

namespace {
std::vector<std::string> g_fit_problems;  // check_item_fits since the last take_fit_problems (UI thread only)
}  // namespace

void check_item_fits(const std::string& what, float text_width) {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  // A window ImGui lays out without showing (an auto-sized dialog's first frame, before it knows its size and place)
  // cuts nothing on screen.
  if (w->Hidden || w->RootWindow->Hidden) return;
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  const ImRect& inside = w->InnerClipRect;
  std::string problem;
  // Cut: past the right edge of a window that does not scroll sideways, or below one that does not scroll at all.
  // Or off the screen in a window that runs off it (scrolling cannot bring it into view); an item below the fold of
  // a scrolling column that ends on screen is reached by scrolling, as any long column's.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float right = vp->Pos.x + vp->Size.x + 0.5f, bottom = vp->Pos.y + vp->Size.y + 0.5f;
  const bool cut_x =
      (hi.x > inside.Max.x + 0.5f && !w->ScrollbarX) || (hi.x > right && (inside.Max.x > right || !w->ScrollbarX));
  const bool cut_y =
      (hi.y > inside.Max.y + 0.5f && !w->ScrollbarY) || (hi.y > bottom && (inside.Max.y > bottom || !w->ScrollbarY));
  if (cut_x || cut_y)
    problem = what + ": ends at (" + std::to_string(int(hi.x)) + ", " + std::to_string(int(hi.y)) +
              "), outside its window's visible part (" + std::to_string(int(inside.Max.x)) + ", " +
              std::to_string(int(inside.Max.y)) + ")";
  else if (text_width > 0 && text_width > hi.x - lo.x + 0.5f)
    problem = what + ": its text is " + std::to_string(int(text_width)) + " px wide in a frame of " +
              std::to_string(int(hi.x - lo.x)) + " px";
  if (!problem.empty() && g_fit_problems.size() < 200) g_fit_problems.push_back(std::move(problem));
}

void check_item_fits_across(const std::string& what) {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  if (w->Hidden || w->RootWindow->Hidden || w->ScrollbarX) return;
  const float right = ImGui::GetItemRectMax().x, edge = w->InnerClipRect.Max.x;
  if (right > edge + 0.5f && g_fit_problems.size() < 200)
    g_fit_problems.push_back(what + ": ends at x " + std::to_string(int(right)) + ", past its window's right edge " +
                             std::to_string(int(edge)));
}

void check_text_fits(const std::string& what, float text_width, float room) {
  if (text_width > room + 0.5f && g_fit_problems.size() < 200)
    g_fit_problems.push_back(what + ": its text is " + std::to_string(int(text_width)) + " px wide in " +
                             std::to_string(int(room)) + " px");
}

std::vector<std::string> take_fit_problems() { return std::exchange(g_fit_problems, {}); }

void same_line_if_fits(float width) {
  ImGui::SameLine();
  if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

int wrapped_rows(std::initializer_list<float> widths) {
  const float avail = ImGui::GetContentRegionAvail().x, gap = ImGui::GetStyle().ItemSpacing.x;
  int rows = 1;
  float x = -1.0f;  // the end of the line so far; < 0: nothing on it yet
  for (const float w : widths) {
    if (x >= 0 && x + gap + w > avail) {
      ++rows;
      x = w;
    } else {
      x = x < 0 ? w : x + gap + w;
    }
  }
  return rows;
}

bool wrapping_tabs(const char* id, const std::vector<std::string>& labels, int* selected) {
  ImGui::PushID(id);
  const int before = *selected;
  const ImGuiStyle& style = ImGui::GetStyle();
  for (size_t i = 0; i < labels.size(); ++i) {
    const char* label = labels[i].c_str();
    if (i > 0) same_line_if_fits(button_width(label));
    const bool on = int(i) == *selected;
    // The shown tab in the solid pressed-button colour, the others in the tab colour: told apart at a glance.
    ImGui::PushStyleColor(ImGuiCol_Button, style.Colors[on ? ImGuiCol_ButtonActive : ImGuiCol_Tab]);
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, style.Colors[on ? ImGuiCol_ButtonActive : ImGuiCol_TabHovered]);
    ImGui::PushStyleColor(ImGuiCol_ButtonActive, style.Colors[ImGuiCol_ButtonActive]);
    ImGui::PushID(int(i));
    if (ImGui::Button(label)) *selected = int(i);
    ImGui::PopID();
    ImGui::PopStyleColor(3);
    check_item_fits_across(std::string("tab \"") + label + "\"");
  }
  ImGui::Separator();
  ImGui::PopID();
  return *selected != before;
}

float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2 * ImGui::GetStyle().FramePadding.x;
}

void push_card_highlight() {
  // A faint wash of the frame colour: the card's text (its summary drawn in the disabled colour) stays readable on it,
  // where the header blue of a hovered or pressed selectable hid it. The card's border marks the hover.
  ImVec4 wash = ImGui::GetStyleColorVec4(ImGuiCol_FrameBgHovered);
  wash.w = 0.35f;
  ImGui::PushStyleColor(ImGuiCol_HeaderHovered, wash);
  wash.w = 0.55f;
  ImGui::PushStyleColor(ImGuiCol_HeaderActive, wash);
  ImGui::PushStyleColor(ImGuiCol_Header, wash);
}
void pop_card_highlight() { ImGui::PopStyleColor(3); }

uint32_t card_summary_color(bool highlighted) {
  if (highlighted) return ImGui::GetColorU32(ImGuiCol_Text);
  // The disabled grey, moved toward the text colour until it reads (AA) on the window: the print theme's grey on
  // white is 2.8 : 1.
  const ImGuiStyle& style = ImGui::GetStyle();
  const auto rgba = [](const ImVec4& c) {
    const auto byte = [](float v) { return uint32_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
    return byte(c.x) << 24 | byte(c.y) << 16 | byte(c.z) << 8 | 0xFFu;
  };
  const ImVec4 grey = style.Colors[ImGuiCol_TextDisabled], text = style.Colors[ImGuiCol_Text];
  const uint32_t bg = rgba(style.Colors[ImGuiCol_WindowBg]);
  ImVec4 c = grey;
  for (float t = 0.1f; t <= 1.0f && plot::contrast_ratio(rgba(c), bg) < 4.5; t += 0.1f)
    c = ImVec4(grey.x + (text.x - grey.x) * t, grey.y + (text.y - grey.y) * t, grey.z + (text.z - grey.z) * t, 1.0f);
  return ImGui::ColorConvertFloat4ToU32(c);
}

void check_mark(bool ok, const char* label) {
  const ImVec4 color = role_color(ok ? plot::UiRole::Good : plot::UiRole::Bad);
  ImGui::TextColored(color, "%s", ok ? "\u2713" : "\u2717");
  ImGui::SameLine();
  math_text(label, 0.0f);  // formulas typeset, long labels wrapped at the window edge
}

// [SECTION] text with formulas

namespace {
// Chinese text: ImGui wraps only at spaces, so a paragraph of Chinese would break only where it has one.
bool has_cjk(const char* text) {
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(text); *p; ++p)
    if ((*p >= 0xE3 && *p <= 0xE9) || *p == 0xEF) return true;  // lead bytes of U+3000–U+9FFF and U+F000–U+FFFF
  return false;
}
}  // namespace

namespace {
// Where text wrapped at the column's edge (wrap_pos_x 0) ends, in screen x: the visible edge. In a column that scrolls
// sideways ImGui's content region is as wide as last frame's content, so text wrapped there kept the column too wide
// by itself (the stepper's Families text at 150% ran out of view behind a scroll bar it caused).
float column_edge_x() {
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  return std::min(ImGui::GetWindowPos().x + ImGui::GetContentRegionMax().x, w->InnerRect.Max.x - w->WindowPadding.x);
}
}  // namespace

void wrapped_text(const char* text, float wrap_pos_x, uint32_t color) {
  ImGui::PushStyleColor(ImGuiCol_Text, color ? color : ImGui::GetColorU32(ImGuiCol_Text));
  ImGui::PushTextWrapPos(-1.0f);  // broken here: ImGui's wrapping would break a number after its '.'
  std::string broken;
  const char* shown = text;
  if (wrap_pos_x >= 0) {
    ImFont* font = ImGui::GetFont();
    const float size = ImGui::GetFontSize();
    const auto width = [&](std::string_view s) {
      return font->CalcTextSizeA(size, FLT_MAX, 0.0f, s.data(), s.data() + s.size()).x;
    };
    const float max_w = wrap_pos_x == 0 ? std::max(1.0f, column_edge_x() - ImGui::GetCursorScreenPos().x)
                                        : ImGui::CalcWrapWidthForPos(ImGui::GetCursorScreenPos(), wrap_pos_x);
    for (const std::string& line : plot::wrap_plain_text(text, max_w, width)) broken.append(line).push_back('\n');
    broken.pop_back();
    shown = broken.c_str();
  }
  // ImGui's log (tests read what is shown) gets the text as written, as ImGui's own wrapping logs it.
  ImGuiContext& g = *ImGui::GetCurrentContext();
  const bool log = g.LogEnabled && shown != text;
  if (log) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::LogRenderedText(&at, text);
    g.LogEnabled = false;
  }
  // In pieces: ImGui draws every line of one string, visible or not, with 16-bit indices.
  const std::string_view all(shown);
  if (all.size() <= plot::kMaxDrawBytes)
    ImGui::TextUnformatted(shown);
  else
    for (std::string_view piece : plot::draw_pieces(all))
      ImGui::TextUnformatted(piece.data(), piece.data() + piece.size());
  if (log) g.LogEnabled = true;
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void math_text(const char* text, float wrap_pos_x, bool display, uint32_t color) {
  const ImU32 col = color ? color : ImGui::GetColorU32(ImGuiCol_Text);
  // Plain text exactly as ImGui draws it; formulas and Chinese through the typeset lines (label_words breaks
  // between Chinese characters, never inside a formula).
  if (!plot::has_math(text) && (wrap_pos_x < 0 || !has_cjk(text))) {
    wrapped_text(text, wrap_pos_x, col);
    return;
  }
  ImGui::LogText("%s\n", text);  // typeset text is in ImGui's log too, as plain text is (tests read what is shown)
  const float size = ImGui::GetFontSize();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float wrap_x = wrap_pos_x < 0    ? INFINITY
                       : wrap_pos_x == 0 ? column_edge_x()
                                         : ImGui::GetWindowPos().x - ImGui::GetScrollX() + wrap_pos_x;
  const float max_w = std::max(size * 4, wrap_x - origin.x);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 warn = ImGui::ColorConvertFloat4ToU32(role_color(plot::UiRole::Warning));
  const plot::MathOptions opt{.display = display};
  float y = 0, widest = 0;
  const std::string all(text);
  size_t from = 0;
  while (from <= all.size()) {  // paragraphs
    size_t nl = all.find('\n', from);
    if (nl == std::string::npos) nl = all.size();
    const std::vector<std::string> words = plot::label_words(all.substr(from, nl - from));
    // Words are independent boxes, so a line is as wide as its words (no kerning, formulas whole).
    std::vector<float> full(words.size()), bare(words.size());
    for (size_t w = 0; w < words.size(); ++w) {
      std::string t = words[w];
      while (!t.empty() && t.back() == ' ') t.pop_back();
      bare[w] = plot::label_width(t, size);
      full[w] = bare[w] + (t.size() < words[w].size() ? plot::text_width(words[w].substr(t.size()), size) : 0.0f);
    }
    size_t k = 0;
    do {  // lines: as many words as fit (at least one)
      std::string line;
      size_t j = k;
      float pen = 0;
      while (j < words.size()) {
        if (j > k && pen + bare[j] > max_w) break;
        pen += full[j];
        line += words[j++];
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      const plot::MathLayoutPtr m = plot::layout_math(line, size, opt);
      plot::draw_math(dl, *m, ImVec2(origin.x, origin.y + y + m->ascent), col, warn);
      y += std::max(m->ascent + m->descent, ImGui::GetTextLineHeight());
      widest = std::max(widest, m->width);
      k = j;
    } while (k < words.size());
    from = nl + 1;
  }
  ImGui::Dummy(ImVec2(widest, y));
}

void formula_line(const char* text) {
  math_text(text, 0.0f, true, ImGui::ColorConvertFloat4ToU32(role_color(plot::UiRole::Formula)));
}

void math_label(const char* text) {
  ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::AlignTextToFramePadding();
  if (!plot::has_math(text)) return ImGui::TextUnformatted(text);
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + ImGui::GetStyle().FramePadding.y);
  math_text(text, -1.0f);
}

void warning_text(const char* text) {
  if (plot::has_math(text))
    return math_text(text, 0.0f, false, ImGui::ColorConvertFloat4ToU32(role_color(plot::UiRole::Warning)));
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextColored(role_color(plot::UiRole::Warning), "%s", text);
  ImGui::PopTextWrapPos();
}

// [SECTION] two-column panel layout

void begin_controls_column(const DrawContext& ctx, float width, const Controls* controls) {
  bool* collapsed = ctx.controls_collapsed;
  if (collapsed && *collapsed) {
    const float strip = ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().WindowPadding.x;
    ImGui::BeginChild("controls_strip", ImVec2(strip, 0), true);
    if (ImGui::Button("\xC2\xBB")) *collapsed = false;  // »
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Show the controls (Ctrl+B)"));
    ImGui::EndChild();
    ImGui::SameLine();
    // A child too small to show or hit anything: the controls run but the figures get the width.
    ImGui::BeginChild("controls", ImVec2(1, 1), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoInputs);
    return;
  }
  // In a narrow window (a lesson's column beside it, a projector at 150–200%) the column gives up width, down to 40%
  // of the window, so the figures keep a readable width instead of a sliver.
  const ImVec2 avail2 = ImGui::GetContentRegionAvail();
  const float avail = avail2.x;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float readable = kReadableFigureWidth * ctx.dpi_scale + style.ItemSpacing.x;
  float column = std::min(width * ctx.dpi_scale, std::max(avail * 0.4f, avail - readable));
  // But not so narrow that a choice cuts its value ("low-rank+noise" beside a lesson at 200%): the figures give up
  // that much, down to 40% of the window.
  float choice = 0.0f;
  if (controls)
    for (const Control& c : controls->all()) choice = std::max(choice, combo_width_for_value(c));
  if (choice > 0.0f)
    column = std::max(column, std::min(choice + 2 * style.WindowPadding.x + style.ScrollbarSize, avail * 0.6f));
  // Too narrow for both side by side (the figures would get under 3/4 of their readable width: a sliver with a cut
  // title beside a lesson at 150–200%): the controls go above the figures, across the window, no taller than they
  // need or 35% of its height, and the figures get the whole width. Focus and slides keep them side by side (there
  // the figure is fitted to the height).
  const bool stacked =
      !ctx.fit_figures_to_height && avail - column - style.ItemSpacing.x < 0.75f * (readable - style.ItemSpacing.x);
  ImGuiStorage* storage = ImGui::GetStateStorage();
  storage->SetBool(ImGui::GetID("controls_stacked"), stacked);
  if (stacked) {
    const float cap = 0.35f * avail2.y;
    const float needed = storage->GetFloat(ImGui::GetID("controls_height"), cap);
    ImGui::BeginChild("controls", ImVec2(0, std::min(needed, cap)), true);
  } else {
    ImGui::BeginChild("controls", ImVec2(column, 0), true);
  }
  if (collapsed) {
    const char* label = tr("\xC2\xAB hide controls");  // «
    const float w = ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x;
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w));
    if (ImGui::SmallButton(label)) *collapsed = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Give the figures the full width (Ctrl+B)"));
  }
}

void begin_figures_column() {
  const bool hidden_controls = ImGui::GetWindowWidth() < 2;  // the collapsed column's 1-pixel child
  const float drawn = ImGui::GetCursorPosY() + ImGui::GetStyle().WindowPadding.y;  // the controls' height
  ImGui::EndChild();
  ImGuiStorage* storage = ImGui::GetStateStorage();
  // Stacked (begin_controls_column): the figures below the controls, whose height is kept for the next frame.
  if (!hidden_controls && storage->GetBool(ImGui::GetID("controls_stacked")))
    storage->SetFloat(ImGui::GetID("controls_height"), drawn);
  else
    ImGui::SameLine(0, hidden_controls ? 0.0f : -1.0f);
  // Sideways scrolling only while a figure needed it last frame (plot::figure_too_wide_key).
  const ImGuiID sideways = ImGui::GetID("figures_sideways");
  ImGui::BeginChild("figures", ImVec2(0, 0), false,
                    storage->GetBool(sideways) ? ImGuiWindowFlags_HorizontalScrollbar : ImGuiWindowFlags_None);
  ImGui::GetStateStorage()->SetBool(plot::figure_too_wide_key(), false);
}

void end_figures_column() {
  const bool too_wide = ImGui::GetStateStorage()->GetBool(plot::figure_too_wide_key());
  ImGui::EndChild();
  ImGui::GetStateStorage()->SetBool(ImGui::GetID("figures_sideways"), too_wide);  // the parent's, as begin read it
}

void draw_controls_column(const Controls& controls, const DrawContext& ctx, float item_width,
                          const std::function<bool(const Control&)>& visible,
                          const std::function<void(const Control&)>& after) {
  for (const Control& c : controls.all()) {
    if (visible && !visible(c)) continue;
    // The widget gives up width (down to a third of the column) so its label and (?) marker fit beside it: a long
    // label ("vocabulary (WP, Unigram)") at a large zoom is not cut at the column's edge.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float avail = ImGui::GetContentRegionAvail().x;
    const float beside = ImGui::CalcTextSize(tr(c.label.c_str())).x + style.ItemInnerSpacing.x +
                         (c.help.empty() ? 0.0f : ImGui::CalcTextSize("(?)").x + style.ItemSpacing.x);
    // A choice is as wide as its value when there is room ("NVIDIA A100 SXM 80GB (bf16)" whole, not cut short);
    // where its label leaves too little ("low-rank+noise" at 200%), the label goes above it and it takes the line.
    const float value = combo_width_for_value(c);
    const float width = std::max(std::min(std::max(item_width * ctx.dpi_scale, value), avail - beside), avail / 3);
    // A label too long to go beside the widget ("Mask terms (combined with AND)", "planted strength" at 150–200%) goes
    // above it, wrapped, instead of being cut at the column's edge.
    const bool label_above = value > width + 0.5f || width + beside > avail + 0.5f;
    if (!label_above) ImGui::SetNextItemWidth(width);
    draw_control(c, label_above);
    if (after) after(c);
  }
}

const plot::Figure* find_figure(const std::vector<plot::Figure>& figs, std::string_view id) {
  for (const plot::Figure& f : figs)
    if (f.id == id) return &f;
  return nullptr;
}

std::vector<std::vector<size_t>> figure_rows_indices(const std::vector<plot::Figure>& figs,
                                                     const std::vector<FigureRow>& rows) {
  std::vector<std::vector<size_t>> out;
  for (const FigureRow& row : rows) {
    std::vector<size_t>& r = out.emplace_back();
    for (const std::string& id : row.figures)
      if (const plot::Figure* f = find_figure(figs, id)) r.push_back(static_cast<size_t>(f - figs.data()));
  }
  return out;
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
  const std::vector<std::vector<size_t>> shown = figure_rows_indices(figs, rows);
  // Fitted to the column's visible height (focus): a figure taller than it shrinks in its own shape, whole on screen
  // with its caption, and is drawn at that size (the readable minimum would grow it past the fold again).
  const float fit_h = ctx.fit_figures_to_height
                          ? ImGui::GetCurrentWindow()->InnerRect.GetHeight() - ImGui::GetStyle().ItemSpacing.y
                          : 0.0f;
  const plot::FigureDrawFlags fit_flags = fit_h > 0 ? plot::FigureDrawFlags_NoMinSize : plot::FigureDrawFlags_None;
  auto fitted = [fit_h](ImVec2 size) {
    if (fit_h > 0 && size.y > fit_h) size = ImVec2(size.x * fit_h / size.y, fit_h);
    return size;
  };
  for (size_t ri = 0; ri < rows.size(); ++ri) {
    const FigureRow& row = rows[ri];
    const bool wide = row.figures.size() == 1 && !row.half;
    for (size_t k = 0; k < shown[ri].size(); ++k) {
      const plot::Figure& f = figs[shown[ri][k]];
      if (stack) {
        // Keep each figure's shape: in a shared row it was w/2 wide and w/2 · aspect tall.
        const ImVec2 size = fitted(ImVec2(w, w * row.aspect * (wide ? 0.5f : 1.0f)));
        if (size.x < w) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + (w - size.x) / 2);  // centred when fitted
        plot::draw_figure(f, ctx, panel_id, size, fit_flags);
        continue;
      }
      if (k > 0) ImGui::SameLine();
      plot::draw_figure(f, ctx, panel_id, fitted(ImVec2(wide ? 2 * w + spacing : w, w * row.aspect)), fit_flags);
    }
  }
}

bool job_progress(float fraction, const char* label) {
  const float button = ImGui::CalcTextSize(tr("Cancel")).x + 2 * ImGui::GetStyle().FramePadding.x;
  ImGui::ProgressBar(fraction, ImVec2(-(button + ImGui::GetStyle().ItemSpacing.x), 0), label);
  ImGui::SameLine();
  const bool cancel = ImGui::Button(tr("Cancel"));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", tr("Stop this computation; the figures keep the previous settings."));
  return cancel;
}

}  // namespace tw
