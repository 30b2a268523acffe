#pragma once
// One way to recompute a panel: its state changes → one core call on a worker → a result → figures.
//
// [SECTION] Recompute<Result>: the job, the shown result, the figure cache, progress and cancel
// [SECTION] RecomputePanel<State, Result>: update / wait_idle / figures / draw written once for every panel
//
// Every concept panel (softmax, ALiBi, masks, GQA, RoPE, LoRA, ...) derives from RecomputePanel and writes only
// what is its own: the state struct, a compute function, a cost estimate, its figures and their layout on screen
// (its explanation is prose in views/text/<id>.txt).
// docs/adding-a-panel.md walks through one.

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "views/async_job.h"
#include "views/controls.h"
#include "views/panel.h"
#include "views/plot/figure.h"
#include "views/text/panel_text.h"
#include "views/widgets.h"

namespace tw {

// [SECTION] Checked<Params, Analysis>: a core analysis behind its validation

// The parameters a core analysis ran with, why validate() refused them, or the analysis.
template <class Params, class Analysis>
struct Checked {
  Params params;
  std::string error;  // validate(params): "" when usable
  Analysis a;
};
// Validates `p` and, when valid, runs `analyze(p)`; the result owns everything a panel's figures read.
template <class Params, class Analyze>
auto run_checked(const Params& p, Analyze&& analyze) {
  auto r = std::make_shared<Checked<Params, decltype(analyze(p))>>();
  r->params = p;
  r->error = validate(p);
  if (r->error.empty()) r->a = analyze(p);
  return std::shared_ptr<const Checked<Params, decltype(analyze(p))>>(std::move(r));
}

// The error_of hook of a Checked result: validate()'s message.
template <class CheckedResult>
std::string checked_error(const CheckedResult& r) {
  return r.error;
}

// [SECTION] Recompute<Result>

// Rules, the same for every panel:
//   - a request replaces any queued one (dragging a slider never builds a backlog);
//   - a `quick` request (the panel's cost estimate says about a millisecond) is waited for, so the figures follow
//     the slider in the same frame, unless a long job is still running (the UI never blocks on one);
//   - a long request runs below the UI's priority when the GUI asked for it (see run_with_priority), shows its
//     progress and can be cancelled; the previous result stays on screen meanwhile.
template <class Result>
class Recompute {
 public:
  using Ptr = std::shared_ptr<const Result>;

  // `work`: Ptr(Progress&), reading only copies of its inputs (it runs on the worker thread).
  template <class Work>
  void request(bool quick, bool background_priority, Work work) {
    const bool idle_before = !job_.busy();
    const bool low = !quick && background_priority;
    cancelled_ = false;
    job_.request(
        [work = std::move(work), low](Progress& p) { return run_with_priority(low, [&] { return work(p); }); });
    if (quick && idle_before) job_.wait();
    poll();
  }
  // Takes a freshly finished result into view.
  void poll() {
    if (!job_.poll()) return;
    result_ = *job_.latest();
    fresh_ = true;
  }
  // True once for each result that came into view since the last call (a panel that keeps more than the
  // result, e.g. the last valid one, adopts it then).
  bool take_fresh() {
    poll();
    return std::exchange(fresh_, false);
  }
  void wait() {
    job_.wait();
    poll();
  }
  // The user's Cancel: the running job stops at its next progress check and the previous result stays.
  void cancel() {
    job_.cancel();
    cancelled_ = true;
  }

  const Ptr& result() const { return result_; }
  bool busy() const { return job_.busy(); }
  float progress() const { return job_.progress(); }
  bool cancelled() const { return cancelled_; }  // since the last request
  // Why the last computation gave no result (out of memory, an exception), "" when it finished.
  std::string failure() const { return job_.failure(); }

  // The figures of the current result, rebuilt only when the result changes (draw() runs every frame).
  template <class Build>
  const std::vector<plot::Figure>& figures(Build&& build) {
    return shown_.get(result_, std::forward<Build>(build));
  }

 private:
  Ptr result_;
  bool cancelled_ = false;
  bool fresh_ = false;
  FigureCache<Ptr> shown_;
  AsyncJob<Ptr> job_;  // declared last: its worker joins before the members above go away
};

// [SECTION] RecomputePanel<State, Result>

// A panel whose figures come from one core computation of its state. Error contract, the same for every panel:
// a result that cannot be shown has error_of(result) != ""; then figures() is empty, error() returns the message
// (headless export prints it) and the figure column shows it where the figures would be.
template <class State, class Result>
class RecomputePanel : public Panel {
 public:
  using Ptr = std::shared_ptr<const Result>;
  // Runs on the worker thread with a copy of the state; looks at Progress::cancelled() in long loops.
  using Compute = Ptr (*)(const State&, Progress&);

  // One figure of the panel, built from a result (plain data: the screen and every export draw the same).
  using FigureBuilder = std::function<plot::Figure(const Result&)>;

  // What the panel computes, as plain functions of its state and result (the panel file defines them beside its
  // figures, so the class holds only what it draws).
  struct Hooks {
    Compute compute;                         // runs on the worker with a copy of the state
    std::string (*error_of)(const Result&);  // "" when the result can be shown
    std::vector<FigureBuilder> figures;      // figures() in the order shown: figures[i](result) is figures()[i]
    bool (*quick)(const State&) = nullptr;   // about a millisecond? update() then waits for it (nullptr: always)
    // Optional, for a computation with a cheap first answer: compute returns it, with pending(result) true while
    // a part is still missing (its figure says so), and refine(state, first) completes it on the worker, below the
    // UI's priority, once the first answer is in view. wait_idle() waits for the whole; wait_answer() for the first.
    bool (*pending)(const Result&) = nullptr;
    Ptr (*refine)(const State&, const Result&, Progress&) = nullptr;
  };

  // `info`: id, window title, menu category, one-line description; the explanation on top is
  // views/text/<info.id>.txt (panel_text). `layout`: where figures() go on screen (the default draw_figures).
  RecomputePanel(PanelInfo info, FigureLayout layout, Hooks hooks)
      : layout_(std::move(layout)), info_(std::move(info)), hooks_(std::move(hooks)) {}
  // A panel that lays out its figures itself (draw_figures).
  RecomputePanel(PanelInfo info, Hooks hooks) : RecomputePanel(std::move(info), {}, std::move(hooks)) {}

  PanelInfo info() const final { return info_; }

  void update() final {
    prepare();
    const bool changed = controls_changed();  // always called: it records the controls for the next frame
    if (changed || std::exchange(recompute_requested_, false)) {
      const State s = s_;
      refining_ = false;
      job_.request(!hooks_.quick || hooks_.quick(s), background_priority(),
                   [s, compute = hooks_.compute](Progress& p) { return compute(s, p); });
    }
    job_.poll();
    refine_if_pending();
  }
  void wait_idle() final {
    job_.wait();
    while (refine_if_pending()) job_.wait();
  }
  void wait_answer() final {
    if (!refining_) job_.wait();  // a refinement on its way means the first answer is already in view
  }
  bool busy() const final { return job_.busy(); }

  std::vector<plot::Figure> figures() final {
    const Ptr& r = job_.result();
    if (!r || !hooks_.error_of(*r).empty()) return {};
    return build_figures(*r);
  }
  // The figures draw() shows: built once per result (the slide draws these too).
  const std::vector<plot::Figure>& shown_figures() final {
    static const std::vector<plot::Figure> kNone;
    const Ptr& r = job_.result();
    if (!r || !hooks_.error_of(*r).empty()) return kNone;
    return job_.figures([&] { return build_figures(*r); });
  }
  // With no result at all, why the computation gave none (out of memory), not an unexplained empty panel.
  std::string error() const final {
    const Ptr& r = job_.result();
    return r ? hooks_.error_of(*r) : job_.failure();
  }

  void draw(const DrawContext& ctx) override;  // explanation, controls column, figures (below)
  // Every figure id the default layout names, row by row (tests check each is one of figures()).
  std::vector<std::string> layout_figure_ids() const override {
    std::vector<std::string> ids;
    for (const FigureRow& row : layout_.rows) ids.insert(ids.end(), row.figures.begin(), row.figures.end());
    return ids;
  }

 protected:
  // Optional overrides, for what a panel adjusts or draws beyond its controls and figures.
  virtual void prepare() {}  // adjusts the state before change detection (e.g. clamps to T)
  // From prepare(): the state changed outside the controls (e.g. another panel's run it links to), so recompute.
  void request_recompute() { recompute_requested_ = true; }
  virtual bool control_visible(const Control&) const { return true; }
  virtual void after_control(const Control&) {}        // extra buttons under one control
  virtual void draw_controls(const DrawContext& ctx);  // default: every visible control, then after_control
  virtual void draw_summary(const Result&) {}          // live checks under the controls, when the result is usable
  // Lays out figures() on screen; the default draws layout_.
  virtual void draw_figures(const DrawContext& ctx, const std::vector<plot::Figure>& figs) {
    draw_figure_rows(figs, ctx, info_.id.c_str(), layout_.rows, layout_.min_width);
  }

  const Ptr& result() const { return job_.result(); }

  State s_;
  float controls_width_ = 330;  // logical pixels; the column of controls left of the figures
  float item_width_ = 150;      // width of each control's widget
  FigureLayout layout_;         // the default layout of figures() on screen
  const char* computing_text_ = N_("Computing the first results...");  // before the first result (translated shown)

 private:
  std::vector<plot::Figure> build_figures(const Result& r) const {
    std::vector<plot::Figure> figs;
    for (const FigureBuilder& build : hooks_.figures) figs.push_back(build(r));
    return figs;
  }

  // Requests the refinement of the result in view when it is pending and nothing newer is on its way (once: the
  // job is busy until the whole arrives; not after a Cancel). True when it requested one.
  bool refine_if_pending() {
    const Ptr r = job_.result();
    if (!hooks_.refine || !hooks_.pending || !r || job_.busy() || job_.cancelled() || !hooks_.pending(*r)) return false;
    const State s = s_;
    job_.request(false, background_priority(),
                 [s, r, refine = hooks_.refine](Progress& p) { return refine(s, *r, p); });
    refining_ = true;
    return true;
  }

  PanelInfo info_;
  Hooks hooks_;
  bool recompute_requested_ = false;
  bool refining_ = false;  // the job running (or done) is the refinement of the result in view
  Recompute<Result> job_;  // declared last: its worker joins before the members above go away
};

// The hooks of a panel whose whole computation is "validate, then analyze": params_of(state) is validated, then
// analyze(params) runs (no progress, no quick estimate: update() always waits); each figure is drawn from
// (params, analysis).
template <class State, auto params_of, auto analyze,
          class Params = std::decay_t<decltype(params_of(std::declval<const State&>()))>,
          class Analysis = std::decay_t<decltype(analyze(std::declval<const Params&>()))>>
auto checked_hooks(const std::vector<plot::Figure (*)(const Params&, const Analysis&)>& figures) {
  using Result = Checked<Params, Analysis>;
  typename RecomputePanel<State, Result>::Hooks hooks{
      [](const State& s, Progress&) { return run_checked(params_of(s), analyze); }, checked_error<Result>, {}};
  for (auto build : figures) hooks.figures.push_back([build](const Result& r) { return build(r.params, r.a); });
  return hooks;
}

// [SECTION] RecomputePanel: the default draw (no ImGui calls here: the widgets live in views/widgets.cpp)

template <class State, class Result>
void RecomputePanel<State, Result>::draw_controls(const DrawContext& ctx) {
  draw_controls_column(
      controls(), ctx, item_width_, [this](const Control& c) { return control_visible(c); },
      [this](const Control& c) { after_control(c); });
}

template <class State, class Result>
void RecomputePanel<State, Result>::draw(const DrawContext& ctx) {
  panel_explanation(panel_text(info_.id), ctx.fit_figures_to_height);
  begin_controls_column(ctx, controls_width_, &controls());
  draw_controls(ctx);
  if (job_.busy() && job_progress(job_.progress(), tr("computing"))) job_.cancel();
  if (job_.cancelled() && !job_.busy()) warning_text(tr("Cancelled: the figures still show the previous settings."));
  const Ptr r = job_.result();
  if (r && hooks_.error_of(*r).empty()) draw_summary(*r);
  begin_figures_column();
  if (!r) {
    empty_state(tr(computing_text_));

  } else if (const std::string e = hooks_.error_of(*r); !e.empty()) {
    warning_text(e.c_str());
  } else {
    draw_figures(ctx, shown_figures());
  }
  end_figures_column();
}

}  // namespace tw
