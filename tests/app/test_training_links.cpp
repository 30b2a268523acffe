// Links between the Training panel and the stability and decoding panels, headless:
//   - the stability panel hands each trick's comparison to the Training panel with the settings the core
//     comparison uses (only the trick differs between the two runs);
//   - a compare preset loads, both runs happen in the Training panel (the baseline pinned), and the measured
//     direction holds on its seed (soft-cap, QK-norm: a lower held-out loss; z-loss: a held-out log Z nearer 0);
//   - the decoding panel's perplexity follows the Training panel's run: exp(latest held-out loss), its vocabulary.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <string>

#include "app/app_state.h"
#include "app/scene.h"
#include "core/experiments/information.h"
#include "core/experiments/stability_tricks.h"
#include "views/handoffs.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/export.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"
#include "views/train/train_controls.h"

namespace tw {
namespace {

using testing::figure_by_id;
using testing::run;
using testing::set;

// The last finite value of a field in a run's history (NaN when none).
double last_finite(const std::vector<MetricsRow>& h, double MetricsRow::*field) {
  for (auto it = h.rbegin(); it != h.rend(); ++it)
    if (std::isfinite((*it).*field)) return (*it).*field;
  return std::nan("");
}

// [SECTION] the hand-off carries the core comparison's settings

class StabilityHandoff : public ::testing::TestWithParam<int> {};

TEST_P(StabilityHandoff, BothRunsAreTheCoreComparisonsSettings) {
  auto p = make_panel("stability");  // a panel made alone has its own hand-offs: nothing left from another test
  const int trick = GetParam();
  set(*p, "trick", std::vector<std::string>{"soft-cap", "QK-norm", "z-loss"}[size_t(trick)]);
  set(*p, "lr", 0.05);
  set(*p, "steps", 120);
  set(*p, "seed", 7);
  set(*p, "in_training", true);
  p->update();
  p->wait_idle();
  // The action is one-shot: it reads back false, so a saved scene or session does not start it again.
  EXPECT_EQ(p->controls().find("in_training")->get(), false);
  std::optional<TrainComparison> c = p->handoffs().take_train_comparison();
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(p->handoffs().take_train_comparison().has_value()) << "taken once";

  ComparisonParams params;
  params.trick = static_cast<StabilityTrick>(trick);
  params.lr = 0.05f;
  params.steps = 120;
  params.seed = 7;
  params.softcap = 5.0f;  // the panel's defaults
  params.z_loss = 1e-4;
  for (const bool with : {false, true}) {
    TrainSettings got;
    std::string error;
    ASSERT_TRUE(train_settings_of_state(with ? c->variant : c->baseline, &got, &error)) << error;
    const TrainSettings want = comparison_settings(params, with);
    EXPECT_EQ(got.model.n_layers, want.model.n_layers);
    EXPECT_EQ(got.model.dim, want.model.dim);
    EXPECT_EQ(got.model.n_heads, want.model.n_heads);
    EXPECT_EQ(got.model.hidden, want.model.hidden);
    EXPECT_EQ(got.model.vocab, want.model.vocab);
    EXPECT_EQ(got.model.activation, want.model.activation);
    EXPECT_EQ(got.model.qk_norm, want.model.qk_norm);
    EXPECT_EQ(got.model.attn_softcap, want.model.attn_softcap);
    EXPECT_EQ(got.z_loss, static_cast<double>(static_cast<float>(want.z_loss)));
    EXPECT_EQ(got.optimizer.lr, want.optimizer.lr);
    EXPECT_EQ(got.optimizer.clip_norm, 0.0f);
    EXPECT_EQ(got.optimizer.warmup_steps, want.optimizer.warmup_steps);
    EXPECT_EQ(got.batch, want.batch);
    EXPECT_EQ(got.seed, 7u);
    EXPECT_EQ(got.task.kind, TaskKind::Sort);
    EXPECT_EQ(got.task.length, want.task.length);
    EXPECT_EQ(got.task.alphabet, want.task.alphabet);
  }
  // Exactly the trick separates the two runs.
  TrainPanelState v = c->variant;
  v.model.qk_norm = c->baseline.model.qk_norm;
  v.model.attn_softcap = c->baseline.model.attn_softcap;
  v.z_loss = c->baseline.z_loss;
  EXPECT_EQ(v.optimizer.lr, c->baseline.optimizer.lr);
  EXPECT_EQ(v.steps, 120);
  EXPECT_EQ(c->baseline.steps, 120);
  const bool differs = c->variant.model.qk_norm != c->baseline.model.qk_norm ||
                       c->variant.model.attn_softcap != c->baseline.model.attn_softcap ||
                       c->variant.z_loss != c->baseline.z_loss;
  EXPECT_TRUE(differs);
  EXPECT_NE(c->baseline_label.find("without"), std::string::npos) << c->baseline_label;
  EXPECT_NE(c->variant_label.find("with"), std::string::npos) << c->variant_label;
}

INSTANTIATE_TEST_SUITE_P(Tricks, StabilityHandoff, ::testing::Values(0, 1, 2));

TEST(StabilityHandoff, InvalidSettingsAreNotSent) {
  auto p = make_panel("stability");
  set(*p, "dim", 30);  // not a multiple of 2 × 4 heads
  set(*p, "in_training", true);
  p->update();
  p->wait_idle();
  EXPECT_FALSE(p->handoffs().take_train_comparison().has_value());
  EXPECT_NE(p->error().find("dim"), std::string::npos) << p->error();
}

TEST(TrainStateOfSettings, RoundTripsThroughTheTrainingPanelsSettings) {
  // Every setting away from the panel's default (the text task's aside), set by its scene key as a scene would.
  const auto changed = nlohmann::json::parse(R"({
    "task": "copy", "length": 5, "alphabet": 7, "vary_period": true,
    "layers": 3, "dim": 24, "heads": 2, "kv_heads": 1, "hidden": 40, "positions": "alibi", "norm": "layernorm",
    "placement": "post", "activation": "swiglu", "attn_scale": "1/d_k", "qk_norm": true, "softcap": 7.5, "tie": true,
    "experts": 4, "top_k": 2, "capacity_factor": 1.25, "aux_coef": 0.02,
    "optimizer": "sgd", "lr": 0.02, "steps": 77, "warmup": 5, "weight_decay": 0.2, "decay_all": true, "clip": 0.5,
    "z_loss": 0.01, "batch": 9, "seed": 42, "eval_every": 3})");
  TrainPanelState s;
  Controls controls("train");
  bind_train_controls(controls, s);
  for (const auto& [key, value] : changed.items()) {
    Control* c = controls.find(key);
    ASSERT_NE(c, nullptr) << key;
    ASSERT_FALSE(c->check(value, key).has_value()) << key;
    c->set(value);
  }
  TrainSettings t;
  std::string error;
  ASSERT_TRUE(train_settings_of_state(s, &t, &error)) << error;
  const TrainPanelState back = train_state_of_settings(t, s.steps);
  TrainSettings t2;
  ASSERT_TRUE(train_settings_of_state(back, &t2, &error)) << error;
  EXPECT_EQ(back.task.kind, s.task.kind);
  EXPECT_EQ(back.task.vary_period, true);
  EXPECT_EQ(back.vocab, 0) << "the task's own vocabulary reads back as 0";
  EXPECT_EQ(back.model.n_kv_heads, 1);
  EXPECT_EQ(back.model.positions, PositionType::ALiBi);
  EXPECT_EQ(back.model.activation, ActivationKind::SwiGLU);
  EXPECT_EQ(back.model.attn_scale, ScaleMode::InvDk);
  EXPECT_EQ(back.model.attn_softcap, 7.5f);
  EXPECT_EQ(back.optimizer.kind, OptimizerKind::SGD);
  EXPECT_EQ(back.decay_all, true);
  EXPECT_EQ(back.z_loss, 0.01f);
  EXPECT_EQ(back.eval_every, 3);
  EXPECT_EQ(t2.model.n_layers, t.model.n_layers);
  EXPECT_EQ(t2.model.hidden, t.model.hidden);
  EXPECT_EQ(t2.model.tie_embeddings, true);
  EXPECT_EQ(t2.model.placement, t.model.placement);
  EXPECT_EQ(t2.model.experts, 4);
  EXPECT_EQ(t2.model.top_k, 2);
  EXPECT_EQ(t2.model.capacity_factor, t.model.capacity_factor);
  EXPECT_EQ(t2.model.aux_loss_coef, t.model.aux_loss_coef);
  EXPECT_EQ(t2.optimizer.total_steps, 77);
  EXPECT_EQ(t2.optimizer.weight_decay, t.optimizer.weight_decay);
  EXPECT_EQ(t2.optimizer.clip_norm, t.optimizer.clip_norm);
  EXPECT_EQ(t2.z_loss, t.z_loss);
  EXPECT_EQ(t2.seed, 42u);
  EXPECT_EQ(t2.batch, 9);
}

// [SECTION] presets: both runs happen in the Training panel

// Loads a preset as File › Open does and runs the open panels as headless export does (update, then wait until
// idle, panel by panel in the app's order). Returns the Training panel's snapshot.
std::shared_ptr<const TrainSnapshot> run_preset(const std::string& name, const std::vector<SceneOverride>& overrides,
                                                AppState* app) {
  *app = make_app_state();
  const SceneLoad load =
      load_scene_file(*app, std::string(TW_SOURCE_DIR) + "/assets/scenes/" + name + ".json", overrides);
  EXPECT_TRUE(load.ok) << load.error;
  EXPECT_TRUE(load.warnings.empty()) << load.warnings.front();
  EXPECT_TRUE(app->find("train") && app->find("train")->open);
  for (PanelSlot& slot : app->panels)
    if (slot.open) {
      slot.panel->update();
      slot.panel->wait_idle();
    }
  return app->handoffs->latest_training_run();
}

// What a preset's comparison must show on its seed: the measured quantity of each run and the relation between
// them, with a wide margin (the shipped runs are far inside it; a CPU's rounding cannot cross it).
struct PresetCase {
  const char* name;
  const char* baseline;  // label of the pinned run
  double MetricsRow::*measure;
  double max_ratio;  // |with| / |without| must stay below this
};

void PrintTo(const PresetCase& c, std::ostream* os) { *os << c.name; }

class ComparePresets : public ::testing::TestWithParam<PresetCase> {};

TEST_P(ComparePresets, BothRunsHappenAndTheTrickWins) {
  const PresetCase& pc = GetParam();
  AppState app;
  const auto snap = run_preset(pc.name, {}, &app);
  ASSERT_TRUE(snap && snap->ready);
  const int steps = 200;  // the preset's
  ASSERT_EQ(snap->pinned.size(), 1u);
  EXPECT_EQ(snap->pinned[0].label.rfind(pc.baseline, 0), 0u) << snap->pinned[0].label;
  EXPECT_EQ(int(snap->pinned[0].history.size()), steps) << "baseline ran to its last step";
  EXPECT_EQ(snap->step, steps) << "variant ran to its last step";
  EXPECT_TRUE(snap->message.empty()) << snap->message;
  EXPECT_FALSE(snap->running);
  // The Training panel's figures overlay the pinned baseline on the loss and log Z curves.
  Panel& train = *app.find("train")->panel;
  const std::vector<plot::Figure> figs = train.figures();
  for (const char* id : {"loss", "log_z"}) {
    const plot::Figure& f = figure_by_id(figs, id);
    int pinned = 0;
    for (const plot::Item& it : f.grid.at(0).items)
      if (const auto* l = std::get_if<plot::LineItem>(&it); l && l->label.rfind("pinned: ", 0) == 0) ++pinned;
    EXPECT_EQ(pinned, 1) << id;
  }
  const double without = last_finite(snap->pinned[0].history, pc.measure);
  const double with = last_finite(snap->history, pc.measure);
  std::printf("%s: last held-out value without %.4f, with %.4f\n", pc.name, without, with);
  ASSERT_TRUE(std::isfinite(without) && std::isfinite(with));
  EXPECT_LT(std::abs(with), pc.max_ratio * std::abs(without));
}

// soft-cap and QK-norm: the held-out loss at the end; z-loss: the held-out log Z it pulls toward 0.
INSTANTIATE_TEST_SUITE_P(
    All, ComparePresets,
    ::testing::Values(PresetCase{"stability-softcap-compare", "without soft-cap", &MetricsRow::val_loss, 0.8},
                      PresetCase{"stability-qknorm-compare", "without QK-norm", &MetricsRow::val_loss, 0.5},
                      PresetCase{"stability-zloss-compare", "without z-loss", &MetricsRow::log_z, 0.25}),
    [](const auto& info) {
      std::string n = info.param.name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

// A baseline that diverges is pinned up to its last good step with the divergence in its label, and the variant
// still runs: the comparison shows the blow-up beside the run that survives.
TEST(TrainingComparison, ADivergedBaselineIsPinnedAndTheVariantRuns) {
  TrainPanelState bad;  // SGD with momentum at a learning rate no model survives (unclipped)
  bad.optimizer = {.kind = OptimizerKind::SGD, .lr = 10.0f, .weight_decay = 0.01f, .clip_norm = 0.0f};
  bad.steps = 40;
  bad.eval_every = 5;
  TrainPanelState good = bad;
  good.optimizer.kind = OptimizerKind::AdamW;
  good.optimizer.lr = 3e-3f;
  auto train = make_panel("train");
  train->handoffs().post_train_comparison({"test", bad, good, "SGD at lr 10", "AdamW at lr 0.003"});
  train->update();
  train->wait_idle();
  const auto snap = train->handoffs().latest_training_run();
  ASSERT_TRUE(snap && snap->ready);
  ASSERT_EQ(snap->pinned.size(), 1u);
  const PinnedRun& b = snap->pinned[0];
  EXPECT_NE(b.label.find("diverged after step"), std::string::npos) << b.label;
  EXPECT_LT(int(b.history.size()), 40);
  for (const MetricsRow& r : b.history) EXPECT_TRUE(std::isfinite(r.train_loss)) << "step " << r.step;
  EXPECT_EQ(snap->step, 40);
  EXPECT_TRUE(snap->message.empty()) << snap->message;
  EXPECT_EQ(snap->settings.optimizer.kind, OptimizerKind::AdamW);
}

// [SECTION] the decoding panel follows the Training panel's run

// The perplexity figure's "this loss" point and its uniform line.
struct PerplexityShown {
  double loss = 0, perplexity = 0, uniform = 0;
  std::string note;
};
PerplexityShown shown(Panel& decoding) {
  const std::vector<plot::Figure> figs = run(decoding);
  const plot::Figure& f = figure_by_id(figs, "perplexity");
  PerplexityShown s;
  s.note = f.note;
  for (const plot::Item& it : f.grid.at(0).items) {
    if (const auto* l = std::get_if<plot::LineItem>(&it); l && l->xs.size() == 1) {
      s.loss = l->xs[0];
      s.perplexity = l->ys[0];
    }
    if (const auto* m = std::get_if<plot::MarkerLineItem>(&it)) s.uniform = m->value;
  }
  return s;
}

TEST(DecodingLink, PerplexityFollowsTheTrainingRun) {
  auto decoding = make_panel("decoding");  // its own hand-offs: no run yet
  set(*decoding, "loss", 1.2);
  PerplexityShown s = shown(*decoding);
  EXPECT_NEAR(s.loss, 1.2, 1e-6);
  EXPECT_NE(s.note.find("no training run yet"), std::string::npos) << s.note;
  EXPECT_EQ(s.uniform, 8.0) << "without a run: uniform over p's 8 tokens";

  // A short run of the Training panel's own session type, published as the panel publishes it.
  TrainSettings t;
  t.task = {.kind = TaskKind::Sort, .length = 4, .alphabet = 5};
  Task task;
  std::string error;
  ASSERT_TRUE(Task::create(t.task, &task, &error)) << error;
  t.model.n_layers = 1;
  t.model.dim = 16;
  t.model.n_heads = 2;
  t.model.n_kv_heads = 2;
  t.model.hidden = 32;
  t.model.vocab = task.vocab() + 3;  // a larger softmax than the task's: the uniform line uses the model's V
  t.model.max_seq = task.seq_len();
  t.optimizer.lr = 3e-3f;
  t.eval_every = 5;
  TrainerSession session;
  ASSERT_TRUE(session.reset(t, &error)) << error;
  decoding->handoffs().publish_training_run(
      session.snapshot());  // a run at step 0 has no loss yet: the typed loss stays
  s = shown(*decoding);
  EXPECT_NEAR(s.loss, 1.2, 1e-6);
  EXPECT_NE(s.note.find("no loss yet"), std::string::npos) << s.note;

  double previous = 0;
  for (const int steps : {12, 40}) {
    session.set_max_steps(steps);
    session.play();
    session.wait_idle();
    const auto snap = session.snapshot();
    ASSERT_EQ(snap->step, steps);
    decoding->handoffs().publish_training_run(snap);
    // The latest held-out loss, found here by hand: evaluations after step 1 and every 5 steps.
    const double want = last_finite(snap->history, &MetricsRow::val_loss);
    ASSERT_TRUE(std::isfinite(want));
    s = shown(*decoding);
    EXPECT_EQ(s.loss, want);
    EXPECT_LE(std::abs(s.perplexity - std::exp(want)), 1e-12 * std::exp(want));
    EXPECT_EQ(s.uniform, double(task.vocab() + 3));
    EXPECT_NE(s.note.find("held-out loss at step " + std::to_string(steps - steps % 5)), std::string::npos) << s.note;
    EXPECT_NE(s.loss, previous) << "the figure follows the run";
    previous = s.loss;
  }
  // Linked, the figure holds a second axes (the run's held-out perplexity per evaluation): it lays out cleanly.
  const std::vector<plot::Figure> figs = run(*decoding);
  const plot::Figure& f = figure_by_id(figs, "perplexity");
  ASSERT_EQ(f.grid.size(), 2u);
  const plot::Vec2 size = plot::default_figure_size(f);
  for (const plot::Theme theme : {plot::Theme::Dark, plot::Theme::Print}) {
    const plot::Layout l = plot::layout_figure(f, {.width = size.x, .height = size.y, .theme = theme});
    std::string all;
    for (const std::string& p : l.problems) all += p + "; ";
    EXPECT_TRUE(l.problems.empty()) << all;
  }
  if (const char* dir = std::getenv("TW_TEST_FIGURE_DIR")) {  // to look at it: the print-theme PNG
    std::vector<std::string> written;
    EXPECT_EQ(plot::export_figure(f, dir, "decoding", plot::ExportFormat_Png, {}, &written), "");
  }
  // Unticked: the typed loss again, the run notwithstanding.
  set(*decoding, "use_training", false);
  s = shown(*decoding);
  EXPECT_NEAR(s.loss, 1.2, 1e-6);
}

TEST(DecodingLink, LatestRunLossPrefersTheHeldOutLoss) {
  std::vector<MetricsRow> h(4);
  for (int i = 0; i < 4; ++i) {
    h[size_t(i)].step = i + 1;
    h[size_t(i)].train_loss = 2.0 - 0.1 * i;
  }
  RunLoss l = latest_run_loss(h);
  EXPECT_TRUE(l.found);
  EXPECT_FALSE(l.held_out);
  EXPECT_EQ(l.step, 4);
  EXPECT_EQ(l.loss, h[3].train_loss);
  h[1].val_loss = 1.5;
  l = latest_run_loss(h);
  EXPECT_TRUE(l.held_out);
  EXPECT_EQ(l.step, 2);
  EXPECT_EQ(l.loss, 1.5);
  EXPECT_FALSE(latest_run_loss({}).found);
}

}  // namespace
}  // namespace tw
