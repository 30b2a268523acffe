// Stability tricks: logit soft-capping, QK-norm and z-loss, each as a curve and as a training comparison at a
// high learning rate with and without the trick. The live comparison runs in the Training panel (handed over
// through views/handoffs.h: baseline, pin, variant, with its progress, Pause and Cancel); a preview of the
// same pair can also train on this panel's worker.
//
// [SECTION] state
// [SECTION] result and compute (core/experiments/stability_tricks)
// [SECTION] the comparison handed to the Training panel
// [SECTION] figures
// [SECTION] panel: controls, summary, registration
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/experiments/stability_tricks.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace stability_panel {

const PanelInfo kInfo = {"stability", N_("Stability tricks"), N_("Training"),
                         N_("Logit soft-capping, QK-norm and z-loss: curves and training with vs without")};

// [SECTION] state

struct StabilityState {
  float cap = 5.0f;                               // c of the soft-cap curve and of the soft-capped training run
  float x_range = 20.0f;                          // the soft-cap curve covers [−range, range]
  int head_dim = 64;                              // D of the QK-norm experiment
  int n_keys = 16;                                // keys one query attends over
  float z_loss = 1e-4f;                           // z-loss coefficient (curve and run)
  StabilityTrick trick = StabilityTrick::QkNorm;  // the trick the training comparison turns on
  bool in_training = false;  // action: hand the comparison to the Training panel (then reads back false)
  bool train = false;        // preview the comparison on this panel (seconds); off: the curves only, instantly
  float lr = 0.03f;          // deliberately high
  int steps = 200;
  int warmup = 0;
  int layers = 2;
  int dim = 32;
  int seed = 1;
};

// [SECTION] result and compute

struct StabilityResult {
  StabilityState state;
  std::string error;
  SoftcapCurve softcap;
  std::vector<QkNormPoint> qk;
  ZLossCurve zloss;
  bool trained = false;
  TrainingComparison runs;
};
using ResultPtr = std::shared_ptr<const StabilityResult>;

ComparisonParams comparison_of(const StabilityState& s) {
  ComparisonParams p;
  p.trick = s.trick;
  p.lr = s.lr;
  p.steps = s.steps;
  p.warmup = std::min(s.warmup, s.steps);
  p.layers = s.layers;
  p.dim = s.dim;
  p.heads = 4;
  p.softcap = s.cap;
  p.z_loss = s.z_loss;
  p.seed = static_cast<uint64_t>(s.seed);
  return p;
}

ResultPtr compute(const StabilityState& s, Progress& progress) {
  auto r = std::make_shared<StabilityResult>();
  r->state = s;
  const ComparisonParams p = comparison_of(s);
  if (std::string e = validate(p); !e.empty()) {
    r->error = e;
    return r;
  }
  r->softcap = softcap_curve(s.cap, -s.x_range, s.x_range, 401);
  std::vector<double> scales;
  for (int i = 0; i <= 24; ++i) scales.push_back(std::pow(10.0, -1.0 + i / 12.0));  // 0.1 … 10
  r->qk = qk_norm_sweep(s.head_dim, s.n_keys, scales, static_cast<uint64_t>(s.seed));
  r->zloss = z_loss_curve(s.z_loss, -20.0, 20.0, 201);
  if (s.train) {
    r->runs = compare_training(p, [&](float f) {
      progress.set(f);
      return !progress.cancelled();
    });
    r->trained = true;
  }
  return r;
}

bool quick(const StabilityState& s) { return !s.train; }
std::string error_of(const StabilityResult& r) { return r.error; }

// [SECTION] the comparison handed to the Training panel

// The Training panel's controls for both runs: the settings compare_training uses (sort task, no clipping, the
// same seed), evaluated ~40 times per run so the pinned held-out curves have points.
TrainComparison training_comparison_of(const StabilityState& s) {
  const ComparisonParams p = comparison_of(s);
  const StabilityTrick trick = s.trick;
  auto state = [&](bool with_trick) {
    TrainPanelState t = train_state_of_settings(comparison_settings(p, with_trick), p.steps);
    t.eval_every = std::max(1, p.steps / 40);
    return t;
  };
  TrainComparison c;
  c.baseline = state(false);
  c.variant = state(true);
  c.baseline_label = subst(tr("without {0}"), {tr(to_string(trick))});
  c.variant_label = subst(tr("with {0}"), {tr(to_string(trick))});
  if (trick == StabilityTrick::Softcap) c.variant_label += " ($c$ = " + plot::fmt("%.3g", s.cap) + ")";
  if (trick == StabilityTrick::ZLoss) c.variant_label += subst(tr(" (coef {0})"), {plot::fmt("%.3g", s.z_loss)});
  c.title = subst(tr("{0} at lr {1}, {2} steps each, no clipping, seed {3} (from the Stability panel)"),
                  {tr(to_string(trick)), plot::fmt("%.3g", s.lr), std::to_string(p.steps), std::to_string(s.seed)});
  return c;
}

using plot::fmt;

// [SECTION] figures

// One curve of a function-and-gradient figure: its plot's title, y label, legend entry and values.
struct CurvePlot {
  const char* title;
  const char* y_label;
  const char* legend;
  const std::vector<double>& ys;
};

// A function of x beside its gradient, one plot each, and both in the table (x, value, gradient): soft-capping and
// z-loss are each shown so.
void add_function_and_gradient(plot::Figure& fig, const char* x_label, const std::vector<double>& xs,
                               const CurvePlot& value, const CurvePlot& gradient, std::vector<std::string> header) {
  fig.grid_cols = 2;
  for (const CurvePlot* c : {&value, &gradient}) {
    plot::Axes& a = fig.add_axes(tr(c->title));
    a.setup(tr(x_label), "", tr(c->y_label), "");
    a.line(tr(c->legend), xs, c->ys);
  }
  plot::Table& t = fig.table;
  t.header = std::move(header);
  for (size_t i = 0; i < xs.size(); ++i) t.add_row({xs[i], value.ys[i], gradient.ys[i]});
}

plot::Figure softcap_figure(const StabilityResult& r) {
  const SoftcapCurve& c = r.softcap;
  plot::Figure fig("softcap", subst(tr("Soft-capping: $s \\to c\\cdot\\tanh(s/c)$, $c$ = {0}"), {fmt("%.3g", c.cap)}));
  fig.note =
      tr("Gemma 2 caps attention scores at 50 and final logits at 30; the gradient $1 - \\tanh^2(s/c)$ fades "
         "beyond $|s| \\approx c$");
  add_function_and_gradient(
      fig, N_("raw score $s$"), c.x, {N_("capped score"), N_("capped"), "$c\\cdot\\tanh(s/c)$", c.capped},
      {N_("gradient"), N_("$\\mathrm{d}\\,\\text{capped} / \\mathrm{d}s$"), "$1 - \\tanh^2(s/c)$", c.derivative},
      {"x", "capped", "derivative"});
  plot::Axes& v = fig.grid[0];
  v.line(tr("identity"), c.x, c.x).dashed = true;
  v.set_y_range(-std::max(1.5 * c.cap, 1.0), std::max(1.5 * c.cap, 1.0));
  fig.grid[1].set_y_range(0, 1.05);
  return fig;
}

plot::Figure qk_figure(const StabilityResult& r) {
  plot::Figure fig("qknorm", tr("QK-norm: scores stay bounded as $q$ and $k$ grow"));
  fig.note = subst(tr("$q, k \\sim N(0, s^2)$, $D$ = {0}, {1} keys, scores scaled by $1/\\sqrt{D}$; with QK-norm "
                      "($\\gamma = 1$) the scores do not depend on $s$"),
                   {std::to_string(r.state.head_dim), std::to_string(r.state.n_keys)});
  fig.grid_cols = 2;
  std::vector<double> s, sp, sn, pp, pn;
  plot::Table& t = fig.table;
  t.header = {"scale", "max_score_plain", "max_score_qknorm", "max_prob_plain", "max_prob_qknorm"};
  for (const QkNormPoint& q : r.qk) {
    s.push_back(q.scale), sp.push_back(q.max_score_plain), sn.push_back(q.max_score_normed);
    pp.push_back(q.max_prob_plain), pn.push_back(q.max_prob_normed);
    t.add_row({q.scale, q.max_score_plain, q.max_score_normed, q.max_prob_plain, q.max_prob_normed});
  }
  plot::Axes& a = fig.add_axes(tr("largest |score|"));
  a.setup(tr("weight scale $s$"), "", "$\\max |q \\cdot k| / \\sqrt{D}$", "");
  a.x.scale = plot::Scale::Log10;
  a.y.scale = plot::Scale::Log10;
  a.line(tr("plain"), s, sp).style = plot::LineStyle::LineAndMarkers;
  a.line(tr("QK-norm"), s, sn).style = plot::LineStyle::LineAndMarkers;
  plot::Axes& b = fig.add_axes(tr("largest attention weight"));
  b.setup(tr("weight scale $s$"), "", tr("max probability"), "");
  b.x.scale = plot::Scale::Log10;
  b.flags |= plot::AxesFlags_NoLegend;
  b.line(tr("plain"), s, pp).style = plot::LineStyle::LineAndMarkers;
  b.line(tr("QK-norm"), s, pn).style = plot::LineStyle::LineAndMarkers;
  b.set_y_range(0, 1.05);
  return fig;
}

plot::Figure zloss_figure(const StabilityResult& r) {
  const ZLossCurve& z = r.zloss;
  plot::Figure fig("zloss", subst(tr("z-loss: $\\mathrm{coef} \\cdot \\log^2 Z$ added to the loss, coef = {0}"),
                                  {fmt("%.3g", z.coef)}));
  fig.note =
      tr("$Z = \\sum \\exp(\\mathrm{logits})$; the term's gradient $2 \\cdot \\mathrm{coef} \\cdot \\log Z \\cdot "
         "\\softmax$ pulls "
         "every logit toward $\\log Z = 0$");
  add_function_and_gradient(fig, "$\\log Z$", z.log_z,
                            {N_("added loss"), "$\\mathrm{coef} \\cdot \\log^2 Z$", "z-loss", z.term},
                            {N_("gradient on the logits (sum)"), "$\\sum_v \\partial/\\partial \\mathrm{logit}_v$",
                             "$2 \\cdot \\mathrm{coef} \\cdot \\log Z$", z.grad_sum},
                            {"log_z", "z_loss", "grad_sum"});
  return fig;
}

plot::Figure training_figure(const StabilityResult& r) {
  const char* trick = tr(to_string(r.state.trick));
  plot::Figure fig("training", subst(tr("Training at lr {0}: without vs with {1}"), {fmt("%.3g", r.state.lr), trick}));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("step"), "", tr("training loss"), tr("nats"));
  plot::Table& t = fig.table;
  t.header = {"run", "step", "train_loss", "grad_norm"};
  if (!r.trained) {
    fig.note =
        tr("'Compare in the Training panel' runs both live there; tick 'preview here' to train both on this panel "
           "(a few seconds, with progress and Cancel).");
    ax.text(tr("not run yet"), 0.5, 0.5);
    ax.set_x_range(0, 1).set_y_range(0, 1);
    return fig;
  }
  auto add = [&](const char* name, const RunCurve& c) {
    std::vector<double> xs;
    for (size_t i = 0; i < c.loss.size(); ++i) {
      xs.push_back(double(i + 1));
      t.add_row({std::string(name), double(i + 1), c.loss[i], c.grad_norm[i]});
    }
    ax.line(name, xs, c.loss);
  };
  add(tr("without"), r.runs.without);
  add(subst(tr("with {0}"), {trick}).c_str(), r.runs.with);
  auto end = [](const RunCurve& c) {
    if (!c.stop_message.empty()) return subst(tr("diverged: {0}"), {c.stop_message});
    return subst(tr("held-out loss {0}, accuracy {1}"), {fmt("%.3g", c.final_val_loss), fmt("%.3g", c.final_accuracy)});
  };
  fig.note = subst(tr("without: {0}; with: {1}"), {end(r.runs.without), end(r.runs.with)});
  return fig;
}

// [SECTION] panel

class StabilityPanel final : public RecomputePanel<StabilityState, StabilityResult> {
 public:
  // QK-norm (figure 1) gets the tallest row: room for its y label.
  StabilityPanel()
      : RecomputePanel(kInfo,
                       {.rows = {{{"softcap"}, 0.8f}, {{"qknorm"}, 1.1f}, {{"training"}, 0.9f}, {{"zloss"}, 0.8f}}},
                       {compute, error_of, {softcap_figure, qk_figure, zloss_figure, training_figure}, quick}) {}

 protected:
  void bind(Controls& c) override {
    c.add_float("cap", &s_.cap, 0.5f, 100.0f, N_("soft-cap $c$"),
                N_("Scores become $c\\cdot\\tanh(s/c)$: the curve and the soft-capped training run use it."), true,
                "%.3g");
    c.add_float("x_range", &s_.x_range, 1.0f, 200.0f, N_("score range"),
                N_("The soft-cap curve covers [-range, range]."), true, "%.3g");
    c.add_int("head_dim", &s_.head_dim, 2, 512, N_("head dim $D$"),
              N_("Size of $q$ and $k$ in the QK-norm experiment."), true);
    c.add_int("n_keys", &s_.n_keys, 2, 256, N_("keys"), N_("Keys one query attends over in the QK-norm experiment."),
              true);
    c.add_float("z_loss", &s_.z_loss, 1e-6f, 1.0f, N_("z-loss coef"),
                N_("Weight of $\\log^2 Z$ in the loss (PaLM used 1e-4); the curve and the z-loss run use it."), true,
                "%.3g");
    c.add_enum("trick", &s_.trick, StabilityTrick::ZLoss, N_("trick to compare"),
               N_("Which trick the training comparison turns on in its second run."));
    c.add_bool(
        "in_training", &s_.in_training, N_("compare in the Training panel"),
        N_("Hands the comparison of the chosen trick to the Training panel once (baseline, pinned, then with the "
           "trick) and reads back false; the buttons under 'trick to compare' do the same."));
    c.add_bool("train", &s_.train, N_("preview here"),
               N_("Also train both models on this panel (seconds; progress and Cancel below). Off: only the curves."));
    c.add_float("lr", &s_.lr, 1e-4f, 1.0f, N_("learning rate"),
                N_("AdamW peak learning rate of both runs; high on purpose."), true, "%.3g");
    c.add_int("steps", &s_.steps, 1, 2000, N_("steps"), N_("Optimizer steps of each run."), true);
    c.add_int("warmup", &s_.warmup, 0, 2000, N_("warmup"),
              N_("Linear warmup steps of both runs (0: none, the harder case)."));
    c.add_int("layers", &s_.layers, 1, 8, N_("layers"), N_("Blocks of the tiny model both runs train."));
    c.add_int("dim", &s_.dim, 8, 256, N_("dim"), N_("Width $C$ of the tiny model (4 heads; $C$/4 must be even)."));
    c.add_int("seed", &s_.seed, 0, 1000000, N_("seed"),
              N_("The same seed gives both runs the same weights and batches."));
  }

  // A scene's (or a button's) in_training = true hands the comparison over once, before change detection.
  void prepare() override {
    if (!s_.in_training) return;
    s_.in_training = false;
    const ComparisonParams p = comparison_of(s_);
    if (std::string e = validate(p); !e.empty()) {
      sent_ = subst(tr("Not sent to the Training panel: {0}"), {e});
      return;
    }
    TrainComparison c = training_comparison_of(s_);
    sent_ = subst(tr("Sent to the Training panel: {0}."), {c.title});
    handoffs().post_train_comparison(std::move(c));
  }

  bool control_visible(const Control& c) const override { return c.key != "in_training"; }  // buttons instead

  void after_control(const Control& c) override {
    if (c.key != "trick") return;
    ImGui::TextUnformatted(tr("Compare in the Training panel:"));
    for (int i = 0; i < 3; ++i) {
      const auto trick = static_cast<StabilityTrick>(i);
      if (i > 0) ImGui::SameLine();
      ImGui::PushID(i);
      if (ImGui::Button(tr(to_string(trick)))) {
        s_.trick = trick;
        s_.in_training = true;  // the next update() hands it over
      }
      ImGui::PopID();
    }
    ImGui::SameLine();
    help_marker(tr(
        "Opens the Training panel with the learning rate, steps and model below: it trains without the trick, "
        "pins that run, then trains with it from the same seed; its loss and $\\log Z$ figures overlay both (progress, "
        "Pause and Cancel there)."));
    if (!sent_.empty()) ImGui::TextWrapped("%s", sent_.c_str());
  }

  void draw_summary(const StabilityResult& r) override {
    if (!r.trained) return;
    ImGui::Separator();
    auto line = [](const char* name, const RunCurve& c) {
      if (!c.stop_message.empty()) {
        warning_text(subst(tr("{0}: {1}"), {name, c.stop_message}).c_str());

        return;
      }
      ImGui::Text(tr("%s: final train loss %.3g, accuracy %.3g"), name, c.loss.empty() ? 0.0 : c.loss.back(),
                  c.final_accuracy);
    };
    line(tr("without"), r.runs.without);
    line(tr("with"), r.runs.with);
  }

 private:
  std::string sent_;  // what the last hand-over to the Training panel was, or why it was refused
};

}  // namespace stability_panel

TW_REGISTER_PANEL(stability_panel::StabilityPanel);

}  // namespace tw
