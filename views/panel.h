#pragma once
// Panel registry: adding a panel is adding one file in views/.
//
// A panel file holds a state struct (every control's value, plain data), a class deriving from Panel
// that binds those fields as Controls, recomputes its core results when the state changes, and draws.
// Panels computed from their state by one core call derive from RecomputePanel (views/recompute.h), which
// writes update/wait_idle/figures/draw once; docs/adding-a-panel.md walks through one.
// At the bottom of the file: TW_REGISTER_PANEL(MyPanel);
//
// Call contract for the app and for headless code (export, tests):
//   auto p = make_panel("softmax");  p->bind_controls();   // once
//   ... set controls (widgets, scene file, --set) ...
//   p->update();                                            // recompute if the state changed
//   p->draw(ctx);                                           // GUI only: inside ImGui::Begin/End
// Headless (export, tests) replaces draw() by:
//   p->update(); p->wait_idle();                            // results are current (worker threads done)
//   for (const plot::Figure& f : p->figures()) ...          // writes <panel id>-<f.id>.png/svg/csv
//
// A panel builds its figures from its current core results in figures() and draws the same figures on screen
// with plot::draw_figure (views/plot/plot_imgui.h), so exports show exactly what the user saw.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/i18n.h"
#include "views/async_job.h"
#include "views/controls.h"
#include "views/plot/figure.h"
#include "views/plot/theme.h"
#include "views/presenter_keys.h"

namespace tw {

class Handoffs;  // views/handoffs.h

// name, category and description are English source strings (marked N_ where declared) translated where shown.
struct PanelInfo {
  std::string id;           // scene key prefix and export file prefix, e.g. "softmax"
  std::string name;         // window title, e.g. "Softmax saturation"
  std::string category;     // menu grouping, e.g. "Attention"
  std::string description;  // one line for the overview and the View menu
};

// The panel's window title in the interface language with an ImGui id that stays the same in every language
// ("Softmax 饱和###softmax"), so switching language keeps the window's place, size and focus.
inline std::string panel_window_title(const PanelInfo& info) {
  return std::string(tr(info.name.c_str())) + "###" + info.id;
}

class Panel {
 public:
  virtual ~Panel() = default;
  virtual PanelInfo info() const = 0;

  // Declares every control; called once right after construction.
  void bind_controls() {
    controls_ = std::make_unique<Controls>(info().id);
    bind(*controls_);
  }
  Controls& controls() { return *controls_; }
  const Controls& controls() const { return *controls_; }

  // Recomputes core results if the state changed since the last call. Cheap when nothing changed.
  virtual void update() {}
  // Draws the window body (the app has already called ImGui::Begin).
  virtual void draw(const DrawContext& ctx) = 0;

  // Every figure the panel shows, built from its current core results (plain data, no ImGui), in the order
  // shown. Used by `export`, scene tests and the figure tests. Figure ids must be unique within the panel.
  // Call update() (and wait_idle()) first; an empty vector means the panel has no figures.
  virtual std::vector<plot::Figure> figures() { return {}; }
  // The figures on screen now: what draw() shows, from the panel's own cache of its current results. Slide mode
  // draws these, so a slide and the panel window follow one recompute path (never a copy of the state that can
  // fall behind the results). The default rebuilds figures() on every call; a panel with a figure cache returns it.
  virtual const std::vector<plot::Figure>& shown_figures() {
    shown_default_ = figures();
    return shown_default_;
  }
  // The figure ids the panel's on-screen layout places (views/widgets.h FigureLayout), in layout order; empty for a
  // panel that lays out its figures by hand.
  virtual std::vector<std::string> layout_figure_ids() const { return {}; }
  // Blocks until results requested by update() are ready. Panels that recompute on a worker thread override
  // this; headless callers always call update(); wait_idle(); before figures().
  virtual void wait_idle() {}
  // Blocks until the panel shows an answer for its current state: the same as wait_idle(), except for a panel
  // that answers first with a cheaper result marked pending and refines it on the worker (RecomputePanel's
  // refine hook); then only the first answer is waited for. The perf report times both.
  virtual void wait_answer() { wait_idle(); }

  // Why the panel shows no figures ("" when it shows them): a validation message naming the bad field. Headless
  // export prints it; the panel shows it where its figures would be.
  virtual std::string error() const { return ""; }
  // Everything wrong with the current results as one line, blocking or not (a softmax logits row that is not a
  // list of numbers leaves the other figures standing): what headless export prints per panel. Default: error().
  virtual std::string problem() const { return error(); }
  // True while a job runs or the panel animates (training playing): the app keeps drawing frames. Otherwise an
  // idle window waits for input instead of redrawing.
  virtual bool busy() const { return false; }
  // A panel with a stepper (the forward pass) moves it by a clicker's step and returns true; false: it has none.
  // Slide mode sends the clicker here, since the panel's own window (which reads the keys when focused) is hidden.
  virtual bool presenter_step(PresenterStep) { return false; }

  // Recomputes the UI does not wait for run below the UI thread's priority (see run_with_priority). The GUI turns
  // this on; headless callers wait for every result, so there a lower priority would only slow them down.
  void set_background_priority(bool on) { background_priority_ = on; }
  bool background_priority() const { return background_priority_; }

  // What this panel hands to other panels and receives from them (views/handoffs.h). The app state shares its one
  // Handoffs with every panel it owns; a panel that was never given one (headless export, a test, a preview) makes
  // its own on first use, so it neither steers nor sees anyone else's.
  void set_handoffs(std::shared_ptr<Handoffs> handoffs) { handoffs_ = std::move(handoffs); }
  Handoffs& handoffs();

 protected:
  virtual void bind(Controls& c) = 0;
  // True when any control's value differs from what it was at the previous call (always true the first time):
  // update() recomputes only on change, whether the change came from a widget, a scene file or --set.
  bool controls_changed() {
    std::string now = controls_->to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (now == last_controls_) return false;
    last_controls_ = std::move(now);
    return true;
  }

 private:
  std::unique_ptr<Controls> controls_;
  std::string last_controls_;  // controls as JSON text at the last controls_changed()
  bool background_priority_ = false;
  std::shared_ptr<Handoffs> handoffs_;       // shared with the app state's other panels, or this panel's own
  std::vector<plot::Figure> shown_default_;  // shown_figures() of a panel without a cache of its own
};

// The figures a panel shows on screen, rebuilt only when what they are computed from changes. draw() runs every
// frame and building a figure copies every data vector, while results change only when a control does:
//   const auto& figs = shown_.get(result_, [this] { return figures(); });   // result_: a shared_ptr, a counter, ...
// `Source` is compared with ==; keep it a value or an owning pointer, so a new result never looks like the old one.
// Switching the interface language rebuilds them too.
template <class Source>
class FigureCache {
 public:
  template <class Build>
  const std::vector<plot::Figure>& get(const Source& source, Build&& build) {
    if (!valid_ || !(source == source_) || language_ != language()) {  // figure text is in the interface language
      figures_ = build();
      source_ = source;
      language_ = language();
      valid_ = true;
    }
    return figures_;
  }
  // Forgets the figures and the source (which may own a large result) until the next get().
  void clear() {
    source_ = Source{};
    figures_.clear();
    valid_ = false;
  }

 private:
  Source source_{};
  std::vector<plot::Figure> figures_;
  bool valid_ = false;
  Language language_ = Language::En;
};

using PanelFactory = std::function<std::unique_ptr<Panel>()>;

// Registration happens during static initialisation; returns true so it can initialise a static bool.
bool register_panel(PanelFactory factory);
// Every registered panel, constructed fresh with controls bound, sorted by category then name.
std::vector<std::unique_ptr<Panel>> make_all_panels();
std::unique_ptr<Panel> make_panel(const std::string& id);  // nullptr when no panel has that id
std::vector<PanelInfo> panel_infos();                      // sorted like make_all_panels()

#define TW_CONCAT_INNER(a, b) a##b
#define TW_CONCAT(a, b) TW_CONCAT_INNER(a, b)
#define TW_REGISTER_PANEL(Type)                                    \
  static const bool TW_CONCAT(tw_registered_panel_, __COUNTER__) = \
      ::tw::register_panel([] { return std::unique_ptr<::tw::Panel>(new Type()); })

}  // namespace tw
