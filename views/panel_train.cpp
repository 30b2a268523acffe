// Training panel: train a small Transformer live on a toy task and watch its loss, accuracy, gradients and
// attention maps change. All training runs in core (TrainerSession on a worker thread); this file turns controls
// into TrainSettings and draws; the figures are built in views/train/train_figures.cpp.
//
// [SECTION] panel: controls, toolbar, sample, figures
#include "views/panel_train.h"
#include "views/train/train_settings.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "views/model_handoff.h"
#include "views/plot/plot_imgui.h"
#include "views/text/panel_text.h"
#include "views/train_handoff.h"
#include "views/widgets.h"

namespace tw {

namespace {

const std::vector<std::string> kTaskNames = {"copy", "sort", "reverse", "modadd", "text"};

// A labelled divider between groups of controls (ImGui 1.86 has no SeparatorText).
void section(const char* label) {
  ImGui::Separator();
  ImGui::TextDisabled("%s", label);
}

}  // namespace

// [SECTION] panel

namespace {

class TrainPanel final : public Panel {
 public:
  PanelInfo info() const override {
    return {"train", "Training", "Training",
            "Train a small Transformer live on copy/sort/reverse/modular addition/text; watch loss and attention"};
  }

  bool settings(TrainSettings* out, int* steps, std::string* error) const {
    if (steps) *steps = s_.steps;
    return train_settings_of_state(s_, out, error);
  }

  std::shared_ptr<const TrainSnapshot> snapshot() const { return session_.snapshot(); }

  void update() override {
    if (auto posted = take_posted_values(info().id)) apply_posted(*posted);
    if (std::optional<TrainComparison> c = take_train_comparison()) start_comparison(std::move(*c));
    // A setting the user changed starts a run that is no longer the comparison's.
    if (apply_settings()) compare_.phase = ComparePhase::None;
    advance_comparison();
    publish_training_run(session_.snapshot());
  }
  // Headless (export, tests): a posted comparison runs to its end, both runs.
  void wait_idle() override {
    session_.wait_idle();
    while (advance_comparison()) session_.wait_idle();
    publish_training_run(session_.snapshot());
  }
  bool busy() const override { return session_.running(); }  // curves and maps move while it plays

  std::vector<plot::Figure> figures() override { return train_figures(*session_.snapshot(), s_.steps); }

  void draw(const DrawContext& ctx) override {
    panel_explanation(panel_text(info().id));
    const std::shared_ptr<const TrainSnapshot> snap = session_.snapshot();
    begin_controls_column(ctx, 340);
    draw_toolbar(*snap);
    draw_comparison(*snap);
    ImGui::Separator();
    for (const Control& c : controls().all()) {
      if (c.key == "task") section("Task");
      if (c.key == "layers") section("Model");
      if (c.key == "experts") section("Mixture of experts");
      if (c.key == "optimizer") section("Optimization");
      if (c.key == "steps_per_frame") section("Speed");
      if (!visible(c.key)) continue;
      ImGui::SetNextItemWidth(150 * ctx.dpi_scale);
      draw_control(c);
      if (c.key == "aux_coef" || (c.key == "experts" && s_.experts < 2)) draw_parameter_estimate(*snap);
    }
    section("Checkpoint");
    draw_checkpoint(*snap);
    begin_figures_column();
    if (!error_.empty()) warning_text(error_.c_str());
    if (!snap->ready) {
      empty_state(error_.empty() ? "Preparing the first run..." : "Fix the setting above to start a run.");
      ImGui::EndChild();
      return;
    }
    draw_sample(*snap);
    const std::vector<plot::Figure>& figs = shown_.get(snap, [&] { return train_figures(*snap, s_.steps); });
    // Curves flow in as many columns as fit (at least kReadableFigureWidth each); the attention grid gets the full
    // width.
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const int cols = std::clamp(int((avail + spacing) / (kReadableFigureWidth * ctx.dpi_scale + spacing)), 1, 3);
    const float w = (avail - spacing * float(cols - 1)) / float(cols);
    const size_t order[] = {0, 1, 2, 3, 6, 5};  // loss, accuracy, grad norm, lr, log Z, head scores
    for (size_t i = 0; i < std::size(order); ++i) {
      if (i % size_t(cols) != 0) ImGui::SameLine();
      plot::draw_figure(figs[order[i]], ctx, "train", ImVec2(w, w * 0.7f));
    }
    const int L = snap->settings.model.n_layers, H = snap->settings.model.n_heads;
    const float cell = std::min(avail / float(H), 260.0f * ctx.dpi_scale);
    plot::draw_figure(figs[4], ctx, "train", ImVec2(cell * float(H), cell * float(L) + 60 * ctx.dpi_scale));
    for (size_t i = 7; i < figs.size(); ++i) {  // MoE: load per expert, balance loss
      if ((i - 7) % size_t(cols) != 0) ImGui::SameLine();
      plot::draw_figure(figs[i], ctx, "train", ImVec2(w, w * 0.7f));
    }
    ImGui::EndChild();
  }

 protected:
  void bind(Controls& c) override {
    c.add_enum("task", &s_.task, kTaskNames, "task",
               "copy: a random sequence then the same again (needs an induction head); sort / reverse: the prompt "
               "sorted or reversed; modadd: a + b mod p; text: next character of your text.");
    c.add_int("length", &s_.length, 1, 64, "prompt length n", "Symbols in the prompt (copy, sort, reverse).");
    c.add_int("alphabet", &s_.alphabet, 2, 64, "alphabet", "Distinct symbols the prompt draws from (A, B, C, ...).");
    c.add_bool("vary_period", &s_.vary_period, "vary the period",
               "copy: the repeat starts after a random filler, so its offset changes every sample and only "
               "content-based attention (an induction head) can find it.");
    c.add_int("modulus", &s_.modulus, 2, 211, "modulus p", "modadd: answers (a + b) mod p; vocabulary p + 2.");
    c.add_text("text", &s_.text, 65536, "text", "Text for the text task (its characters are the vocabulary).");
    c.add_text("text_file", &s_.text_file, 4096, "text file",
               "Path of a text file to train on instead of the typed text (text task).");
    c.add_int("context", &s_.context, 2, 256, "context", "Characters per training window (text task).");
    c.add_int("val_examples", &s_.val_examples, 16, 2048, "held-out examples",
              "Size of the fixed held-out set the accuracy is measured on.", true);
    c.add_int("layers", &s_.layers, 1, 8, "layers", "Transformer blocks.");
    c.add_int("dim", &s_.dim, 8, 512, "dim C", "Width of the residual stream.", true);
    c.add_int("heads", &s_.heads, 1, 16, "heads H", "Query heads; head dim D = C / H.");
    c.add_int("kv_heads", &s_.kv_heads, 1, 16, "KV heads",
              "Key/value heads: = H is MHA, 1 is MQA, between is GQA (must divide H).");
    c.add_int("hidden", &s_.hidden, 0, 4096, "MLP hidden F", "MLP hidden size; 0 = 4 \xC3\x97 dim.");
    c.add_int("vocab", &s_.vocab, 0, 65536, "model vocabulary",
              "Model vocabulary size; 0 = exactly the task's. Smaller than the task's is refused.");
    c.add_enum("positions", &s_.positions, {"none", "learned", "sinusoidal", "rope", "alibi"}, "positions",
               "How the model knows token order.");
    c.add_enum("norm", &s_.norm, {"rmsnorm", "layernorm"}, "norm", "RMSNorm (LLaMA) or LayerNorm (GPT-2).");
    c.add_enum("placement", &s_.placement, {"pre", "post"}, "norm placement",
               "pre: x + f(Norm(x)) (LLaMA); post: Norm(x + f(x)) (2017), unstable at high learning rates.");
    c.add_enum("activation", &s_.activation, {"relu", "gelu", "swiglu", "geglu"}, "MLP activation",
               "MLP non-linearity; SwiGLU/GeGLU add a gate matrix.");
    c.add_enum("attn_scale", &s_.attn_scale, {"1/sqrt(d_k)", "none", "1/d_k"}, "attention scale",
               "Factor on q\xC2\xB7k: without 1/\xE2\x88\x9A"
               "d_k the softmax saturates and learning slows.");
    c.add_bool("qk_norm", &s_.qk_norm, "QK-norm",
               "RMS-normalise q and k per head (learned \xCE\xB3) before q\xC2\xB7k.");
    c.add_float("softcap", &s_.softcap, 0.0f, 100.0f, "soft-cap", "Scores become c\xC2\xB7tanh(S/c); 0 = off.", false,
                "%.3g");
    c.add_bool("tie", &s_.tie, "tie embeddings", "The LM head reuses the token embedding matrix.");
    c.add_int("experts", &s_.experts, 0, kMaxExperts, "experts E",
              "Mixture of experts: each block's MLP becomes E expert MLPs (hidden F each) behind a router; "
              "0 or 1 = one dense MLP.");
    c.add_int("top_k", &s_.top_k, 1, kMaxExperts, "top-k",
              "Experts each token is sent to; their outputs are mixed with the router probabilities renormalised "
              "over the k (Mixtral). With k = 1 the gate is always 1, so only the balance loss trains the router.");
    c.add_float("capacity_factor", &s_.capacity_factor, 0.0f, 8.0f, "capacity factor",
                "Each expert takes at most \xE2\x8C\x88"
                "factor\xC2\xB7N\xC2\xB7k / E\xE2\x8C\x89 of a batch's N "
                "tokens; the rest skip the MLP on the residual stream (Switch). 0 = no limit.",
                false, "%.3g");
    c.add_float("aux_coef", &s_.aux_coef, 0.0f, 1.0f, "balance loss coef",
                "\xCE\xB1 of the load-balancing loss \xCE\xB1\xC2\xB7"
                "E\xC2\xB7\xCE\xA3 f_e\xC2\xB7P_e added to the "
                "training loss (Switch: 0.01); it is k when the load is even.",
                false, "%.3g");
    c.add_enum("optimizer", &s_.optimizer, {"adamw", "sgd"}, "optimizer",
               "AdamW (as torch.optim.AdamW) or SGD with momentum 0.9.");
    c.add_float("lr", &s_.lr, 1e-5f, 10.0f, "learning rate", "Peak learning rate; too high and training diverges.",
                true, "%.4g");
    c.add_int("batch", &s_.batch, 1, 512, "batch", "Sequences per step.", true);
    c.add_int("steps", &s_.steps, 1, 100000, "steps", "Length of the run: play stops here; the cosine ends here.",
              true);
    c.add_int("warmup", &s_.warmup, 0, 10000, "warmup steps", "Linear warmup from lr/W to lr over W steps.");
    c.add_float("weight_decay", &s_.weight_decay, 0.0f, 1.0f, "weight decay",
                "Decoupled decay of the weight matrices (not norms or embeddings).", false, "%.3g");
    c.add_bool("decay_all", &s_.decay_all, "decay norms + embeddings",
               "Also apply weight decay to norm gains/biases and embeddings (usually left out).");
    c.add_float("clip", &s_.clip, 0.0f, 100.0f, "clip grad norm", "Scale gradients down to this global norm; 0 = off.",
                false, "%.3g");
    c.add_float("z_loss", &s_.z_loss, 0.0f, 1.0f, "z-loss coef",
                "Adds coef\xC2\xB7log\xC2\xB2 Z to the loss, pulling the softmax normaliser toward 1 (PaLM: 1e-4); "
                "0 = off.",
                false, "%.3g");
    c.add_int("seed", &s_.seed, 0, 1000000, "seed", "Seeds the weights, batches, held-out set and probe.");
    c.add_int("eval_every", &s_.eval_every, 1, 1000, "evaluate every", "Steps between held-out evaluations.", true);
    c.add_int("steps_per_frame", &s_.steps_per_frame, 1, 1000, "steps per frame",
              "Training steps between screen updates (changing it keeps the run).", true);
  }

 private:
  // Starts a new run when the controls (speed aside) changed since the current run began; true when it did.
  // Invalid settings keep the previous run and show why.
  bool apply_settings() {
    session_.set_steps_per_publish(s_.steps_per_frame);
    nlohmann::json j = controls().to_json();
    j.erase("steps_per_frame");  // speed changes keep the run
    std::string now = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (now == last_settings_) return false;
    last_settings_ = std::move(now);
    TrainSettings t;
    std::string error;
    if (train_settings_of_state(s_, &t, &error) && session_.reset(t, &error)) {
      error_.clear();
      session_.set_max_steps(s_.steps);
      return true;
    }
    error_ = error;  // the previous run (if any) stays as it was
    return false;
  }

  // [SECTION] compare runs handed over by another panel (views/train_handoff.h)
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
    if (!snap->message.empty()) label += " (diverged after step " + std::to_string(snap->step) + ")";
    session_.pin_current(label);
    compare_.phase = ComparePhase::Variant;
    begin_run(compare_.c.variant);
    return compare_.phase == ComparePhase::Variant;
  }

  void draw_comparison(const TrainSnapshot& snap) {
    if (compare_.phase == ComparePhase::None) return;
    ImGui::Separator();
    ImGui::TextWrapped("Comparison: %s", compare_.c.title.c_str());
    if (compare_.phase == ComparePhase::Done) {
      ImGui::TextWrapped("pinned: %s; current run: %s", compare_.c.baseline_label.c_str(),
                         compare_.c.variant_label.c_str());
      if (ImGui::SmallButton("Dismiss")) compare_.phase = ComparePhase::None;
      return;
    }
    const bool first = compare_.phase == ComparePhase::Baseline;
    const float total = 2.0f * float(std::max(s_.steps, 1));
    const float done = float(snap.step) + (first ? 0.0f : float(s_.steps));
    const std::string label = std::string(first ? "run 1 of 2: " : "run 2 of 2: ") +
                              (first ? compare_.c.baseline_label : compare_.c.variant_label);
    if (job_progress(std::min(done / total, 1.0f), label.c_str())) {
      session_.pause();
      compare_.phase = ComparePhase::None;
    }
    if (!session_.running()) ImGui::TextDisabled("paused: Play continues the comparison");
  }

  bool visible(const std::string& key) const {
    const auto kind = static_cast<TaskKind>(s_.task);
    const bool symbolic = kind == TaskKind::Copy || kind == TaskKind::Sort || kind == TaskKind::Reverse;
    if (key == "length" || key == "alphabet") return symbolic;
    if (key == "vary_period") return kind == TaskKind::Copy;
    if (key == "modulus") return kind == TaskKind::ModAdd;
    if (key == "text" || key == "text_file" || key == "context") return kind == TaskKind::Text;
    if (key == "top_k" || key == "capacity_factor" || key == "aux_coef") return s_.experts >= 2;
    return true;
  }

  void draw_toolbar(const TrainSnapshot& snap) {
    const bool running = session_.running();
    if (ImGui::Button(running ? "Pause" : "Play")) running ? session_.pause() : session_.play();
    ImGui::SameLine();
    if (ImGui::Button("Step")) session_.step_once();
    ImGui::SameLine();
    if (ImGui::Button("Reset")) {
      last_settings_.clear();  // update() restarts the run from the current settings
      update();
    }
    ImGui::SameLine();
    if (ImGui::Button("Pin run")) {
      session_.pin_current(std::to_string(++pin_counter_) + ": " + run_label());
    }
    ImGui::SameLine();
    help_marker("Pin keeps this run's curves as a faded overlay (up to 4) to compare with the next run.");
    if (!snap.pinned.empty()) {
      if (ImGui::SmallButton("Clear pinned runs")) session_.clear_pins();
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
    ImGui::Text("step %d / %d%s", snap.step, s_.steps, running ? "  (training)" : "");
    if (last) {
      ImGui::Text("train loss %.4f   held-out loss %.4f", last->train_loss, val);
      ImGui::Text("accuracy %.1f%%   %.2f ms/step", 100 * acc, snap.ms_per_step);
    }
    if (!snap.message.empty()) warning_text(snap.message.c_str());
  }

  // Values another panel handed over (the MoE panel's "Train this" button): applied when this panel accepts them.
  void apply_posted(const nlohmann::json& values) {
    if (!values.is_object()) return;
    for (const auto& [key, value] : values.items())
      if (Control* c = controls().find(key); c && !c->check(value, info().id + "." + key)) c->set(value);
  }

  // Parameters of the current run (total; a MoE model also its active ones) and what they cost to train.
  void draw_parameter_estimate(const TrainSnapshot& snap) {
    if (!snap.ready) return;
    const ModelConfig& m = snap.settings.model;
    const double total = double(parameter_count(m)), active = double(active_parameter_count(m));
    // Training holds each parameter four times in float32: weights, gradients and AdamW's two moments.
    const double mib = 4.0 * 4.0 * total / (1024.0 * 1024.0);
    if (m.moe())
      ImGui::TextWrapped("parameters %.0f, active per token %.0f (%.0f%%); weights + grads + AdamW %.2f MiB", total,
                         active, 100 * active / total, mib);
    else
      ImGui::TextWrapped("parameters %.0f; weights + grads + AdamW %.2f MiB", total, mib);
  }

  std::string run_label() const {
    static const char* scales[] = {"1/sqrt(d_k)", "no scale", "1/d_k"};
    return std::string(s_.placement == 0 ? "pre" : "post") + ", " + scales[std::clamp(s_.attn_scale, 0, 2)] +
           (s_.qk_norm ? ", QK-norm" : "") + (s_.softcap > 0 ? ", soft-cap " + plot::fmt("%.3g", s_.softcap) : "") +
           (s_.z_loss > 0 ? ", z-loss " + plot::fmt("%.3g", s_.z_loss) : "") + ", lr " + plot::fmt("%.3g", s_.lr);
  }

  void draw_checkpoint(const TrainSnapshot& snap) {
    ImGui::SetNextItemWidth(200);
    ImGui::InputText("##dir", checkpoint_dir_, sizeof checkpoint_dir_);
    ImGui::SameLine();
    help_marker(
        "Directory for model.safetensors + config.json (Hugging Face names; bench/pytorch_forward.py loads it).");
    if (ImGui::Button("Save") && snap.ready) {
      std::error_code ec;
      std::filesystem::create_directories(checkpoint_dir_, ec);
      const std::filesystem::path d(checkpoint_dir_);
      std::string error;
      if (!ec && save_weights((d / "model.safetensors").string(), snap.weights, snap.settings.model, &error) &&
          save_config((d / "config.json").string(), snap.settings.model, &error))
        checkpoint_status_ = "saved step " + std::to_string(snap.step) + " to " + d.string();
      else
        checkpoint_status_ = ec ? "cannot create " + d.string() + ": " + ec.message() : error;
    }
    ImGui::SameLine();
    if (ImGui::Button("Load")) {
      std::string error;
      checkpoint_status_ =
          session_.load_checkpoint(checkpoint_dir_, &error) ? std::string("loaded ") + checkpoint_dir_ : error;
    }
    ImGui::SameLine();
    if (ImGui::Button("Open in forward stepper") && snap.ready) {
      if (snap.settings.model.moe())  // its inference pass has one dense MLP per block
        checkpoint_status_ = "the forward stepper runs dense models only: set experts to 0 to open a run there";
      else
        post_model("forward",
                   task_stepper_model(snap.settings.model, std::make_shared<const ModelWeights>(snap.weights),
                                      snap.task, "Training panel model",
                                      "the Training panel's model at step " + std::to_string(snap.step)));
    }
    help_marker("Hands a copy of the current weights to the Forward pass stepper (training goes on here).");
    if (!checkpoint_status_.empty()) ImGui::TextWrapped("%s", checkpoint_status_.c_str());
  }

  // The probe example: prompt tokens grey, answer tokens green when predicted right, red when wrong.
  void draw_sample(const TrainSnapshot& snap) {
    ImGui::TextUnformatted("probe:");
    const TaskSample& p = snap.probe;
    for (size_t t = 0; t < p.tokens.size(); ++t) {
      ImGui::SameLine();
      const std::string tok = snap.task.token_string(p.tokens[t]);
      if (!p.answer[t]) {
        ImGui::TextDisabled("%s", tok.c_str());
        continue;
      }
      const bool right =
          t >= 1 && t - 1 < snap.probe_predictions.size() && snap.probe_predictions[t - 1] == p.tokens[t];
      role_text(right ? plot::UiRole::Good : plot::UiRole::Bad, tok.c_str());
      if (ImGui::IsItemHovered() && t >= 1 && t - 1 < snap.probe_predictions.size())
        ImGui::SetTooltip("answer %s, model predicts %s", tok.c_str(),
                          snap.task.token_string(snap.probe_predictions[t - 1]).c_str());
    }
    ImGui::SameLine();
    help_marker("Grey: prompt. Coloured: answer tokens (green = the model's arg-max prediction is right).");
  }

  TrainPanelState s_;
  std::string last_settings_;  // controls (without speed) of the current run, as JSON text
  std::string error_;          // why the current settings cannot train (the previous run stays)
  char checkpoint_dir_[512] = "checkpoints/train";
  std::string checkpoint_status_;
  int pin_counter_ = 0;
  enum class ComparePhase { None, Baseline, Variant, Done };
  struct Comparison {
    TrainComparison c;
    ComparePhase phase = ComparePhase::None;
  } compare_;
  FigureCache<std::shared_ptr<const TrainSnapshot>> shown_;
  TrainerSession session_;  // declared last: its worker joins before the members above go away
};

}  // namespace

bool train_settings_of_panel(Panel& panel, TrainSettings* out, int* steps, std::string* error) {
  auto* p = dynamic_cast<TrainPanel*>(&panel);
  if (!p) {
    *error = "not the Training panel";
    return false;
  }
  return p->settings(out, steps, error);
}

bool trained_model_of_panel(Panel& panel, ModelConfig* config, ModelWeights* weights) {
  auto* p = dynamic_cast<TrainPanel*>(&panel);
  if (!p) return false;
  const std::shared_ptr<const TrainSnapshot> snap = p->snapshot();
  if (!snap->ready) return false;
  *config = snap->settings.model;
  *weights = snap->weights;
  return true;
}

TW_REGISTER_PANEL(TrainPanel);

}  // namespace tw
