// Attention masks: which keys each query may read, what that costs, and how far information travels through
// stacked windowed layers.
//
// [SECTION] state: the term list as plain fields (core/experiments/mask_settings.h)
// [SECTION] figures (built from core/experiments/mask_analysis results)
// [SECTION] panel: controls, recompute, draw
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/experiments/mask_analysis.h"
#include "core/experiments/mask_settings.h"
#include "views/bind_settings.h"
#include "views/plot/layout.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace masks_panel {

const PanelInfo kInfo = {
    "masks", N_("Attention masks"), N_("Attention"),
    N_("Causal, prefix-LM, sliding-window, padding, packing, dilated and global masks; receptive fields")};

// [SECTION] state

// The settings and their term list live in core (the lessons read the same ones).
using MasksState = MasksSettings;

struct MasksResult {
  MasksState state;
  std::vector<MaskTerm> terms;
  MaskAnalysis mask;
  ReceptiveField field;
};
using ResultPtr = std::shared_ptr<const MasksResult>;

ResultPtr compute(const MasksState& s, Progress& progress) {
  auto r = std::make_shared<MasksResult>();
  r->state = s;
  r->terms = terms_of(s);
  r->mask = analyze_mask(r->terms, s.T);
  progress.set(0.4f);
  if (r->mask.error.empty()) r->field = receptive_field(r->terms, s.T, s.layers, s.global_every);
  return r;
}

// [SECTION] figures

// A mask term as the reader sees it: its kind in the interface language, then its parameters ("sliding window (W=8)").
std::string term_name(const MaskTerm& t) {
  const std::string_view kind = mask_kind_name(t.kind);
  const std::string size = std::to_string(t.size);
  if (t.kind == MaskKind::Global) return subst(tr("{0} ({1} tokens)"), {tr(mask_kind_name(t.kind)), size});
  if (t.kind == MaskKind::Padding)
    return subst(t.pad_left ? tr("{0} ({1}, left)") : tr("{0} ({1}, right)"), {tr(mask_kind_name(t.kind)), size});
  return tr(mask_kind_name(t.kind)) + mask_term_name(t).substr(kind.size());
}

plot::Figure mask_figure(const MasksResult& r) {
  const MaskAnalysis& a = r.mask;
  plot::Figure fig("mask", tr("Mask: allowed (1) / blocked (0)"));
  for (size_t k = 0; k < r.terms.size(); ++k)
    fig.note += std::string(k ? tr(" AND ") : tr("terms: ")) + term_name(r.terms[k]);

  plot::Axes& ax = fig.axes();
  ax.setup(tr("key position $j$"), "", tr("query position $i$"), "");
  std::vector<double> v(static_cast<size_t>(a.T) * a.T);
  for (int i = 0; i < a.T; ++i)
    for (int j = 0; j < a.T; ++j) v[static_cast<size_t>(i) * a.T + j] = a.allowed(i, j) ? 1.0 : 0.0;
  plot::HeatmapOptions o;
  o.colormap = plot::Colormap::Viridis;
  o.vmin = 0;
  o.vmax = 1;
  o.value_label = tr("mask");
  o.levels = {tr("blocked"), tr("allowed")};  // two colours, no continuous scale: a mask has no in-between
  ax.heatmap(tr("mask"), v.data(), a.T, a.T, o);
  // CSV masks-mask: T rows × T columns of 0/1, row = query; the header names the key positions.
  plot::Table& t = fig.table;
  for (int j = 0; j < a.T; ++j) t.header.push_back(std::to_string(j));
  for (int i = 0; i < a.T; ++i) {
    std::vector<plot::Cell> row;
    for (int j = 0; j < a.T; ++j) row.emplace_back(a.allowed(i, j) ? 1.0 : 0.0);
    t.add_row(std::move(row));
  }
  return fig;
}

plot::Figure visible_figure(const MasksResult& r) {
  const MaskAnalysis& a = r.mask;
  // No share of the scores in the title: a lesson asks how many cells a mask leaves visible, and "56.2% of the
  // T × T scores" would answer it (the table and CSV keep the numbers).
  plot::Figure fig("visible", tr("Visible keys per query (their sum is the number of scores computed)"));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("query position $i$"), "", tr("visible keys"), "");
  std::vector<double> q, n;
  for (int i = 0; i < a.T; ++i) q.push_back(i), n.push_back(a.visible_keys[i]);
  ax.line(tr("visible keys"), q, n).style = plot::LineStyle::LineAndMarkers;
  ax.set_y_range(0, a.T);
  ax.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"query", "visible_keys"};
  for (int i = 0; i < a.T; ++i) t.add_row({double(i), double(a.visible_keys[i])});
  return fig;
}

plot::Figure receptive_figure(const MasksResult& r) {
  const ReceptiveField& f = r.field;
  plot::Figure fig("receptive", tr("Receptive field through stacked layers"));
  fig.note = r.state.global_every > 0
                 ? subst(tr("full attention every {0} layers"), {std::to_string(r.state.global_every)})
                 : std::string(tr("every layer uses the mask above"));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("layer"), "", tr("positions"), "");
  std::vector<double> l, reach, mean, gl, gy;
  for (size_t k = 0; k < f.last_query_reach.size(); ++k) {
    l.push_back(double(k + 1));
    reach.push_back(f.last_query_reach[k]);
    mean.push_back(f.mean_count[k]);
    if (f.layer_global[k]) gl.push_back(double(k + 1)), gy.push_back(f.last_query_reach[k]);
  }
  ax.line(tr("last query reach"), l, reach).style = plot::LineStyle::LineAndMarkers;
  ax.line(tr("mean positions heard"), l, mean).style = plot::LineStyle::LineAndMarkers;
  if (!gl.empty()) ax.scatter(tr("full-attention layer"), gl, gy);
  ax.set_y_range(0, r.state.T);
  ax.flags |= plot::AxesFlags_LegendOutside;
  plot::Table& t = fig.table;
  t.header = {"layer", "full_attention", "last_query_reach", "last_query_positions", "mean_positions"};
  for (size_t k = 0; k < f.last_query_reach.size(); ++k)
    t.add_row({double(k + 1), double(f.layer_global[k]), double(f.last_query_reach[k]), double(f.last_query_count[k]),
               f.mean_count[k]});
  return fig;
}

plot::Figure uniform_figure(const MasksResult& r) {
  const MaskAnalysis& a = r.mask;
  plot::Figure fig("uniform", tr("Attention probabilities when every score is equal"));
  fig.note = tr("1 / (visible keys) on allowed cells; grey = masked; an empty row is all zeros");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("key position $j$"), "", tr("query position $i$"), "")
      .csv_columns("key position $j$", "query position $i$");
  std::vector<double> v(static_cast<size_t>(a.T) * a.T);
  for (int i = 0; i < a.T; ++i)
    for (int j = 0; j < a.T; ++j)
      v[static_cast<size_t>(i) * a.T + j] = a.allowed(i, j) ? double(a.uniform_probs(i, j)) : -INFINITY;
  plot::HeatmapOptions o;
  o.colormap = plot::Colormap::Viridis;
  o.vmin = 0;
  o.value_label = tr("probability");
  ax.heatmap("$P$", v.data(), a.T, a.T, o);
  return fig;
}

// [SECTION] panel

// T ≤ 128 with a few layers takes well under a millisecond: wait so the heatmap follows the slider.
bool quick(const MasksState& s) { return mask_work(s.T, s.layers) < 5e5; }
std::string error_of(const MasksResult& r) { return r.mask.error; }
class MasksPanel final : public RecomputePanel<MasksState, MasksResult> {
 public:
  MasksPanel()
      : RecomputePanel(kInfo,
                       {compute, error_of, {mask_figure, visible_figure, receptive_figure, uniform_figure}, quick}) {
    controls_width_ = 340;
    item_width_ = 140;
    computing_text_ = N_("Computing the first mask...");
  }

 protected:
  // Parameters never exceed T, so dragging T down keeps the term list valid.
  void prepare() override {
    s_.prefix = std::min(s_.prefix, s_.T);
    s_.pad_count = std::min(s_.pad_count, s_.T);
    s_.global_count = std::min(s_.global_count, s_.T);
  }

  void bind(Controls& c) override { bind_settings(c, s_); }

 private:
  void draw_param(const char* key, const DrawContext& ctx) {
    if (const Control* c = controls().find(key)) {
      ImGui::Indent();
      ImGui::SetNextItemWidth(140 * ctx.dpi_scale);
      draw_control(*c);
      ImGui::Unindent();
    }
  }

  void draw_controls(const DrawContext& ctx) override {
    ImGui::SetNextItemWidth(140 * ctx.dpi_scale);
    draw_control(*controls().find("T"));
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Mask terms (combined with AND)"));
    ImGui::SetNextItemWidth(140 * ctx.dpi_scale);
    draw_control(*controls().find("base"));
    if (s_.base == MaskBase::PrefixLM) draw_param("prefix", ctx);
    struct Optional {
      bool* on;
      const char* name;
      std::vector<const char*> params;
    };
    const Optional optional[] = {{&s_.window, N_("sliding window"), {"window_size"}},
                                 {&s_.padding, N_("padding"), {"pad_count", "pad_side"}},
                                 {&s_.documents, N_("document packing"), {"doc_lengths"}},
                                 {&s_.dilated, N_("dilated"), {"stride"}},
                                 {&s_.global, N_("global/sink tokens"), {"global_count"}}};
    for (const Optional& o : optional) {
      if (!*o.on) continue;
      ImGui::PushID(o.name);
      if (ImGui::SmallButton("x")) *o.on = false;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Remove this term"));
      ImGui::SameLine();
      ImGui::TextUnformatted(tr(o.name));
      for (const char* p : o.params) draw_param(p, ctx);
      ImGui::PopID();
    }
    ImGui::SetNextItemWidth(140 * ctx.dpi_scale);
    if (ImGui::BeginCombo("##add", tr("add a term..."))) {
      for (const Optional& o : optional)
        if (!*o.on && ImGui::Selectable((std::string(tr(o.name)) + "###" + o.name).c_str())) *o.on = true;
      ImGui::EndCombo();
    }
    help_marker(tr("Adds one more term to the AND-list; remove a term with its x button."));
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Stacked layers"));
    ImGui::SetNextItemWidth(140 * ctx.dpi_scale);
    draw_control(*controls().find("layers"));
    ImGui::SetNextItemWidth(140 * ctx.dpi_scale);
    draw_control(*controls().find("global_every"));
    math_text(tr("Presets (set $k$; windows are the models' own):"));
    for (const InterleavePreset& p : interleave_presets()) {
      if (ImGui::SmallButton(p.name)) s_.global_every = p.global_period;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr(p.source));
      ImGui::SameLine();
    }
    ImGui::NewLine();
  }

  void draw_figures(const DrawContext& ctx, const std::vector<plot::Figure>& figs) override {
    const MasksResult& r = *result();
    if (!r.mask.empty_rows.empty()) {
      std::string rows;
      for (size_t k = 0; k < r.mask.empty_rows.size() && k < 40; ++k) {
        if (k) rows += ", ";
        rows += std::to_string(r.mask.empty_rows[k]);
      }
      if (r.mask.empty_rows.size() > 40) rows += ", ...";
      warning_text(subst(tr("Query rows with no visible key ({0}): {1}. Their attention output is zeros, not NaN."),
                         {std::to_string(r.mask.empty_rows.size()), rows})
                       .c_str());
    }
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    // Two per row when each stays readable, else one per row (as draw_figure_rows does).
    const bool two = (avail - spacing) / 2 >= kReadableFigureWidth * ctx.dpi_scale;
    const float w = two ? (avail - spacing) / 2 : avail;
    const ImVec2 size(w, w * 0.8f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // No zoom on the mask heatmap, so the cell under the mouse can be found from the default layout below.
    const plot::Figure *mask = find_figure(figs, "mask"), *uniform = find_figure(figs, "uniform"),
                       *visible = find_figure(figs, "visible"), *receptive = find_figure(figs, "receptive");
    if (!mask || !uniform || !visible || !receptive) return;
    const bool hovered = plot::draw_figure(*mask, ctx, "masks", size, plot::FigureDrawFlags_NoInteraction);
    if (hovered) blocked_tooltip(*mask, ctx, origin, size);
    if (two) ImGui::SameLine();
    plot::draw_figure(*uniform, ctx, "masks", size);
    plot::draw_figure(*visible, ctx, "masks", ImVec2(w, w * 0.6f));
    if (two) ImGui::SameLine();
    plot::draw_figure(*receptive, ctx, "masks", ImVec2(w, w * 0.6f));
  }

  // Replaces the plot layer's tooltip on the mask heatmap with one naming the term that blocked the cell.
  void blocked_tooltip(const plot::Figure& fig, const DrawContext& ctx, ImVec2 origin, ImVec2 size) {
    const MasksResult& r = *result();
    const float s = std::max(0.5f, ImGui::GetFontSize() / plot::kBaseFontSize);
    plot::LayoutOptions lo;
    lo.width = size.x / s;
    lo.height = size.y / s;
    lo.theme = ctx.theme;
    const plot::Layout layout = plot::layout_figure(fig, lo);
    if (layout.frames.empty()) return;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const plot::Vec2 mouse{(m.x - origin.x) / s, (m.y - origin.y) / s};
    const plot::AxesFrame& f = layout.frames[0];
    if (!f.plot.contains(mouse)) return;
    const int j = static_cast<int>(std::floor(f.x_from_pixel(mouse.x) + 0.5));
    const int i = static_cast<int>(std::floor(f.y_from_pixel(mouse.y) + 0.5));
    if (i < 0 || j < 0 || i >= r.mask.T || j >= r.mask.T) return;
    const int tag = r.mask.blocked_by[static_cast<size_t>(i) * r.mask.T + j];
    const std::string qi = std::to_string(i), kj = std::to_string(j);
    ImGui::BeginTooltip();  // typeset: SetTooltip would show the $…$ source
    if (tag < 0)
      math_text(subst(tr("query $i$ = {0}, key $j$ = {1}\nallowed"), {qi, kj}).c_str(), -1.0f);
    else
      math_text(subst(tr("query $i$ = {0}, key $j$ = {1}\nblocked by {2}"),
                      {qi, kj, term_name(r.terms[static_cast<size_t>(tag)])})
                    .c_str(),
                -1.0f);
    ImGui::EndTooltip();
  }
};

}  // namespace masks_panel

TW_REGISTER_PANEL(masks_panel::MasksPanel);

}  // namespace tw
