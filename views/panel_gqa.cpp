// GQA / MQA head sharing: query heads in a group read one key/value head, which shrinks the KV cache.
//
// [SECTION] state
// [SECTION] figures (built from core/experiments/gqa_analysis results)
// [SECTION] panel: controls, recompute, draw
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "core/experiments/gqa_analysis.h"
#include "core/experiments/gqa_settings.h"
#include "views/bind_settings.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace gqa_panel {

const PanelInfo kInfo = {"gqa", N_("GQA / MQA head sharing"), N_("Attention"),
                         N_("Grouped-query attention: which KV head each query head reads, KV-cache memory, MHA to GQA "
                            "conversion")};

// [SECTION] state

// The settings and their mapping to GqaParams live in core (the lessons read the same ones).
using GqaState = GqaSettings;

using GqaResult = Checked<GqaParams, GqaAnalysis>;

using plot::fmt;

// A colour per KV group, cycling; the same colour marks its query heads and lines.
uint32_t group_color(int g) {
  static const uint32_t palette[] = {0x1F77B4FF, 0xFF7F0EFF, 0x2CA02CFF, 0xD62728FF, 0x9467BDFF,
                                     0x8C564BFF, 0xE377C2FF, 0x17BECFFF, 0xBCBD22FF, 0x7F7F7FFF};
  return palette[g % 10];
}

// [SECTION] figures

plot::Figure mapping_figure(const GqaParams& p, const GqaAnalysis& r) {
  plot::Figure fig("mapping", tr("Query heads grouped by the KV head they read"));
  fig.note = subst(tr("{0} query heads, {1} KV heads: $n_{rep}$ = {2}, query head $h$ reads KV head $h / {2}$"),
                   {std::to_string(p.n_heads), std::to_string(p.n_kv_heads), std::to_string(r.n_rep)});
  plot::Axes& ax = fig.axes();
  ax.flags |= plot::AxesFlags_NoGrid | plot::AxesFlags_NoLegend;
  ax.y.hide = true;
  ax.setup(tr("head index"), "", "", "");
  ax.set_y_range(-0.45, 1.45);
  const double H = p.n_heads;
  for (int g = 0; g < p.n_kv_heads; ++g) {
    // KV head g sits under the middle of its group; every member draws a line to it.
    const double kx = g * r.n_rep + (r.n_rep - 1) / 2.0;
    std::vector<double> qx, qy;
    for (int i = 0; i < r.n_rep; ++i) {
      const int h = g * r.n_rep + i;
      ax.line("", {static_cast<double>(h), kx}, {1.0, 0.0}).color = group_color(g) & 0xFFFFFF99;
      qx.push_back(h);
      qy.push_back(1.0);
    }
    plot::LineItem& q = ax.scatter("", qx, qy);
    q.color = group_color(g);
    plot::LineItem& k = ax.scatter("", {kx}, {0.0});
    k.color = group_color(g);
    k.width = 3;
  }
  ax.text(tr("query heads"), -0.5, 1.3).align_y = 0.5f;
  ax.text(tr("KV heads"), -0.5, -0.3).align_y = 0.5f;
  ax.set_x_range(-1, std::max(H, 2.0));
  plot::Table& t = fig.table;
  t.header = {"query_head", "kv_head"};
  for (int h = 0; h < p.n_heads; ++h)
    t.add_row({static_cast<double>(h), static_cast<double>(r.kv_head_of[static_cast<size_t>(h)])});
  return fig;
}

plot::Figure kvcache_figure(const GqaParams& p, const GqaAnalysis& r) {
  plot::Figure fig("kvcache", tr("KV-cache size against sequence length"));
  const double gib = 1024.0 * 1024.0 * 1024.0;
  fig.note = subst(tr("at {0} tokens: MHA {1} GiB, this {2} GiB, MQA {3} GiB "
                      "($2\\cdot layers\\cdot kv\\_heads\\cdot head\\_dim\\cdot seq\\cdot batch\\cdot bytes$)"),
                   {std::to_string(p.seq_len), fmt("%.3g", r.bytes_mha_at / gib), fmt("%.3g", r.bytes_gqa_at / gib),
                    fmt("%.3g", r.bytes_mqa_at / gib)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("sequence length"), tr("tokens"), tr("KV cache"), "GiB");
  std::vector<double> xs, mha, gqa, mqa;
  for (size_t i = 0; i < r.seq_len.size(); ++i) {
    xs.push_back(r.seq_len[i]);
    mha.push_back(r.bytes_mha[i] / gib);
    gqa.push_back(r.bytes_gqa[i] / gib);
    mqa.push_back(r.bytes_mqa[i] / gib);
  }
  ax.line(subst(tr("MHA ({0} KV heads)"), {std::to_string(p.n_heads)}), xs, mha);
  ax.line(subst(tr("current ({0})"), {std::to_string(p.n_kv_heads)}), xs, gqa).width = 2.5f;
  ax.line("MQA (1)", xs, mqa);
  plot::Table& t = fig.table;
  t.header = {"seq_len", "bytes_mha", "bytes_gqa", "bytes_mqa"};
  for (size_t i = 0; i < r.seq_len.size(); ++i)
    t.add_row({static_cast<double>(r.seq_len[i]), static_cast<double>(r.bytes_mha[i]),
               static_cast<double>(r.bytes_gqa[i]), static_cast<double>(r.bytes_mqa[i])});
  return fig;
}

plot::Figure params_figure(const GqaParams& p, const GqaAnalysis& r) {
  plot::Figure fig("params", tr("Attention projection weights per layer"));
  const int C = p.hidden > 0 ? p.hidden : p.n_heads * p.head_dim;
  fig.note = subst(tr("model dim $C$ = {0}; total per layer: MHA {1} M, this {2} M, MQA {3} M"),
                   {std::to_string(C), fmt("%.4g", r.proj_mha.total() / 1e6), fmt("%.4g", r.proj_gqa.total() / 1e6),
                    fmt("%.4g", r.proj_mqa.total() / 1e6)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("projection"), "", tr("weights"), tr("millions")).csv_columns("projection", "weights [millions]");
  auto col = [](const ProjectionParams& c) { return std::vector<double>{c.q / 1e6, c.k / 1e6, c.v / 1e6, c.o / 1e6}; };
  ax.bars({"q_proj", "k_proj", "v_proj", "o_proj"}, {"MHA", tr("current"), "MQA"},
          {col(r.proj_mha), col(r.proj_gqa), col(r.proj_mqa)});
  return fig;
}

plot::Figure conversion_figure(const GqaParams& p, const GqaAnalysis& r) {
  plot::Figure fig("conversion", tr("MHA \xE2\x86\x92 GQA by mean-pooling key/value heads: output error"));
  fig.note = subst(tr("toy layer: {0} tokens, head_dim {1}, causal; head similarity $\\rho$ = {2} (uptraining would "
                      "recover much of it)"),
                   {std::to_string(p.toy_tokens), std::to_string(p.toy_head_dim), fmt("%.2f", p.head_similarity)});
  plot::Axes& ax = fig.axes();
  ax.setup("n_kv_heads", "", "$\\|O_{GQA} - O_{MHA}\\| / \\|O_{MHA}\\|$", "");
  ax.flags |= plot::AxesFlags_NoLegend;
  std::vector<double> xs(r.conversion_kv.begin(), r.conversion_kv.end());
  ax.line(tr("relative error"), xs, r.conversion_error).style = plot::LineStyle::LineAndMarkers;
  if (xs.size() > 1) ax.x.scale = plot::Scale::Log10;
  ax.vline(subst(tr("current {0}"), {std::to_string(p.n_kv_heads)}), p.n_kv_heads);
  return fig;
}

plot::Figure group_figure(const GqaParams& p, const GqaAnalysis& r) {
  plot::Figure fig("group-maps",
                   subst(tr("Attention maps of group {0} (same $K$, $V$; own $Q$)"), {std::to_string(p.group)}));
  const int T = p.toy_tokens;
  const int shown = std::min<int>(static_cast<int>(r.group_heads.size()), 8);
  fig.note =
      subst(shown < static_cast<int>(r.group_heads.size())
                ? tr("KV head {0} is read by query heads {1}\xE2\x80\x93{2}; the first 8 are shown")
                : tr("KV head {0} is read by query heads {1}\xE2\x80\x93{2}"),
            {std::to_string(p.group), std::to_string(r.group_heads.front()), std::to_string(r.group_heads.back())});
  fig.grid_cols = std::min(shown, 4);
  fig.shared_colorbar = true;  // probabilities, all on [0, 1]
  plot::HeatmapOptions opt;
  opt.colormap = plot::Colormap::Viridis;
  opt.vmin = 0;
  opt.vmax = 1;
  opt.value_label = tr("probability");
  for (int i = 0; i < shown; ++i) {
    plot::Axes& ax = fig.add_axes(subst(tr("query head {0}"), {std::to_string(r.group_heads[static_cast<size_t>(i)])}));
    ax.setup(tr("key $j$"), "", tr("query $i$"), "").csv_columns("key $j$", "query $i$");  // CSV: as in English
    ax.heatmap("$P$", r.group_probs.data() + static_cast<Eigen::Index>(i) * T * T, T, T, opt);
  }
  return fig;
}

// [SECTION] panel

// No quick hook: the toy layer takes milliseconds even at the largest setting, so update() always waits for it.
class GqaPanel final : public RecomputePanel<GqaState, GqaResult> {
 public:
  GqaPanel()
      : RecomputePanel(
            kInfo,
            {.rows = {{{"mapping"}, 0.55f}, {{"kvcache", "params"}}, {{"conversion", "group-maps"}}}, .min_width = 360},
            // (cast: in a unity build other panels' params_of overloads may be in view)
            checked_hooks<GqaState, static_cast<GqaParams (*)(const GqaSettings&)>(params_of), analyze_gqa>(
                {mapping_figure, kvcache_figure, params_figure, conversion_figure, group_figure})) {}

 protected:
  // A preset model fixes the shape: its sliders are hidden.
  bool control_visible(const Control& c) const override {
    const bool shape = c.key == "n_heads" || c.key == "n_kv_heads" || c.key == "head_dim" || c.key == "layers";
    return s_.model == 0 || !shape;
  }
  void after_control(const Control& c) override {
    if (c.key != "n_kv_heads") return;
    if (ImGui::SmallButton("MHA")) s_.n_kv_heads = s_.n_heads;
    ImGui::SameLine();
    if (ImGui::SmallButton("GQA")) s_.n_kv_heads = gqa_default(s_.n_heads);
    ImGui::SameLine();
    if (ImGui::SmallButton("MQA")) s_.n_kv_heads = 1;
    ImGui::SameLine();
    help_marker(tr("MHA: one KV head per query head. GQA: groups of about 4 query heads. MQA: a single KV head."));
    const int snapped = snap_kv_heads(std::max(1, s_.n_heads), s_.n_kv_heads);
    if (snapped != s_.n_kv_heads)
      warning_text(subst(tr("n_kv_heads must divide n_heads: using {0}"), {std::to_string(snapped)}).c_str());
  }
  void draw_summary(const GqaResult& r) override {
    ImGui::Separator();
    if (s_.model != 0) {
      const GqaModelPreset& m = gqa_model_presets()[static_cast<size_t>(s_.model - 1)];
      ImGui::TextWrapped(tr("%s: %d layers, %d heads, %d KV heads, head_dim %d, hidden %d"), m.name, m.layers,
                         m.n_heads, m.n_kv_heads, m.head_dim, m.hidden);
      ImGui::TextDisabled(tr("source: %s"), m.source);
    }
    math_text(subst(tr("$n_{rep}$ = {0} query heads per KV head"), {std::to_string(r.a.n_rep)}).c_str());
    check_mark(r.a.conversion_error.back() == 0.0, tr("$H_{kv} = H$: pooling changes nothing (GQA = MHA)"));
    if (r.params.group != s_.group)
      warning_text(subst(tr("group clamped to {0}"), {std::to_string(r.params.group)}).c_str());
  }
  void bind(Controls& c) override { bind_settings(c, s_); }

 private:
  // A GQA grouping of about 4 query heads per KV head (the ratio of Llama 3 8B and Mistral 7B).
  static int gqa_default(int h) { return snap_kv_heads(std::max(1, h), std::max(1, h / 4)); }
};

}  // namespace gqa_panel

TW_REGISTER_PANEL(gqa_panel::GqaPanel);

}  // namespace tw
