#pragma once
// Small ImGui helpers shared by every panel (the one place for them, as Tracy's TracyImGui.hpp).

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "views/controls.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"
#include "views/plot/theme.h"

namespace tw {

// A greyed "(?)" that shows `text` as a tooltip on hover; placed on the same line as the previous item.
void help_marker(const char* text);
// The panel's one-paragraph explanation, wrapped, in a collapsible header open by default (folded at first in a window
// shorter than 36 lines of text: a projector at 150–200%). `compact` (a focused panel,
// DrawContext::fit_figures_to_height; also any short window): at most a quarter of the window's height, scrolling
// inside, so a large zoom on a projector leaves the figures the room to be seen whole.
void panel_explanation(const char* text, bool compact = false);
// Centered grey text for a panel or figure with nothing to show yet.
void empty_state(const char* text);
// Text fit, for the tests at 1280×720 and 150%/200% zoom: records a problem when the last item ends outside its
// window's visible part (cut at its edge), or when `text_width` (> 0) is wider than the item's frame (a combo's
// value cut short). take_fit_problems() returns and clears the problems recorded since its last call.
void check_item_fits(const std::string& what, float text_width = 0.0f);
// Only across: the last item ends past the right edge of a window that does not scroll sideways (a control's label
// or its "(?)" cut; a column that scrolls down is not cut below).
void check_item_fits_across(const std::string& what);
// The same for a text `text_width` wide drawn in `room` pixels (a combo's value beside its arrow).
void check_text_fits(const std::string& what, float text_width, float room);
std::vector<std::string> take_fit_problems();
// Before an item `width` pixels wide that follows another: on the same line when it fits, else on the next (a row of
// buttons wraps in a narrow window at a large zoom instead of being cut at its edge).
void same_line_if_fits(float width);
// How many lines a row of items `widths` wide takes at the current cursor when same_line_if_fits places each after
// the first (to keep room for a row of buttons that may wrap, below a list that scrolls).
int wrapped_rows(std::initializer_list<float> widths);
// A row of tabs that wraps onto further rows when the labels do not fit one, each label whole (ImGui's tab bar
// shrinks them to "Residua…" in a narrow column at 200%). `labels` are shown as given (translated by the caller);
// `selected` is the index shown; returns true when a click changed it. A line under the row ends it.
bool wrapping_tabs(const char* id, const std::vector<std::string>& labels, int* selected);
// The width of a button labelled `label` (its text up to "##", plus the frame's padding).
float button_width(const char* label);
// Around a card's full-size Selectable (start page, lessons): hover and press wash the card faintly instead of in the
// header blue, so the text drawn on it stays readable.
void push_card_highlight();
void pop_card_highlight();
// The colour of a card's summary: the disabled text colour on a plain card; the text colour while the card is
// hovered or pressed (the disabled grey fell to 2.8 : 1 on the hover wash and 1.8 : 1 on the pressed one).
uint32_t card_summary_color(bool highlighted);
// A green check or red cross followed by a label, for live invariant checks.
void check_mark(bool ok, const char* label);
// Text in the warning colour (yellow-orange).
void warning_text(const char* text);
// Text in the UI colour of a role (plot::ui_color) for the theme the window is drawn in (read off ImGui's style),
// so formulas, marks and warnings keep AA contrast on the print theme's white as on the dark one.
void role_text(plot::UiRole role, const char* text);

// [SECTION] text with formulas
// Text with $…$ math (plot/math.h) typeset with the figure layout's runs and drawn with ImDrawList in the faces of
// the font chain; plain text goes through ImGui unchanged. Wrapped at `wrap_pos_x` as ImGui::PushTextWrapPos takes
// it (0: the window's right edge; < 0: no wrapping); a formula is never split across lines. `display`: fractions
// and sums at display size (a formula line), else inline. `color` 0: ImGuiCol_Text.
void math_text(const char* text, float wrap_pos_x = 0.0f, bool display = false, uint32_t color = 0);
// Plain text (never read as math: a token "$" stays a dollar) wrapped at `wrap_pos_x` as math_text takes it, at
// spaces and between Chinese characters, never inside a word or a number (plot::wrap_plain_text). `color` 0: the
// current ImGuiCol_Text.
void wrapped_text(const char* text, float wrap_pos_x = 0.0f, uint32_t color = 0);
// A formula line (the stepper's): display-size math in the Formula role colour, wrapped at the window edge.
void formula_line(const char* text);
// One line of text with math after a widget on the same line (a control's label), aligned with the frame's text.
void math_label(const char* text);

// [SECTION] the two-column panel layout: controls on the left, figures on the right
//   begin_controls_column(ctx, 330); draw_controls_column(...); ...; begin_figures_column(); ...; end_figures_column();
// With ctx.controls_collapsed set, the column has a "hide" button and, collapsed, is a slim strip with a "show"
// button; the controls are still submitted then (their values and jobs stay live) but draw nothing.
// `controls` (optional): the column widens, up to 60% of the window, until the widest choice's current value shows
// whole (its label above it, as draw_controls_column places it). A window too narrow for controls and a readable
// figure side by side (beside a lesson at 150–200%) gets the controls above the figures instead, across its width
// and at most 35% of its height, and the figures below get its whole width (still never below their readable size:
// at 200% a figure wider than the window scrolls sideways).
void begin_controls_column(const DrawContext& ctx, float width, const Controls* controls = nullptr);
void begin_figures_column();  // ends the controls column
void end_figures_column();
// Every control of `controls` that `visible` accepts (all when empty), each widget `item_width` wide, followed by
// `after(control)` for extra buttons under it.
void draw_controls_column(const Controls& controls, const DrawContext& ctx, float item_width,
                          const std::function<bool(const Control&)>& visible = {},
                          const std::function<void(const Control&)>& after = {});
// One row of a panel's figure column: one figure spans the column (unless `half`), two share it side by side;
// each is `aspect` times as tall as half the column is wide. Rows name figures by id (plot::Figure::id), so a panel
// that reorders, adds or drops figures keeps its layout; an id the panel does not show at the moment is skipped.
struct FigureRow {
  std::vector<std::string> figures;  // ids of the panel's figures()
  float aspect = 0.62f;
  bool half = false;  // a single figure drawn half the column wide
};
// Where a panel's figures go on screen.
struct FigureLayout {
  std::vector<FigureRow> rows;
  float min_width = 0;  // logical pixels; a narrower column scrolls sideways
};
// Four figures in two rows of two, as most panels show them.
inline FigureLayout two_by_two(std::string a, std::string b, std::string c, std::string d) {
  return {{{{std::move(a), std::move(b)}}, {{std::move(c), std::move(d)}}}, 380};
}
// The figure of `figs` with that id, or nullptr.
const plot::Figure* find_figure(const std::vector<plot::Figure>& figs, std::string_view id);
// Each row of `rows` as indices into `figs` (ids not in `figs` left out, rows left empty kept): what
// draw_figure_rows draws, without a window.
std::vector<std::vector<size_t>> figure_rows_indices(const std::vector<plot::Figure>& figs,
                                                     const std::vector<FigureRow>& rows);
// Draws `rows` of `figs`. Figures share a row only when each gets at least max(`min_width`, kReadableFigureWidth)
// logical pixels; in a narrower column each gets a row of its own, and a column narrower than `min_width` scrolls
// sideways.
inline constexpr float kReadableFigureWidth = plot::kMinReadableWidth;  // draw_figure never goes narrower
void draw_figure_rows(const std::vector<plot::Figure>& figs, const DrawContext& ctx, const char* panel_id,
                      const std::vector<FigureRow>& rows, float min_width = 0);

// A progress bar with a Cancel button for a job running on a worker; returns true when Cancel was clicked.
bool job_progress(float fraction, const char* label);

}  // namespace tw
