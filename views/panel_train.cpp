// Training panel: train a small Transformer live on a toy task and watch its loss, accuracy, gradients and
// attention maps change. All training runs in core (TrainerSession on a worker thread); this file runs the session
// from the controls, compares runs handed over by another panel, and draws. Its pieces live in views/train/: the
// state and its TrainSettings (train_settings), the controls (train_controls), the figures (train_figures) and the
// checkpoint row (train_checkpoint).
//
// [SECTION] panel: controls, toolbar, sample, figures
#include "views/panel_train.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "views/file_browser.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/text/panel_text.h"
#include "views/train/train_checkpoint.h"
#include "views/train/train_controls.h"
#include "views/train/train_finetune.h"
#include "views/train/train_language.h"
#include "views/train/train_readouts.h"
#include "views/train/train_settings.h"
#include "views/widgets.h"

namespace tw {

namespace train_panel {

// A labelled divider between groups of controls (ImGui 1.86 has no SeparatorText).
void section(const char* label) {
  ImGui::Separator();
  ImGui::TextDisabled("%s", label);
}

// The figures of train_figures() by id, in the order draw() places them: curves flow in as many columns as fit,
// the attention grid gets the full width, a MoE run's load and balance figures follow.
constexpr std::array<const char*, 6> kCurveFigures = {"loss", "accuracy", "grad_norm", "lr", "log_z", "head_scores"};
constexpr std::array<const char*, 2> kExpertFigures = {"expert_load", "balance_loss"};

}  // namespace train_panel

// [SECTION] panel

namespace train_panel {

class TrainPanel final : public Panel {
 public:
  TrainPanel() { session_.set_on_publish(&notify_result_ready); }  // a new point wakes an idle window

  PanelInfo info() const override {
    return {"train", N_("Training"), N_("Training"),
            N_("Train a small Transformer live on copy/sort/reverse/modular addition/text; watch loss and attention")};
  }

  // The run's settings with the fine-tune choices applied (`train` honours train.ft_* as the panel does).
  bool settings(TrainSettings* out, int* steps, std::string* error, double memory_cap_mb) {
    if (steps) *steps = s_.steps;
    TrainPanelState s = s_;
    if (memory_cap_mb > 0) s.model.memory_cap_mb = memory_cap_mb;
    if (!finetune_.sync(error)) return false;  // headless: loads the start model now
    s.task.language.tokenizer_json = finetune_.language_tokenizer();
    return train_settings_of_state(s, out, error) && finetune_.apply(out, error);
  }

  std::shared_ptr<const TrainSnapshot> snapshot() const { return session_.snapshot(); }

  void update() override {
    if (auto posted = handoffs().take_posted_values(info().id)) apply_posted(*posted);
    if (std::optional<TrainComparison> c = handoffs().take_train_comparison()) start_comparison(std::move(*c));
    finetune_.poll(background_priority());  // a start model loaded on the worker restarts the run
    // A setting the user changed starts a run that is no longer the comparison's.
    // A run whose tokenizer this frame sent to the worker starts on a later frame, when it is built.
    data_requested_ = false;
    if (apply_settings() || (!data_requested_ && start_prepared_run())) compare_.phase = ComparePhase::None;
    advance_comparison();
    handoffs().publish_training_run(session_.snapshot());
  }
  // Headless (export, tests): a posted comparison runs to its end, both runs.
  void wait_idle() override {
    language_data_.wait();
    start_prepared_run();
    session_.wait_idle();
    while (advance_comparison()) session_.wait_idle();
    handoffs().publish_training_run(session_.snapshot());
  }
  // Curves and maps move while it plays; a language run's tokenizer trains before it starts.
  bool busy() const override { return session_.running() || finetune_.loading() || language_data_.busy(); }
  std::string problem() const override { return error_; }  // settings that cannot train; the last run stays

  std::vector<plot::Figure> figures() override { return train_figures(*session_.snapshot(), s_.steps); }
  const std::vector<plot::Figure>& shown_figures() override {
    const std::shared_ptr<const TrainSnapshot> snap = session_.snapshot();
    return shown_.get(snap, [&] { return train_figures(*snap, s_.steps); });
  }
  // The ids draw() places: the curves, the attention grid, and a MoE run's two figures.
  std::vector<std::string> layout_figure_ids() const override {
    std::vector<std::string> ids(kCurveFigures.begin(), kCurveFigures.end());
    ids.push_back("attention");
    if (s_.model.moe()) ids.insert(ids.end(), kExpertFigures.begin(), kExpertFigures.end());
    return ids;
  }

  void draw(const DrawContext& ctx) override {
    panel_explanation(panel_text(info().id));
    const std::shared_ptr<const TrainSnapshot> snap = session_.snapshot();
    begin_controls_column(ctx, 340);
    draw_toolbar(*snap);
    draw_comparison(*snap);
    ImGui::Separator();
    // Fine-tuning a loaded model: its architecture and (on text) its tokenizer are the model's, so the controls
    // that would set them are left out, with one line saying whose they are.
    const bool from_model = finetune_.enabled && finetune_.model;
    const bool model_tokenizer = !finetune_.language_tokenizer().empty();
    bool architecture = false;  // inside the Model and Mixture of experts groups
    for (const Control& c : controls().all()) {
      if (const char* heading = train_group_starting_at(c.key)) {
        const bool was = architecture;
        architecture = c.key == "layers" || c.key == "experts";
        if (!(from_model && architecture)) section(tr(heading));
        if (from_model && architecture && !was) {
          section(tr("Model"));
          ImGui::TextWrapped("%s", subst(tr("fine-tuning: the architecture comes from {0} (Fine-tuning section below)"),
                                         {finetune_.model->name})
                                       .c_str());
        }
      }
      if (from_model && architecture) continue;
      if (model_tokenizer && (c.key == "tokenizer" || c.key == "lm_vocab")) continue;
      if (!train_control_shown(s_, c.key) || TrainFinetune::owns_control(c.key)) continue;
      ImGui::SetNextItemWidth(150 * ctx.dpi_scale);
      draw_control(c);
      if (c.key == "text_file") {  // the chosen file changes the settings, so the next apply starts its run
        ImGui::SameLine();
        browse_button("text_file", text_browser_, &s_.text_file);
      }
      if (c.key == "aux_coef" || (c.key == "experts" && !s_.model.moe())) draw_parameter_estimate(*snap);
    }
    section(tr("Fine-tuning"));
    finetune_.draw(*snap, controls());
    section(tr("Checkpoint"));
    checkpoint_.draw(*snap, session_, handoffs());
    begin_figures_column();
    if (!error_.empty()) warning_text(error_.c_str());
    language_data_.draw_progress();
    if (!snap->ready) {
      empty_state(error_.empty() ? tr("Preparing the first run...") : tr("Fix the setting above to start a run."));
      ImGui::EndChild();
      return;
    }
    if (snap->task.language())
      draw_language_run(*snap);
    else
      draw_train_probe(*snap);
    const std::vector<plot::Figure>& figs = shown_figures();
    // Curves flow in as many columns as fit (at least kReadableFigureWidth each); the attention grid gets the full
    // width. Figures are found by id (kCurveFigures), so train_figures() may list them in any order.
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const int cols = std::clamp(int((avail + spacing) / (kReadableFigureWidth * ctx.dpi_scale + spacing)), 1, 3);
    const float w = (avail - spacing * float(cols - 1)) / float(cols);
    auto flow = [&](const auto& ids) {  // these figures, `cols` to a row
      size_t drawn = 0;
      for (const char* id : ids)
        if (const plot::Figure* f = find_figure(figs, id)) {
          if (drawn++ % size_t(cols) != 0) ImGui::SameLine();
          plot::draw_figure(*f, ctx, "train", ImVec2(w, w * 0.7f));
        }
    };
    flow(kCurveFigures);
    if (const plot::Figure* attention = find_figure(figs, "attention")) {
      const int L = snap->settings.model.n_layers, H = snap->settings.model.n_heads;
      const float cell = std::min(avail / float(H), 260.0f * ctx.dpi_scale);
      plot::draw_figure(*attention, ctx, "train", ImVec2(cell * float(H), cell * float(L) + 60 * ctx.dpi_scale));
    }
    flow(kExpertFigures);  // MoE runs only
    ImGui::EndChild();
  }

 protected:
  void bind(Controls& c) override {
    bind_train_controls(c, s_);
    finetune_.bind(c);  // ft_*: drawn in the Fine-tuning section
  }

 private:
  // Starts a new run when the controls (speed aside) changed since the current run began; true when it did.
  // Invalid settings keep the previous run and show why.
  bool apply_settings() {
    session_.set_steps_per_publish(s_.steps_per_frame);
    nlohmann::json j = controls().to_json();
    j.erase("steps_per_frame");  // speed changes keep the run
    j["fine_tuning"] = finetune_.version;
    std::string now = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (now == last_settings_) return false;
    last_settings_ = std::move(now);
    TrainSettings t;
    std::string error;
    LanguageSource source;
    // Fine-tuning a loaded model on a text: its own tokenizer.json encodes the text (a new model loaded increases
    // the fine-tune version, so this runs again with its tokenizer).
    s_.task.language.tokenizer_json = finetune_.language_tokenizer();
    if (s_.task.kind == TaskKind::Language && language_source_of_state(s_, &source, &error) &&
        language_data_.start_if_needed(source)) {  // the tokenizer trains on a worker; the run starts when it is done
      error_.clear();
      data_requested_ = true;
      return false;
    }
    if (error.empty() && train_settings_of_state(s_, &t, &error) && finetune_.apply(&t, &error) &&
        session_.reset(t, &error)) {
      error_.clear();
      session_.set_max_steps(s_.steps);
      return true;
    }
    error_ = error;  // the previous run (if any) stays as it was
    return false;
  }

  // Starts the run whose language data the worker has just built (now cached); true when it did.
  bool start_prepared_run() {
    std::string error;
    if (!language_data_.take(&error)) return false;
    if (!error.empty()) {
      error_ = error;  // failed or cancelled: the previous run stays
      return false;
    }
    last_settings_.clear();  // the same settings again: their data is ready now
    return apply_settings();
  }

  // [SECTION] compare runs handed over by another panel (views/handoffs.h)
  // The baseline trains to its last step (or until it diverges), is pinned, then the variant trains: the loss
  // figure shows both. Pause holds the comparison, Play continues it; changing a setting ends it.

  void start_comparison(TrainComparison c) {
    compare_ = {std::move(c), ComparePhase::Baseline};
    session_.clear_pins();
    begin_run(compare_.c.baseline);
  }

  void begin_run(const TrainPanelState& state) {
    const int speed = s_.steps_per_frame;  // the user's speed stays
    s_ = state;
    s_.steps_per_frame = speed;
    last_settings_.clear();
    if (apply_settings()) {
      session_.play();
    } else {
      compare_.phase = ComparePhase::None;  // error_ says why
    }
  }

  // Moves the comparison on when the current run has finished; true when it started the variant.
  bool advance_comparison() {
    if ((compare_.phase != ComparePhase::Baseline && compare_.phase != ComparePhase::Variant) || session_.running())
      return false;
    const std::shared_ptr<const TrainSnapshot> snap = session_.snapshot();
    if (snap->step < s_.steps && snap->message.empty()) return false;  // paused: Play continues it
    if (compare_.phase == ComparePhase::Variant) {
      compare_.phase = ComparePhase::Done;
      return false;
    }
    std::string label = compare_.c.baseline_label;
    if (!snap->message.empty()) label += subst(tr(" (diverged after step {0})"), {std::to_string(snap->step)});
    session_.pin_current(label);
    compare_.phase = ComparePhase::Variant;
    begin_run(compare_.c.variant);
    return compare_.phase == ComparePhase::Variant;
  }

  void draw_comparison(const TrainSnapshot& snap) {
    if (compare_.phase == ComparePhase::None) return;
    ImGui::Separator();
    ImGui::TextWrapped(tr("Comparison: %s"), compare_.c.title.c_str());
    if (compare_.phase == ComparePhase::Done) {
      ImGui::TextWrapped(tr("pinned: %s; current run: %s"), compare_.c.baseline_label.c_str(),
                         compare_.c.variant_label.c_str());
      if (ImGui::SmallButton(tr("Dismiss"))) compare_.phase = ComparePhase::None;
      return;
    }
    const bool first = compare_.phase == ComparePhase::Baseline;
    const float total = 2.0f * float(std::max(s_.steps, 1));
    const float done = float(snap.step) + (first ? 0.0f : float(s_.steps));
    const std::string label = subst(first ? tr("run 1 of 2: {0}") : tr("run 2 of 2: {0}"),
                                    {first ? compare_.c.baseline_label : compare_.c.variant_label});
    if (job_progress(std::min(done / total, 1.0f), label.c_str())) {
      session_.pause();
      compare_.phase = ComparePhase::None;
    }
    if (!session_.running()) ImGui::TextDisabled("%s", tr("paused: Play continues the comparison"));
  }

  void draw_toolbar(const TrainSnapshot& snap) {
    const bool running = session_.running();
    if (ImGui::Button(running ? tr("Pause") : tr("Play"))) running ? session_.pause() : session_.play();
    ImGui::SameLine();
    if (ImGui::Button(tr("Step"))) session_.step_once();
    ImGui::SameLine();
    if (ImGui::Button(tr("Reset"))) {
      last_settings_.clear();  // update() restarts the run from the current settings
      update();
    }
    ImGui::SameLine();
    if (ImGui::Button(tr("Pin run"))) {
      session_.pin_current(std::to_string(++pin_counter_) + ": " + run_label());
    }
    ImGui::SameLine();
    help_marker(tr("Pin keeps this run's curves as a faded overlay (up to 4) to compare with the next run."));
    if (!snap.pinned.empty()) {
      if (ImGui::SmallButton(tr("Clear pinned runs"))) session_.clear_pins();
    }
    if (!snap.ready) return;
    const MetricsRow* last = snap.history.empty() ? nullptr : &snap.history.back();
    double val = kNoValue, acc = kNoValue;
    for (auto it = snap.history.rbegin(); it != snap.history.rend(); ++it)
      if (std::isfinite(it->accuracy)) {
        val = it->val_loss;
        acc = it->accuracy;
        break;
      }
    ImGui::Text(tr("step %d / %d%s"), snap.step, s_.steps, running ? tr("  (training)") : "");
    if (last) {
      ImGui::Text(tr("train loss %.4f   held-out loss %.4f"), last->train_loss, val);
      ImGui::Text(tr("accuracy %.1f%%   %.2f ms/step"), 100 * acc, snap.ms_per_step);
    }
    if (!snap.message.empty()) warning_text(snap.message.c_str());
  }

  // Values another panel handed over (the MoE panel's "Train this" button): applied when this panel accepts them.
  void apply_posted(const nlohmann::json& values) {
    if (!values.is_object()) return;
    for (const auto& [key, value] : values.items())
      if (Control* c = controls().find(key); c && !c->check(value, info().id + "." + key)) c->set(value);
  }

  std::string run_label() const {
    const ModelConfig& m = s_.model;
    const std::string scale = m.attn_scale == ScaleMode::None ? tr("no scale") : scale_mode_formula(m.attn_scale);
    return std::string(m.family != Family::Llama ? std::string(hf_architecture(m.family)) + ", " : "") +
           (m.placement == NormPlacement::Pre ? tr("pre") : tr("post")) + ", " + scale +
           (m.qk_norm ? ", QK-norm" : "") +

           (m.attn_softcap > 0 ? ", soft-cap " + plot::fmt("%.3g", m.attn_softcap) : "") +
           (s_.z_loss > 0 ? ", z-loss " + plot::fmt("%.3g", s_.z_loss) : "") +
           (s_.dropout > 0 ? ", dropout " + plot::fmt("%.3g", s_.dropout) : "") + ", lr " +
           plot::fmt("%.3g", s_.optimizer.lr) + finetune_.label();
  }

  TrainPanelState s_;
  std::string last_settings_;  // controls (without speed) of the current run, as JSON text
  std::string error_;          // why the current settings cannot train (the previous run stays)
  TrainCheckpoint checkpoint_;
  FileBrowser text_browser_;  // the text file row's Browse...: any file (a UTF-8 check follows when it is read)
  TrainFinetune finetune_;
  int pin_counter_ = 0;
  enum class ComparePhase { None, Baseline, Variant, Done };
  struct Comparison {
    TrainComparison c;
    ComparePhase phase = ComparePhase::None;
  } compare_;
  FigureCache<std::shared_ptr<const TrainSnapshot>> shown_;
  LanguageDataJob language_data_;  // a language run's tokenizer, trained on a worker before the run starts
  bool data_requested_ = false;    // apply_settings sent a language run's data to the worker this frame
  TrainerSession session_;         // declared last: its worker joins before the members above go away
};

}  // namespace train_panel

bool train_settings_of_panel(Panel& panel, TrainSettings* out, int* steps, std::string* error, double memory_cap_mb) {
  auto* p = dynamic_cast<train_panel::TrainPanel*>(&panel);
  if (!p) {
    *error = "not the Training panel";
    return false;
  }
  return p->settings(out, steps, error, memory_cap_mb);
}

bool trained_model_of_panel(Panel& panel, ModelConfig* config, ModelWeights* weights) {
  auto* p = dynamic_cast<train_panel::TrainPanel*>(&panel);
  if (!p) return false;
  const std::shared_ptr<const TrainSnapshot> snap = p->snapshot();
  if (!snap->ready) return false;
  *config = snap->settings.model;
  *weights = snap->weights;
  return true;
}

TW_REGISTER_PANEL(train_panel::TrainPanel);

}  // namespace tw
