// Forward-pass stepper: a LLaMA-style model run on the user's text, one named Trace step at a time.
//
// [SECTION] panel state and class
// [SECTION] controls
// [SECTION] recompute (worker thread, latest request wins)
// [SECTION] stepping
// [SECTION] figures
// [SECTION] draw: left column (model, architecture, weights, input, step tree)
// [SECTION] draw: right column (transport, current step, strip, residual stream, next token, parameters)
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <tuple>
#include <utility>

#include "core/model/forward.h"
#include "core/tokenizer.h"
#include "views/forward/forward_draw.h"
#include "views/forward/forward_state.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace {

// [SECTION] panel state and class

// Requests below these sizes finish in well under a millisecond, so update() waits for them: the tiny model
// follows every keystroke within the same frame. Anything bigger stays on the worker and shows progress.
constexpr double kSyncMaxParams = 2e6;
constexpr double kSyncMaxFlops = 5e7;

using ResultPtr = std::shared_ptr<const ForwardResult>;

class ForwardPanel : public Panel {
 public:
  PanelInfo info() const override {
    return {"forward", "Forward pass stepper", "Model",
            "Step through every named step of a LLaMA-style forward pass on text you type"};
  }
  void update() override;
  void draw(const DrawContext& ctx) override;
  std::vector<plot::Figure> figures() override;
  void wait_idle() override {
    job_.wait();
    adopt();
    resolve_step();
  }

 protected:
  void bind(Controls& c) override;

 private:
  void request_if_changed();
  void adopt();           // takes a finished result from the worker, keeps the last valid one
  void resolve_step();    // s_.step (a name) → step_ index in the shown trace
  void go_to(int index);  // moves the current step and its name
  void draw_left(const DrawContext& ctx);
  void draw_model_editor(std::vector<std::string>& shown);
  // The config messages naming `field` that have not been shown beside an earlier field this frame.
  void draw_messages(const char* field, std::vector<std::string>& shown);
  void draw_right(const DrawContext& ctx);
  void draw_right_body(const DrawContext& ctx);
  void draw_transport();
  void draw_next_token(const DrawContext& ctx);
  // The next token after the run on screen, with the same random stream the next append will use.
  NextTokenChoice current_choice() const {
    if (!result_) return {};
    return choose_next_token(result_->run, sampling_config(s_), static_cast<uint64_t>(s_.sample_seed),
                             static_cast<int>(result_->appended.size()));
  }

  ForwardState s_;
  std::vector<std::string> problems_;  // why the config in the controls is invalid; the shown model stays
  std::string input_error_;            // why the text cannot run (too long, outside the vocabulary)
  std::string weights_error_;          // why the checkpoint could not be loaded
  std::string requested_key_;
  ResultPtr result_;  // the result on screen (last valid)
  int step_ = 0;      // index of s_.step in result_'s trace
  bool reveal_step_ = false;
  double play_clock_ = 0;  // seconds accumulated towards the next step while playing
  int shown_tab_ = -1;     // the tab selected on screen last frame (differs from s_.tab after a scene load)
  // Each tab's figure, rebuilt only when the result or what the tab shows of it changes (draw runs every frame).
  FigureCache<std::pair<ResultPtr, int>> shown_step_, shown_strip_, shown_residual_;  // (result, step or layer)
  FigureCache<ResultPtr> shown_params_;
  FigureCache<std::tuple<ResultPtr, float, int, float, int>> shown_next_;  // (result, sampling controls)
  NextTokenChoice next_choice_;                                            // the choice shown_next_ was built from
  Recompute<ForwardResult> job_;  // declared last: its worker is joined before the members above go away
};

// [SECTION] controls

void ForwardPanel::bind(Controls& c) {
  c.add_enum("model", &s_.model, {"tiny", "small", "custom"}, "Model",
             "tiny (dim 64, 2 layers) recomputes on every keystroke; small is the seed notes' config (dim 256, 4 "
             "layers, vocab 8192); custom uses the sizes below.");
  c.add_int("dim", &s_.dim, 1, 1024, "dim C", "Width of the residual stream (custom model only).");
  c.add_int("n_layers", &s_.n_layers, 1, 16, "layers", "Number of Transformer blocks (custom model only).");
  c.add_int("n_heads", &s_.n_heads, 1, 32, "query heads H", "Query heads; head_dim = dim / H (custom model only).");
  c.add_int("hidden", &s_.hidden, 1, 4096, "MLP hidden F", "MLP hidden size (custom model only).");
  c.add_int("vocab", &s_.vocab, 1, 32768, "vocab V",
            "Vocabulary size; the byte tokenizer needs at least 256 (custom model only).");
  c.add_int("max_seq", &s_.max_seq, 1, 1024, "max_seq", "Longest sequence the model accepts (custom model only).");
  c.add_int("gqa_ratio", &s_.gqa_ratio, 1, 32, "GQA ratio",
            "Query heads per key/value head: 1 is MHA, H is MQA; n_kv_heads = H / ratio.");
  c.add_enum("norm", &s_.norm, {"rmsnorm", "layernorm"}, "Norm",
             "RMSNorm (LLaMA) rescales by the root mean square; LayerNorm (GPT-2) also subtracts the mean and adds β.");
  c.add_enum("placement", &s_.placement, {"pre", "post"}, "Norm placement",
             "Pre-norm normalises the input of each sub-block; post-norm (2017 Transformer) normalises after the add.");
  c.add_enum("positions", &s_.positions, {"none", "learned", "sinusoidal", "rope", "alibi"}, "Positions",
             "How the model knows token order: added vectors (learned, sinusoidal), rotated q/k (RoPE) or a distance "
             "bias on the scores (ALiBi).");
  c.add_enum("activation", &s_.activation, {"relu", "gelu", "swiglu", "geglu"}, "MLP activation",
             "SwiGLU and GeGLU multiply an activated gate with a second projection; ReLU and GELU have no gate.");
  c.add_enum("pattern", &s_.pattern, {"full", "sliding", "interleaved"}, "Attention pattern",
             "full: every earlier token; sliding: the last W tokens (HF: 0 <= i - j < W); interleaved: sliding with "
             "every P-th layer full.");
  c.add_int("window", &s_.window, 1, 1024, "window W",
            "Keys a sliding layer sees, including the query itself (Hugging Face: 0 <= i - j < W; the Mistral "
            "reference code used i - j <= W, one key more).");
  c.add_int("full_every", &s_.full_every, 1, 16, "full every P",
            "Interleaved pattern: layer l is full when (l + 1) is a multiple of P.");
  c.add_enum("weights", &s_.weights, {"seeded", "checkpoint"}, "Weights",
             "seeded: a deterministic Gaussian init; checkpoint: a safetensors file written by `dump`.");
  c.add_int("seed", &s_.seed, 0, 1000000, "weight seed", "Seed of the weight init; same seed, same weights.");
  c.add_text("checkpoint", &s_.checkpoint, 4096, "checkpoint",
             "Path of a .safetensors file; a config.json beside it sets the architecture.");
  c.add_text("text", &s_.text, 1024, "text", "The input; every UTF-8 byte is one token.");
  c.add_bool("bos", &s_.bos, "prepend <bos>", "Start the sequence with the <bos> token (id 256).");
  c.add_int("generated", &s_.generated, 0, 64, "appended tokens",
            "Tokens sampled and appended one at a time through the KV cache after the prompt.");
  c.add_text("step", &s_.step, 128, "step", "The current step by its trace name, e.g. layers.0.attn.probs.");
  c.add_bool("play", &s_.play, "play", "Advance one step at a time at the speed below.");
  c.add_float("speed", &s_.speed, 0.25f, 20.0f, "speed", "Steps per second while playing.", true, "%.2f /s");
  c.add_enum("tab", &s_.tab, {"step", "strip", "residual", "next", "params"}, "view",
             "Which view the right-hand side shows: the current step, a layer's strip, the residual stream, the "
             "next token or the parameter table.");
  c.add_int("strip_layer", &s_.strip_layer, 0, 63, "strip layer", "Layer whose steps the strip figure shows.");
  c.add_float("temperature", &s_.temperature, 0.05f, 5.0f, "temperature",
              "Logits are divided by this before softmax: below 1 sharpens, above 1 flattens.", true);
  c.add_int("top_k", &s_.top_k, 0, 1000, "top-k", "Keep the k most likely tokens (ties at the k-th kept); 0 is off.");
  c.add_float("top_p", &s_.top_p, 0.01f, 1.0f, "top-p",
              "Keep the smallest set of most likely tokens whose probability reaches p; 1 is off.");
  c.add_int("sample_seed", &s_.sample_seed, 0, 1000000, "sample seed", "Seed of the sampled tokens.");
}

// [SECTION] recompute

void ForwardPanel::update() {
  request_if_changed();
  adopt();
  resolve_step();  // the step control may have changed (scene, --set, test) without a new result
}

void ForwardPanel::request_if_changed() {
  if (s_.model != ForwardModel_Custom) {
    // The editor shows the preset's sizes (greyed), so switching to custom starts from the model on screen.
    const ModelConfig preset = s_.model == ForwardModel_Small ? small_config() : tiny_config();
    s_.dim = preset.dim;
    s_.n_layers = preset.n_layers;
    s_.n_heads = preset.n_heads;
    s_.hidden = preset.hidden;
    s_.vocab = preset.vocab;
    s_.max_seq = preset.max_seq;
  }
  problems_.clear();
  const ModelConfig cfg = forward_config(s_, &problems_);
  if (!problems_.empty()) return;  // the last valid model stays on screen, with the messages beside the fields

  const std::vector<int> tokens = ByteTokenizer::encode(s_.text, s_.bos);
  WeightsSource source;
  source.seed = static_cast<uint64_t>(s_.seed);
  if (s_.weights == ForwardWeights_Checkpoint) source.checkpoint = s_.checkpoint;
  // A checkpoint may bring its own config, so token checks wait for the loaded model in that case.
  if (source.checkpoint.empty()) {
    input_error_ = check_tokens(cfg, tokens, 0);
    if (input_error_.empty() && static_cast<int>(tokens.size()) + s_.generated > cfg.max_seq)
      input_error_ = "the prompt plus " + std::to_string(s_.generated) + " appended tokens exceed max_seq " +
                     std::to_string(cfg.max_seq);
    if (!input_error_.empty()) return;
  } else if (s_.checkpoint.empty()) {
    weights_error_ = "enter the path of a .safetensors checkpoint";
    return;
  }

  const std::string model_key = config_to_json(cfg) + "|" + std::to_string(source.seed) + "|" + source.checkpoint;
  std::string key = model_key + "|";
  for (int t : tokens) key += std::to_string(t) + ",";
  // Sampling settings matter only once tokens are appended; the prompt's pass does not depend on them.
  char sampling_text[96];
  std::snprintf(sampling_text, sizeof sampling_text, "|%.9g|%d|%.9g|%d", s_.temperature, s_.top_k, s_.top_p,
                s_.sample_seed);
  const std::string prefix_key = key + sampling_text;
  key += "|" + std::to_string(s_.generated) + (s_.generated > 0 ? sampling_text : "");
  if (key == requested_key_) return;
  requested_key_ = key;

  const SamplingConfig sampling = sampling_config(s_);
  const uint64_t sample_seed = static_cast<uint64_t>(s_.sample_seed);
  const int generated = s_.generated;
  const ResultPtr previous = result_;
  // Cheap requests are waited for below, so the tiny model is current in the frame of the keystroke. Only when
  // the worker was idle: an expensive request still running (Small's weight init cannot be interrupted) would
  // otherwise block the UI until it finished.
  const bool cheap = static_cast<double>(parameter_count(cfg)) < kSyncMaxParams &&
                     forward_flops(cfg, static_cast<int>(tokens.size()) + generated) < kSyncMaxFlops;
  auto work = [cfg, source, tokens, generated, sampling, sample_seed, model_key, prefix_key, key,
               previous](Progress& progress) {
    const auto start = std::chrono::steady_clock::now();
    auto out = std::make_shared<ForwardResult>();
    out->key = key;
    out->model_key = model_key;
    out->prefix_key = prefix_key;
    out->prompt = tokens;
    // Text edits keep the weights: only a new config or source re-initialises them.
    if (previous && previous->model_key == model_key && previous->model.weights)
      out->model = previous->model;
    else
      out->model = load_model(cfg, source);
    progress.set(0.3f);
    if (!out->model.error.empty() || progress.cancelled()) return ResultPtr(out);
    // "Append and continue" asks for one token more than the run on screen: continue it through its KV cache
    // instead of re-running the prompt.
    if (previous && previous->prefix_key == prefix_key && previous->model.weights == out->model.weights &&
        static_cast<int>(previous->appended.size()) < generated && previous->run.ok()) {
      out->run = previous->run;
      out->appended = previous->appended;
    } else {
      out->run = run_prompt(out->model.config, out->model.weights, tokens);
    }
    while (static_cast<int>(out->appended.size()) < generated && out->run.ok() && out->run.append_error.empty()) {
      if (progress.cancelled()) return ResultPtr(out);
      const int i = static_cast<int>(out->appended.size());
      progress.set(0.4f + 0.6f * static_cast<float>(i) / static_cast<float>(generated));
      const NextTokenChoice next = choose_next_token(out->run, sampling, sample_seed, i);
      if (!next.error.empty()) {
        out->run.append_error = next.error;
        break;
      }
      out->run = run_append(out->run, next.sampled);
      if (out->run.append_error.empty()) out->appended.push_back(next.sampled);
    }
    out->residual = residual_norms(out->run.trace, out->model.config.placement);
    out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return ResultPtr(out);
  };
  job_.request(cheap, background_priority(), work);
}

void ForwardPanel::adopt() {
  if (!job_.take_fresh() || !job_.result()) return;
  const ResultPtr r = job_.result();
  if (!r->model.error.empty()) {
    weights_error_ = r->model.error;
    return;
  }
  weights_error_.clear();
  if (!r->run.ok()) {
    input_error_ = r->run.error.empty() ? "the forward pass did not finish" : r->run.error;
    return;
  }
  input_error_ = r->run.append_error;
  result_ = r;
  // Tabs not on screen would keep the previous result (trace and weights) alive until they are shown again.
  shown_step_.clear();
  shown_strip_.clear();
  shown_residual_.clear();
  shown_params_.clear();
  shown_next_.clear();
}

// [SECTION] stepping

void ForwardPanel::resolve_step() {
  if (!result_) return;
  const Trace& trace = result_->run.trace;
  const int n = static_cast<int>(trace.steps().size());
  if (n == 0) return;
  const int found = trace.index_of(s_.step);
  if (found >= 0) {
    step_ = found;
    return;
  }
  // The named step does not exist in this architecture (e.g. q_rope without RoPE): stay at the same place.
  step_ = std::clamp(step_, 0, n - 1);
  s_.step = trace.steps()[static_cast<size_t>(step_)].name;
}

void ForwardPanel::go_to(int index) {
  if (!result_) return;
  const int n = static_cast<int>(result_->run.trace.steps().size());
  if (n == 0) return;
  step_ = std::clamp(index, 0, n - 1);
  s_.step = result_->run.trace.steps()[static_cast<size_t>(step_)].name;
  reveal_step_ = true;
}

// [SECTION] figures

std::vector<plot::Figure> ForwardPanel::figures() {
  std::vector<plot::Figure> figs;
  if (!result_) return figs;
  const int layers = result_->run.config.n_layers;
  figs.push_back(step_figure(*result_, step_));
  figs.push_back(strip_figure(*result_, std::clamp(s_.strip_layer, 0, std::max(layers - 1, 0))));
  figs.push_back(residual_figure(*result_, step_));
  figs.push_back(next_token_figure(*result_, current_choice()));
  figs.push_back(params_figure(result_->run.config));
  return figs;
}

// [SECTION] draw: left column

void ForwardPanel::draw(const DrawContext& ctx) {
  panel_explanation(
      "A small LLaMA-style Transformer runs on your text. Every step it computes is recorded with a name, a "
      "formula and a shape; step through them with the buttons, the arrow keys or the tree. Change the architecture "
      "on the left and watch which steps appear, disappear or change shape. Weights are random (seeded) unless you "
      "load a checkpoint, so the predictions are not meaningful; the shapes, costs and mechanics are.");
  const float s = ctx.dpi_scale;
  const float left_w = std::min(340.0f * s, ImGui::GetContentRegionAvail().x * 0.4f);
  if (ImGui::BeginChild("left", ImVec2(left_w, 0), true)) draw_left(ctx);
  ImGui::EndChild();
  ImGui::SameLine();
  if (ImGui::BeginChild("right", ImVec2(0, 0), false)) draw_right(ctx);
  ImGui::EndChild();
}

void ForwardPanel::draw_left(const DrawContext& ctx) {
  const Controls& c = controls();
  // Narrow widgets leave room for the labels and (?) markers in a column this width.
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  if (ImGui::CollapsingHeader("Input", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_control(*c.find("text"));
    draw_control(*c.find("bos"));
    if (!input_error_.empty()) warning_text(input_error_.c_str());
    if (result_) draw_token_chips(result_->run.tokens, static_cast<int>(result_->appended.size()), ctx);
  }
  std::vector<std::string> shown;  // each config message appears once, beside the first field it names
  if (ImGui::CollapsingHeader("Model", ImGuiTreeNodeFlags_DefaultOpen)) draw_model_editor(shown);
  if (ImGui::CollapsingHeader("Architecture", ImGuiTreeNodeFlags_DefaultOpen)) {
    for (const char* key : {"norm", "placement", "positions", "activation", "pattern"}) draw_control(*c.find(key));
    if (s_.pattern != ForwardPattern_Full) draw_control(*c.find("window"));
    if (s_.pattern == ForwardPattern_Interleaved) draw_control(*c.find("full_every"));
    draw_control(*c.find("gqa_ratio"));
    for (const char* field : {"window", "full_every", "gqa_ratio", "rope_base", "eps"}) draw_messages(field, shown);
  }
  if (ImGui::CollapsingHeader("Weights", ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_control(*c.find("weights"));
    if (s_.weights == ForwardWeights_Seeded)
      draw_control(*c.find("seed"));
    else
      draw_control(*c.find("checkpoint"));
    if (!weights_error_.empty()) warning_text(weights_error_.c_str());
    if (result_) ImGui::TextDisabled("%s", result_->model.source.c_str());
  }
  if (ImGui::CollapsingHeader("Steps", ImGuiTreeNodeFlags_DefaultOpen)) {
    if (!result_) {
      ImGui::TextDisabled("No trace yet.");
    } else {
      const int clicked = draw_step_tree(result_->run.trace, step_, reveal_step_);
      reveal_step_ = false;
      if (clicked >= 0) go_to(clicked);
    }
  }
  ImGui::PopItemWidth();
}

void ForwardPanel::draw_messages(const char* field, std::vector<std::string>& shown) {
  for (const std::string& m : messages_for_field(problems_, field)) {
    if (std::find(shown.begin(), shown.end(), m) != shown.end()) continue;
    // A GQA-ratio message also names n_heads, but belongs beside the ratio slider the user just moved.
    if (std::string(field) != "gqa_ratio" && !messages_for_field({m}, "gqa_ratio").empty()) continue;
    warning_text(m.c_str());
    shown.push_back(m);
  }
}

void ForwardPanel::draw_model_editor(std::vector<std::string>& shown) {
  const Controls& c = controls();
  draw_control(*c.find("model"));
  const bool custom = s_.model == ForwardModel_Custom;
  if (!custom) ImGui::BeginDisabled();
  for (const char* key : {"dim", "n_layers", "n_heads", "hidden", "vocab", "max_seq"}) {
    draw_control(*c.find(key));
    draw_messages(key, shown);
  }
  if (!custom) ImGui::EndDisabled();
  draw_messages("n_kv_heads", shown);
  draw_messages("memory_cap_mb", shown);
  draw_messages("", shown);
  if (!problems_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", result_ ? "Showing the last valid model until the config is fixed."
                                      : "No valid model yet: fix the config above.");
    ImGui::PopTextWrapPos();
  }
  if (result_) {
    const ModelConfig& m = result_->run.config;
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("running: C %d, %d layers, H %d, KV %d, D %d, F %d, V %d, max_seq %d", m.dim, m.n_layers,
                        m.n_heads, m.n_kv_heads, m.head_dim(), m.hidden, m.vocab, m.max_seq);
    ImGui::PopTextWrapPos();
  }
}

// [SECTION] draw: right column

void ForwardPanel::draw_transport() {
  const int n = result_ ? static_cast<int>(result_->run.trace.steps().size()) : 0;
  if (ImGui::Button("|<")) go_to(0);
  ImGui::SameLine();
  if (ImGui::Button("<")) go_to(step_ - 1);
  ImGui::SameLine();
  if (ImGui::Button(">")) go_to(step_ + 1);
  ImGui::SameLine();
  if (ImGui::Button(">|")) go_to(n - 1);
  ImGui::SameLine();
  if (ImGui::Button(s_.play ? "pause" : "play")) {
    s_.play = !s_.play;
    if (s_.play && step_ >= n - 1) go_to(0);
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120 * ImGui::GetFontSize() / 15.0f);
  draw_control(*controls().find("speed"));
  ImGui::SameLine();
  ImGui::Text("step %d / %d", step_ + 1, n);

  // ←/→ step while the panel has focus and no text field is being edited.
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::GetIO().WantTextInput) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) go_to(step_ - 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) go_to(step_ + 1);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) go_to(0);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End))) go_to(n - 1);
  }
  if (s_.play && n > 0) {
    play_clock_ += ImGui::GetIO().DeltaTime * s_.speed;
    while (play_clock_ >= 1.0 && s_.play) {
      play_clock_ -= 1.0;
      if (step_ >= n - 1)
        s_.play = false;
      else
        go_to(step_ + 1);
    }
  } else {
    play_clock_ = 0;
  }
}

void ForwardPanel::draw_right(const DrawContext& ctx) {
  ImGui::PushTextWrapPos(0.0f);  // long notes wrap at the column edge instead of running under the scrollbar
  draw_right_body(ctx);
  ImGui::PopTextWrapPos();
}

void ForwardPanel::draw_right_body(const DrawContext& ctx) {
  if (job_.busy()) {
    ImGui::ProgressBar(job_.progress(), ImVec2(-1, 0), "recomputing on a worker thread...");
  }
  if (!result_) {
    empty_state(job_.busy() ? "Running the model..." : "Nothing to show yet: fix the messages on the left.");
    return;
  }
  draw_transport();
  const ForwardResult& r = *result_;
  const auto& steps = r.run.trace.steps();
  const TraceStep& st = steps[static_cast<size_t>(step_)];
  if (r.run.incremental)
    ImGui::TextDisabled(
        "This trace is the pass of the newest token only (T = 1); the keys and values of the other "
        "%d come from the KV cache.",
        static_cast<int>(r.run.tokens.size()) - 1);
  if (ImGui::BeginTabBar("views")) {
    // A scene (or --set) may pick the tab: select it once, then let clicks drive s_.tab again.
    const bool external = s_.tab != shown_tab_;
    auto tab = [&](int id, const char* label) {
      const ImGuiTabItemFlags flags = external && s_.tab == id ? ImGuiTabItemFlags_SetSelected : 0;
      if (!ImGui::BeginTabItem(label, nullptr, flags)) return false;
      if (!external) s_.tab = id;
      return true;
    };
    if (tab(ForwardTab_Step, "Step")) {
      if (st.layer >= 0) ImGui::Text("Layer %d of %d", st.layer, r.run.config.n_layers);
      draw_block_diagram(r.run.config, st.name, ctx);
      draw_step_header(r, step_);
      plot::draw_figure(shown_step_.get({result_, step_}, [&] { return std::vector{step_figure(r, step_)}; })[0], ctx,
                        "forward");
      ImGui::EndTabItem();
    }
    if (tab(ForwardTab_Strip, "Strip")) {
      draw_control(*controls().find("strip_layer"));
      const int layer = std::clamp(s_.strip_layer, 0, std::max(r.run.config.n_layers - 1, 0));
      if (layer != s_.strip_layer)
        ImGui::TextDisabled("(showing layer %d: the model has %d)", layer, r.run.config.n_layers);
      plot::draw_figure(shown_strip_.get({result_, layer}, [&] { return std::vector{strip_figure(r, layer)}; })[0], ctx,
                        "forward");
      ImGui::EndTabItem();
    }
    if (tab(ForwardTab_Residual, "Residual stream")) {
      plot::draw_figure(
          shown_residual_.get({result_, step_}, [&] { return std::vector{residual_figure(r, step_)}; })[0], ctx,
          "forward");
      ImGui::EndTabItem();
    }
    if (tab(ForwardTab_Next, "Next token")) {
      draw_next_token(ctx);
      ImGui::EndTabItem();
    }
    if (tab(ForwardTab_Params, "Parameters")) {
      draw_parameter_tables(r.run.config);
      plot::draw_figure(shown_params_.get(result_, [&] { return std::vector{params_figure(r.run.config)}; })[0], ctx,
                        "forward");
      ImGui::EndTabItem();
    }
    shown_tab_ = s_.tab;
    ImGui::EndTabBar();
  }
  ImGui::TextDisabled("computed in %.1f ms", r.seconds * 1e3);
}

void ForwardPanel::draw_next_token(const DrawContext& ctx) {
  const ForwardResult& r = *result_;
  const Controls& c = controls();
  for (const char* key : {"temperature", "top_k", "top_p", "sample_seed"}) draw_control(*c.find(key));
  const std::vector<plot::Figure>& figs =
      shown_next_.get({result_, s_.temperature, s_.top_k, s_.top_p, s_.sample_seed}, [&] {
        next_choice_ = current_choice();
        return std::vector{next_token_figure(r, next_choice_)};
      });
  const NextTokenChoice& next = next_choice_;
  if (!next.error.empty()) {
    warning_text(next.error.c_str());
    return;
  }
  const int V = static_cast<int>(next.filter.probs.size());
  ImGui::Text("Of %d tokens, %d have p > 0 after temperature, %d survive top-k, %d survive top-p.", V, next.n_positive,
              next.filter.n_top_k, next.filter.n_final);
  ImGui::Text("Sampled: id %d  \"%s\"  (p = %.4g after the filters)", next.sampled,
              ByteTokenizer::label(next.sampled).c_str(), static_cast<double>(next.probability));
  if (ImGui::Button("Append and continue")) ++s_.generated;
  help_marker(
      "Appends the sampled token and runs only that token through the model, reading the other tokens' keys "
      "and values from the KV cache.");
  ImGui::SameLine();
  if (s_.generated > 0 && ImGui::Button("Back to the prompt")) s_.generated = 0;
  if (r.run.cache_check >= 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "KV-cache logits equal a full recompute (max |difference| %.2g)", r.run.cache_check);
    check_mark(r.run.cache_check < 1e-3, buf);
  }
  const plot::Figure& fig = figs[0];
  plot::draw_figure(fig, ctx, "forward");
  // Which of the most likely tokens each filter keeps (the figure's CSV table: id, label, logit, scaled logit,
  // p_temperature, kept_top_k, kept_top_p, p_final, sampled).
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (fig.table.header.size() == 9 && ImGui::BeginTable("filters", 6, flags)) {
    for (const char* h : {"token", "id", "p after temperature", "top-k", "top-p", "p final"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < fig.table.rows.size(); ++i) {
      const auto& row = fig.table.rows[i];
      ImGui::PushID(static_cast<int>(i));
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      const bool sampled = std::get<double>(row[8]) == 1.0;
      ImGui::Text("%s%s", std::get<std::string>(row[1]).c_str(), sampled ? "  (sampled)" : "");
      ImGui::TableSetColumnIndex(1);
      ImGui::Text("%d", static_cast<int>(std::get<double>(row[0])));
      ImGui::TableSetColumnIndex(2);
      ImGui::Text("%.4f", std::get<double>(row[4]));
      ImGui::TableSetColumnIndex(3);
      check_mark(std::get<double>(row[5]) != 0.0, "");
      ImGui::TableSetColumnIndex(4);
      check_mark(std::get<double>(row[6]) != 0.0, "");
      ImGui::TableSetColumnIndex(5);
      ImGui::Text("%.4f", std::get<double>(row[7]));
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
}

}  // namespace

TW_REGISTER_PANEL(ForwardPanel);

}  // namespace tw
