// Decoding and information: entropy, cross-entropy and KL of two distributions the user shapes; temperature,
// top-k, top-p and min-p on one distribution in Hugging Face's order; perplexity as exp(cross-entropy), read from
// the Training panel's latest run when one exists (views/handoffs.h), else from a typed loss.
//
// [SECTION] state
// [SECTION] result and compute (core/experiments/information, core/ops/sampling)
// [SECTION] figures
// [SECTION] panel: controls, summary, registration
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/experiments/decoding_settings.h"
#include "core/experiments/information.h"
#include "core/ops/sampling.h"
#include "core/ops/softmax.h"
#include "views/bind_settings.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace decoding_panel {

const PanelInfo kInfo = {"decoding", N_("Decoding and information"), N_("Inference"),
                         N_("Entropy, cross-entropy, KL; temperature, top-k, top-p, min-p; perplexity")};

// [SECTION] state

// What the perplexity figure takes from the Training panel's latest run (views/handoffs.h).
struct TrainingLink {
  bool run = false;                          // the Training panel has a run
  RunLoss loss;                              // its latest loss (loss.found false before the first step)
  int steps = 0;                             // steps taken
  int vocab = 0;                             // V of the model's softmax
  std::string task;                          // "sort", "copy", ...
  std::vector<double> eval_step, eval_loss;  // every held-out evaluation so far
  bool operator==(const TrainingLink&) const = default;
};

TrainingLink link_of(const TrainSnapshot* run) {
  TrainingLink l;
  if (!run || !run->ready) return l;
  l.run = true;
  l.loss = latest_run_loss(run->history);
  l.steps = run->step;
  l.vocab = run->settings.model.vocab;
  l.task = to_string(run->settings.task.kind);
  for (const MetricsRow& m : run->history)
    if (std::isfinite(m.val_loss)) {
      l.eval_step.push_back(m.step);
      l.eval_loss.push_back(m.val_loss);
    }
  return l;
}

// The settings and their parsing live in core (the lessons read the same ones); the link to a run is the panel's.
struct DecodingState : DecodingSettings {
  bool use_training = true;  // read the loss from the Training panel's run when one exists
  TrainingLink link;         // that run, refreshed before each update (not a control)
};

// Core's settings, then the panel's own.
template <class F>
void for_each_setting(DecodingState& s, F&& f) {
  for_each_setting(static_cast<DecodingSettings&>(s), f);
  f("use_training", s.use_training,
    BoolSpec{N_("use the Training panel's loss"),
             N_("Read the loss from the Training panel's current or last run (its latest held-out loss, and its "
                "vocabulary for the uniform line); it follows the run as it trains. Off, or without a run: the "
                "typed loss.")});
}

// [SECTION] result and compute

struct DecodingResult {
  DecodingState state;
  std::string error;
  std::vector<double> logits_p, logits_q, p, q;
  InformationMeasures info;
  std::vector<double> sweep_t, sweep_ce, sweep_kl_pq, sweep_kl_qp;  // q's temperature swept (finite points only)
  SamplingTrace trace;
  std::vector<int> order;              // token ids by descending scaled logit (ties by id): the order filters cut in
  bool linked = false;                 // the loss is the Training panel's (else the typed one)
  double loss = 0;                     // nats: the loss the perplexity is of
  int vocab = 0;                       // V of the uniform baseline: the run's vocabulary, else p's length
  double perplexity = 0;               // exp(loss)
  std::vector<double> run_perplexity;  // (evaluations) exp(held-out loss) of the linked run
};
using ResultPtr = std::shared_ptr<const DecodingResult>;

ResultPtr compute(const DecodingState& s, Progress&) {
  auto r = std::make_shared<DecodingResult>();
  r->state = s;
  DecodingInputs in = params_of(s);
  r->error = std::move(in.error);
  if (!r->error.empty()) return r;
  r->logits_p = std::move(in.logits_p);
  r->logits_q = std::move(in.logits_q);

  r->p = softmax(r->logits_p, s.temp_p);
  r->q = softmax(r->logits_q, s.temp_q);
  r->info = information_measures(r->p, r->q);
  for (int i = 0; i <= 40; ++i) {  // q's temperature from 0.1 to 10 on a log grid
    const double t = std::pow(10.0, -1.0 + i / 20.0);
    const InformationMeasures m = information_measures(r->p, softmax(r->logits_q, t));
    if (!std::isfinite(m.cross_entropy) || !std::isfinite(m.kl_qp)) continue;  // q underflowed to 0 somewhere
    r->sweep_t.push_back(t);
    r->sweep_ce.push_back(m.cross_entropy);
    r->sweep_kl_pq.push_back(m.kl_pq);
    r->sweep_kl_qp.push_back(m.kl_qp);
  }
  std::vector<float> logits(r->logits_p.begin(), r->logits_p.end());
  sampling_filter(r->trace, logits, s.sampling);
  r->order.resize(logits.size());
  std::iota(r->order.begin(), r->order.end(), 0);
  std::stable_sort(r->order.begin(), r->order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
  r->linked = s.use_training && s.link.loss.found;
  r->loss = r->linked ? s.link.loss.loss : double(s.loss);
  r->vocab = r->linked ? s.link.vocab : static_cast<int>(r->p.size());
  r->perplexity = perplexity_from_loss(r->loss);
  if (r->linked)
    for (double l : s.link.eval_loss) r->run_perplexity.push_back(perplexity_from_loss(l));
  return r;
}

std::string error_of(const DecodingResult& r) { return r.error; }

using plot::fmt;

std::string bits(double v) {
  return std::isfinite(v) ? subst(tr("{0} bits"), {fmt("%.4g", v)}) : std::string("\xE2\x88\x9E");
}

// [SECTION] figures

plot::Figure distributions_figure(const DecodingResult& r) {
  const InformationMeasures& m = r.info;
  plot::Figure fig("distributions", tr("Two distributions: $p$ (data) and $q$ (model)"));
  fig.note = "$H(p)$ " + bits(m.entropy_p) + ", $H(q)$ " + bits(m.entropy_q) + ", $H(p,q)$ " + bits(m.cross_entropy) +
             ", $\\mathrm{KL}(p\\|q)$ " + bits(m.kl_pq) + ", $\\mathrm{KL}(q\\|p)$ " + bits(m.kl_qp);
  plot::Axes& ax = fig.axes();
  ax.setup(tr("token"), "", tr("probability"), "");
  std::vector<std::string> groups;
  for (size_t i = 0; i < r.p.size(); ++i) groups.push_back(std::to_string(i));
  ax.bars(groups, {"$p$", "$q$"}, {r.p, r.q});
  ax.set_y_range(0, 1);
  plot::Table& t = fig.table;
  t.header = {"token", "logit_p", "p", "logit_q", "q"};
  for (size_t i = 0; i < r.p.size(); ++i) t.add_row({double(i), r.logits_p[i], r.p[i], r.logits_q[i], r.q[i]});
  return fig;
}

plot::Figure kl_figure(const DecodingResult& r) {
  plot::Figure fig("kl", tr("Cross-entropy and KL as $q$'s temperature changes"));
  fig.note = tr("$H(p,q) = H(p) + \\mathrm{KL}(p\\|q) \\ge H(p)$; $\\mathrm{KL} \\ge 0$, and 0 only where $q = p$");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("temperature of $q$"), "", tr("bits"), "");
  ax.x.scale = plot::Scale::Log10;
  ax.line("$H(p, q)$", r.sweep_t, r.sweep_ce);
  ax.line("$\\mathrm{KL}(p\\|q)$", r.sweep_t, r.sweep_kl_pq);
  ax.line("$\\mathrm{KL}(q\\|p)$", r.sweep_t, r.sweep_kl_qp).dashed = true;
  ax.hline("$H(p)$", r.info.entropy_p);
  ax.vline(tr("current"), r.state.temp_q);
  plot::Table& t = fig.table;
  t.header = {"temperature_q", "cross_entropy_bits", "kl_pq_bits", "kl_qp_bits"};
  for (size_t i = 0; i < r.sweep_t.size(); ++i)
    t.add_row({r.sweep_t[i], r.sweep_ce[i], r.sweep_kl_pq[i], r.sweep_kl_qp[i]});
  return fig;
}

plot::Figure filters_figure(const DecodingResult& r) {
  const SamplingTrace& st = r.trace;
  plot::Figure fig("filters", tr("Sampling filters on $p$, in order: temperature \xE2\x86\x92 top-k \xE2\x86\x92 top-p "
                                 "\xE2\x86\x92 min-p \xE2\x86\x92 renormalise"));
  fig.note = subst(tr("{0} tokens \xE2\x86\x92 top-k keeps {1} \xE2\x86\x92 top-p keeps {2} \xE2\x86\x92 min-p keeps "
                      "{3} (tokens sorted by logit; removed tokens show 0)"),
                   {std::to_string(st.probs.size()), std::to_string(st.n_top_k), std::to_string(st.n_top_p),
                    std::to_string(st.n_final)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("token (by rank)"), "", tr("probability"), "");
  std::vector<std::string> groups;
  std::vector<double> before, k, p, mp, fin;
  plot::Table& t = fig.table;
  t.header = {"rank",       "token",      "scaled_logit", "prob_after_temperature",
              "kept_top_k", "kept_top_p", "kept_min_p",   "final_prob"};
  for (size_t rank = 0; rank < r.order.size(); ++rank) {
    const int i = r.order[rank];
    groups.push_back("#" + std::to_string(i));
    before.push_back(st.probs_before[i]);
    k.push_back(st.kept_top_k[i] ? st.probs_before[i] : 0.0);
    p.push_back(st.kept_top_p[i] ? st.probs_before[i] : 0.0);
    mp.push_back(st.kept_min_p[i] ? st.probs_before[i] : 0.0);
    fin.push_back(st.probs[i]);
    t.add_row({double(rank), double(i), double(st.scaled_logits[i]), double(st.probs_before[i]),
               double(st.kept_top_k[i]), double(st.kept_top_p[i]), double(st.kept_min_p[i]), double(st.probs[i])});
  }
  ax.bars(groups,
          {tr("after temperature"), tr("top-k survivors"), tr("top-p survivors"), tr("min-p survivors"),
           tr("renormalised")},
          {before, k, p, mp, fin});
  ax.set_y_range(0, 1);
  return fig;
}

// Where the loss came from, in words: the Training panel's run, or the typed loss.
std::string loss_source(const DecodingResult& r) {
  const TrainingLink& l = r.state.link;
  if (r.linked)
    return subst(l.loss.held_out ? tr("the Training panel's held-out loss at step {0} ({1} task)")
                                 : tr("the Training panel's training-batch loss at step {0} ({1} task)"),
                 {std::to_string(l.loss.step), tr(l.task.c_str())});
  if (!r.state.use_training) return tr("the typed loss");
  if (l.run) return tr("the typed loss (the Training panel's run has no loss yet: press Play there)");
  return tr("the typed loss (no training run yet: train in the Training panel to use its loss)");
}

plot::Figure perplexity_figure(const DecodingResult& r) {
  const double V = static_cast<double>(r.vocab);
  const std::string v = std::to_string(r.vocab);
  plot::Figure fig("perplexity", tr("Perplexity = $\\exp$(cross-entropy in nats)"));
  fig.note = subst(
      tr("{0}: {1} nats \xE2\x86\x92 perplexity {2}, as unsure as a uniform choice among that many tokens "
         "(uniform over {3} gives loss $\\ln {3}$ = {4})"),
      {loss_source(r), fmt("%.4g", r.loss), fmt("%.4g", r.perplexity), v, fmt("%.3g", uniform_loss_nats(r.vocab))});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("mean loss"), tr("nats"), tr("perplexity"), "");
  ax.y.scale = plot::Scale::Log10;
  std::vector<double> xs, ys;
  const double hi = std::max(uniform_loss_nats(r.vocab) + 1.0, r.loss + 0.5);
  for (int i = 0; i <= 100; ++i) {
    xs.push_back(hi * i / 100.0);
    ys.push_back(perplexity_from_loss(xs.back()));
  }
  ax.line("$\\exp(\\mathrm{loss})$", xs, ys);
  ax.scatter(r.linked ? tr("the run's loss") : tr("this loss"), {r.loss}, {r.perplexity});
  ax.hline(subst(tr("uniform over {0}"), {v}), V);
  plot::Table& t = fig.table;
  t.header = {"loss_nats", "perplexity"};
  for (size_t i = 0; i < xs.size(); ++i) t.add_row({xs[i], ys[i]});
  if (r.linked && !r.run_perplexity.empty()) {
    fig.grid_cols = 2;
    fig.grid.front().title = "$\\exp(\\mathrm{loss})$";
    plot::Axes& run = fig.add_axes(tr("the Training panel's run"));
    run.setup(tr("step"), "", tr("held-out perplexity"), "");
    run.y.scale = plot::Scale::Log10;
    run.flags |= plot::AxesFlags_NoLegend;  // one curve, named by the axes title
    plot::LineItem& l = run.line(tr("$\\exp$(held-out loss)"), r.state.link.eval_step, r.run_perplexity);
    l.style = plot::LineStyle::LineAndMarkers;
    run.hline(subst(tr("uniform over {0}"), {v}), V);
  }
  return fig;
}

// [SECTION] panel

class DecodingPanel final : public RecomputePanel<DecodingState, DecodingResult> {
 public:
  DecodingPanel()
      : RecomputePanel(kInfo,
                       {.rows = {{{"distributions", "kl"}, 0.8f}, {{"filters"}, 0.9f}, {{"perplexity"}, 0.9f, true}}},
                       {compute, error_of, {distributions_figure, kl_figure, filters_figure, perplexity_figure}}) {}

 protected:
  void bind(Controls& c) override { bind_settings(c, s_); }

  // The Training panel's latest run, read before change detection: a new snapshot with other numbers recomputes.
  void prepare() override {
    const std::shared_ptr<const TrainSnapshot> run = handoffs().latest_training_run();
    if (run == seen_run_) return;
    seen_run_ = run;
    TrainingLink l = link_of(run.get());
    if (l == s_.link) return;
    s_.link = std::move(l);
    request_recompute();
  }

  // The typed loss only matters while no run's loss is used.
  bool control_visible(const Control& c) const override {
    return c.key != "loss" || !(s_.use_training && s_.link.loss.found);
  }

  void draw_summary(const DecodingResult& r) override {
    const InformationMeasures& m = r.info;
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Live checks"));
    check_mark(m.kl_pq >= 0 && m.kl_qp >= 0, tr("$\\mathrm{KL}(p \\| q) \\ge 0$ and $\\mathrm{KL}(q \\| p) \\ge 0$"));
    check_mark(!std::isfinite(m.cross_entropy) || std::abs(m.cross_entropy - m.entropy_p - m.kl_pq) < 1e-9,
               "$H(p, q) = H(p) + \\mathrm{KL}(p \\| q)$");
    math_text(subst(tr("perplexity of $q$ on $p$: {0}"), {fmt("%.4g", m.perplexity)}).c_str());
    math_text(subst(tr("survivors: {0} $\\to$ {1} $\\to$ {2} $\\to$ {3}"),
                    {std::to_string(r.trace.probs.size()), std::to_string(r.trace.n_top_k),
                     std::to_string(r.trace.n_top_p), std::to_string(r.trace.n_final)})
                  .c_str());
    // The same four settings drive the forward stepper's next token and its Generate button.
    // A short label (the controls column is narrow at 1280 x 720); the whole sentence as its tooltip.
    if (ImGui::SmallButton(tr("Sample with these in the stepper"))) {
      const SamplingConfig& sc = s_.sampling;
      handoffs().post_values(
          "forward", {{"temperature", sc.temperature}, {"top_k", sc.top_k}, {"top_p", sc.top_p}, {"min_p", sc.min_p}});
      handoffs().request_focus("forward");
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("Use these sampling settings in the forward stepper"));
    ImGui::Separator();
    ImGui::TextWrapped(tr("Perplexity from %s:"), loss_source(r).c_str());
    math_text(subst(tr("$\\exp({0}\\,\\text{nats}) = {1}$"), {fmt("%.4g", r.loss), fmt("%.4g", r.perplexity)}).c_str());
  }

  // The perplexity figure takes the full width when it has the run's curve beside the exp(loss) curve.
  void draw_figures(const DrawContext& ctx, const std::vector<plot::Figure>& figs) override {
    const plot::Figure* perplexity = find_figure(figs, "perplexity");
    layout_.rows.back().half = !(perplexity && perplexity->grid.size() > 1);
    RecomputePanel::draw_figures(ctx, figs);
  }

 private:
  std::shared_ptr<const TrainSnapshot> seen_run_;  // the run prepare() last read
};

}  // namespace decoding_panel

TW_REGISTER_PANEL(decoding_panel::DecodingPanel);

}  // namespace tw
