// The Training panel's figures, built from a TrainSnapshot: loss, accuracy, gradient norms, learning rate,
// attention maps on the probe example and per-head scores. Shared by the panel and `transformer-workbench train`
// (declared in views/panel_train.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "core/base/i18n.h"
#include "core/experiments/information.h"
#include "views/panel_train.h"

namespace tw {

namespace {

// [SECTION] figures

// Pinned runs are drawn faded in these colours (the current run uses the palette's first colours).
constexpr uint32_t kPinnedColors[kMaxPinnedRuns] = {0x7F7F7F70, 0x9467BD70, 0x8C564B70, 0xBCBD2270};
constexpr uint32_t kTrainColor = 0x1F77B4FF, kValColor = 0xD95F02FF;

// At most ~1500 points per curve: means over equal buckets of steps (NaNs skipped), so long runs stay light.
void curve(const std::vector<MetricsRow>& h, double MetricsRow::*field, double scale, std::vector<double>* xs,
           std::vector<double>* ys) {
  std::vector<std::pair<double, double>> pts;
  for (const MetricsRow& r : h)
    if (std::isfinite(r.*field)) pts.push_back({double(r.step), r.*field * scale});
  const size_t bucket = std::max<size_t>(1, pts.size() / 1500 + (pts.size() % 1500 != 0));
  for (size_t i = 0; i < pts.size(); i += bucket) {
    double sx = 0, sy = 0;
    const size_t end = std::min(pts.size(), i + bucket);
    for (size_t k = i; k < end; ++k) sx += pts[k].first, sy += pts[k].second;
    xs->push_back(sx / double(end - i));
    ys->push_back(sy / double(end - i));
  }
}

// One metric of a run's history as a line over steps.
plot::LineItem& metric_line(plot::Axes& ax, std::string label, const std::vector<MetricsRow>& h,
                            double MetricsRow::*field, double scale = 1.0) {
  std::vector<double> xs, ys;
  curve(h, field, scale, &xs, &ys);
  return ax.line(std::move(label), std::move(xs), std::move(ys));
}

// The metric of every pinned run, faded; drawn first, so the current run's curves lie on top.
void add_pinned(plot::Axes& ax, const TrainSnapshot& s, double MetricsRow::*field, double scale = 1.0) {
  for (size_t p = 0; p < s.pinned.size(); ++p)
    metric_line(ax, subst(tr("pinned: {0}"), {s.pinned[p].label}), s.pinned[p].history, field, scale).color =
        kPinnedColors[p];
}

// A held-out measure of the current run: it is evaluated every few steps, so markers show where.
void add_held_out(plot::Axes& ax, std::string label, const TrainSnapshot& s, double MetricsRow::*field,
                  double scale = 1.0) {
  plot::LineItem& l = metric_line(ax, std::move(label), s.history, field, scale);
  l.color = kValColor;
  l.style = plot::LineStyle::LineAndMarkers;
}

// The axes of a curve over training steps: every figure here but the attention maps, head scores and expert load.
plot::Axes& step_axes(plot::Figure& fig, const char* y_label, const char* unit) {
  plot::Axes& ax = fig.axes();
  ax.setup(tr("step"), "", y_label, unit);
  return ax;
}

std::string run_note(const TrainSnapshot& s) {
  const TrainSettings& t = s.settings;
  std::string tricks;
  if (t.model.family != Family::Llama) tricks += std::string(", ") + hf_architecture(t.model.family);
  if (t.model.qk_norm) tricks += tr(", QK-norm");
  if (t.model.attn_softcap > 0) tricks += subst(tr(", soft-cap {0}"), {plot::fmt("%.3g", t.model.attn_softcap)});
  if (t.z_loss > 0) tricks += subst(tr(", z-loss {0}"), {plot::fmt("%.3g", t.z_loss)});
  if (t.dropout > 0) tricks += subst(tr(", dropout {0}"), {plot::fmt("%.3g", t.dropout)});
  return subst(
      tr("{0} task; {1} layers, dim {2}, {3} heads, {4}-{5}, scale {6}{7}; {8} lr {9}, batch {10}, seed {11}"),
      {tr(to_string(t.task.kind)), std::to_string(t.model.n_layers), std::to_string(t.model.dim),
       std::to_string(t.model.n_heads), tr(to_string(t.model.placement)), tr(to_string(t.model.norm)),
       scale_mode_formula(t.model.attn_scale), tricks, t.optimizer.kind == OptimizerKind::AdamW ? "AdamW" : "SGD",
       plot::fmt("%.3g", t.optimizer.lr), std::to_string(t.batch), std::to_string(t.seed)});
}

plot::Figure loss_figure(const TrainSnapshot& s) {
  plot::Figure fig("loss", tr("Loss: training batch and held-out answers"));
  fig.note = run_note(s);
  plot::Axes& ax = step_axes(fig, tr("cross-entropy loss"), tr("nats"));
  ax.y.scale = plot::Scale::Log10;
  add_pinned(ax, s, &MetricsRow::val_loss);
  metric_line(ax, tr("train"), s.history, &MetricsRow::train_loss).color = kTrainColor;
  add_held_out(ax, tr("held-out"), s, &MetricsRow::val_loss);
  if (s.ready) ax.hline(tr("uniform guess $\\ln V$"), uniform_loss_nats(s.task.vocab()));
  if (const std::shared_ptr<const LanguageData>& lm = s.task.language()) {
    // The baselines' bits per held-out character as nats per held-out token, the loss's unit.
    const double per_token = std::log(2.0) * double(lm->heldout_chars) / double(lm->heldout_ids.size() - 1);
    ax.hline(tr("bigram baseline"), lm->bigram_bits * per_token);
    ax.hline(tr("unigram baseline"), lm->unigram_bits * per_token);
  }
  return fig;
}

plot::Figure accuracy_figure(const TrainSnapshot& s) {
  plot::Figure fig("accuracy", tr("Held-out answer accuracy"));
  fig.note = tr("arg-max prediction of every answer token of the fixed held-out set; faded: pinned runs");
  plot::Axes& ax = step_axes(fig, tr("accuracy"), "%");
  ax.set_y_range(0, 101);
  add_pinned(ax, s, &MetricsRow::accuracy, 100.0);
  add_held_out(ax, tr("current run"), s, &MetricsRow::accuracy, 100.0);
  ax.hline("99%", 99.0);
  return fig;
}

plot::Figure grad_figure(const TrainSnapshot& s) {
  plot::Figure fig("grad_norm", tr("Gradient norm per layer (before clipping)"));
  fig.note = subst(tr("$\\|g\\|_2$ of each block's weights and of all weights; clipping at {0} (0 = off)"),
                   {plot::fmt("%.3g", s.settings.optimizer.clip_norm)});
  plot::Axes& ax = step_axes(fig, tr("gradient norm"), "");
  ax.y.scale = plot::Scale::Log10;
  metric_line(ax, tr("all weights"), s.history, &MetricsRow::grad_norm).color = 0x333333FF;
  const int L = s.ready ? s.settings.model.n_layers : 0;
  for (int l = 0; l < L; ++l) {
    std::vector<MetricsRow> rows;
    rows.reserve(s.history.size());
    for (const MetricsRow& r : s.history) {
      MetricsRow x;
      x.step = r.step;
      x.grad_norm = size_t(l) < r.layer_grad_norm.size() ? r.layer_grad_norm[size_t(l)] : kNoValue;
      rows.push_back(x);
    }
    metric_line(ax, subst(tr("layer {0}"), {std::to_string(l)}), rows, &MetricsRow::grad_norm);
  }
  if (s.settings.optimizer.clip_norm > 0) ax.hline(tr("clip"), s.settings.optimizer.clip_norm);
  return fig;
}

plot::Figure lr_figure(const TrainSnapshot& s, int total_steps) {
  plot::Figure fig("lr", tr("Learning-rate schedule"));
  const OptimizerConfig& o = s.settings.optimizer;
  fig.note = subst(tr("linear warmup over {0} steps, then cosine decay to ${1} \\cdot \\mathrm{lr}$ at step {2}"),
                   {std::to_string(o.warmup_steps), plot::fmt("%.3g", o.min_lr_ratio), std::to_string(o.total_steps)});
  plot::Axes& ax = step_axes(fig, tr("learning rate"), "");
  ax.flags |= plot::AxesFlags_NoLegend;
  if (!s.ready) return fig;
  const int n = std::max({total_steps, o.total_steps, s.step, 1});
  std::vector<double> xs, ys;
  const int stride = std::max(1, n / 1000);
  for (int k = 0; k < n; k += stride) {
    xs.push_back(k + 1);
    ys.push_back(scheduled_lr(o, k));
  }
  ax.line("lr", xs, ys);
  if (s.step > 0) ax.vline(tr("now"), s.step);
  return fig;
}

// What z-loss acts on: the held-out mean log Z; pinned runs overlaid, so a comparison shows where each run's
// softmax normaliser went.
plot::Figure log_z_figure(const TrainSnapshot& s) {
  plot::Figure fig("log_z", tr("Held-out $\\log Z$ (the softmax normaliser)"));
  fig.note = subst(tr("mean $\\log \\sum \\exp(\\mathrm{logits})$ over the held-out answer tokens; z-loss (coef {0}, "
                      "0 = off) adds $\\mathrm{coef} \\cdot \\log^2 Z$, pulling it to 0"),
                   {plot::fmt("%.3g", s.settings.z_loss)});
  plot::Axes& ax = step_axes(fig, "$\\log Z$", tr("nats"));
  add_pinned(ax, s, &MetricsRow::log_z);
  add_held_out(ax, tr("current run"), s, &MetricsRow::log_z);
  ax.hline("$\\log Z = 0$", 0.0);
  return fig;
}

plot::Figure attention_figure(const TrainSnapshot& s) {
  plot::Figure fig("attention", tr("Attention of every head on the probe example"));
  fig.note = subst(tr("rows: query position (the token that looks), columns: key position it reads; step {0}"),
                   {std::to_string(s.step)});
  fig.shared_colorbar = true;
  if (!s.ready || s.attention.empty()) return fig;
  const int H = s.settings.model.n_heads, T = static_cast<int>(s.probe.tokens.size());
  fig.grid_cols = H;
  std::vector<std::string> labels;
  for (int t = 0; t < T; ++t) labels.push_back(s.task.token_string(s.probe.tokens[size_t(t)]));
  for (size_t l = 0; l < s.attention.size(); ++l) {
    const Mat& p = s.attention[l];
    for (int h = 0; h < H; ++h) {
      plot::Axes& ax = fig.add_axes(subst(tr("layer {0} head {1}"), {std::to_string(l), std::to_string(h)}));
      ax.setup(tr("key"), "", tr("query"), "");
      if (p.rows() != H * T || p.cols() != T) continue;
      ax.heatmap(tr("attention"), p.data() + ptrdiff_t(h) * T * T, T, T,
                 {.colormap = plot::Colormap::Viridis,
                  .vmin = 0,
                  .vmax = 1,
                  .value_label = tr("probability"),
                  .row_labels = labels,
                  .col_labels = labels});
    }
  }
  return fig;
}

// How the head scores are measured (Trainer::head_scores), said under their figure.
constexpr const char* kHeadScoresNote = N_(
    "on a repeated random sequence $r_1 \\ldots r_n\\, r_1 \\ldots r_n$: previous-token = mean attention to $t - 1$; "
    "induction = mean attention of the second copy to the token after the first occurrence ($t - n + 1$)");

plot::Figure scores_figure(const TrainSnapshot& s) {
  plot::Figure fig("head_scores", tr("What each head does"));
  fig.note = tr(kHeadScoresNote);
  plot::Axes& ax = fig.axes();
  ax.setup(tr("head"), "", tr("mean attention"), "");
  ax.set_y_range(0, 1.05);
  const HeadScores& h = s.scores;
  if (h.previous_token.empty()) return fig;
  std::vector<std::string> groups;
  for (int l = 0; l < h.layers; ++l)
    for (int k = 0; k < h.heads; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "L%dH%d", l, k);
      groups.emplace_back(name);
    }
  ax.bars(groups, {tr("previous-token"), tr("induction")}, {h.previous_token, h.induction});
  return fig;
}

// MoE: tokens each expert processed on the last training batch, per layer, and the assignments dropped.
plot::Figure expert_load_figure(const TrainSnapshot& s) {
  plot::Figure fig("expert_load", tr("Load per expert on the last training batch"));
  const ModelConfig& m = s.settings.model;
  const MoeStats& moe = s.moe;
  fig.note =
      subst(tr("{0} tokens × top-{1} of {2} experts per layer; even share $N k / E$; 'dropped': assignments "
               "past a full expert (they skip the MLP on the residual stream); step {3}"),
            {std::to_string(moe.tokens), std::to_string(m.top_k), std::to_string(m.experts), std::to_string(s.step)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("expert"), "", tr("assignments"), tr("tokens"));
  ax.flags |= plot::AxesFlags_LegendOutside;  // inside, it would cover the last expert's bars
  if (moe.layers.empty()) return fig;
  std::vector<std::string> groups, series;
  for (int e = 0; e < m.experts; ++e) groups.push_back(plot::fmt("E%.0f", e));
  groups.push_back(tr("dropped"));
  std::vector<std::vector<double>> values;
  for (size_t l = 0; l < moe.layers.size(); ++l) {
    series.push_back(subst(tr("layer {0}"), {std::to_string(l)}));
    std::vector<double> v(moe.layers[l].load.begin(), moe.layers[l].load.end());
    v.push_back(moe.layers[l].dropped);
    values.push_back(std::move(v));
  }
  ax.bars(groups, series, values);
  double top = moe.layers[0].capacity;  // room above the tallest bar and the capacity line for their labels
  for (const auto& v : values) top = std::max(top, *std::max_element(v.begin(), v.end()));
  ax.set_y_range(0, 1.15 * top);
  ax.hline(tr("even share"), double(moe.tokens) * m.top_k / m.experts);
  if (moe.layers[0].capacity > 0) ax.hline(tr("capacity"), moe.layers[0].capacity);
  return fig;
}

plot::Figure balance_figure(const TrainSnapshot& s) {
  plot::Figure fig("balance_loss", tr("Load-balancing loss per step"));
  const ModelConfig& m = s.settings.model;
  fig.note =
      subst(tr("$E \\sum_e f_e P_e$ (mean over layers; $f_e$: share of assignments, $P_e$: mean router probability); "
               "$k = {0}$ when balanced; added to the loss × {1}"),
            {std::to_string(m.top_k), plot::fmt("%.3g", m.aux_loss_coef)});
  plot::Axes& ax = step_axes(fig, tr("balance loss"), "");
  add_pinned(ax, s, &MetricsRow::balance_loss);
  metric_line(ax, tr("current run"), s.history, &MetricsRow::balance_loss).color = kTrainColor;
  ax.hline(tr("$k$ (uniform router)"), m.top_k);
  return fig;
}

}  // namespace

std::vector<plot::Figure> train_figures(const TrainSnapshot& s, int total_steps) {
  std::vector<plot::Figure> figs = {loss_figure(s),      accuracy_figure(s), grad_figure(s), lr_figure(s, total_steps),
                                    attention_figure(s), scores_figure(s),   log_z_figure(s)};
  if (s.ready && s.settings.model.moe()) {  // the panel places figures by id (panel_train.cpp kExpertFigures)
    figs.push_back(expert_load_figure(s));
    figs.push_back(balance_figure(s));
  }
  return figs;
}

}  // namespace tw
