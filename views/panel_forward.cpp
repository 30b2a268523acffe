// Forward-pass stepper: a LLaMA-style model run on the user's text, one named Trace step at a time.
//
// The class is declared in views/forward/forward_panel.h; its left column and next-token view are drawn in
// views/forward/forward_columns.cpp, its controls bound in views/forward/forward_config.cpp. The model session
// itself (weight reuse, KV-cache continuation, the append loop, sampling) is core's ForwardSession.
//
// [SECTION] recompute (worker thread, latest request wins)
// [SECTION] stepping
// [SECTION] figures
// [SECTION] draw: right column (transport, current step, strip, residual stream, next token, parameters)
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>
#include <utility>

#include "core/model/forward.h"
#include "views/forward/forward_draw.h"
#include "views/forward/forward_panel.h"
#include "views/handoffs.h"
#include "views/plot/layout.h"
#include "views/plot/plot_imgui.h"
#include "views/presenter_keys.h"
#include "views/recompute.h"
#include "views/text/panel_text.h"
#include "views/widgets.h"

namespace tw {

// [SECTION] panel state and class

void ForwardPanel::bind(Controls& c) { bind_forward_controls(c, s_); }

// [SECTION] recompute

void ForwardPanel::update() {
  // Sampling settings handed over by the Decoding panel ("Use in the forward stepper"); refused values are skipped.
  if (const std::optional<nlohmann::json> posted = handoffs().take_posted_values(info().id);
      posted && posted->is_object())
    for (const auto& [key, value] : posted->items())
      if (Control* c = controls().find(key); c && !c->check(value, info().id + "." + key)) c->set(value);
  advance_generation();
  request_if_changed();
  adopt();
  resolve_step();  // the step control may have changed (scene, --set, test) without a new result
}

void ForwardPanel::request_if_changed() {
  if (!sync_model()) return;  // a checkpoint or folder is loading: the shown run stays until it is ready
  show_preset_sizes(s_);
  problems_.clear();
  ForwardRequest request;
  if (is_seeded_model(s_.model)) {
    const ModelConfig cfg = forward_config(s_, &problems_);
    if (!problems_.empty()) return;  // the last valid model stays on screen, with the messages beside the fields
    request = forward_request(s_, cfg);
    // A checkpoint may bring its own config, so token checks wait for the loaded model in that case.
    if (request.source.checkpoint.empty()) {
      input_error_ = check_request(request);
      if (!input_error_.empty()) return;
    }
  } else if (!model_request(s_, *model_, &request, &input_error_)) {
    return;  // a symbol outside the vocabulary, or too long: the shown run stays
  }
  if (requested_ && *requested_ == request) return;
  requested_ = request;
  requested_choice_ = {s_.model, s_.model == ForwardModel::Folder ? model_dir_ : std::string()};
  // The tiny model is waited for, so it is current in the frame of the keystroke (see Recompute).
  job_.request(is_quick_request(request), background_priority(), [request, previous = result_](Progress& p) {
    return std::make_shared<const ForwardSession>(run_forward_session(request, previous.get(), [&p](float f) {
      p.set(f);
      return !p.cancelled();
    }));
  });
}

void ForwardPanel::adopt() {
  if (!job_.take_fresh() || !job_.result()) return;
  const ForwardResultPtr r = job_.result();
  if (r->cancelled) return;
  if (!r->model.error.empty()) {
    weights_error_ = r->model.error;
    return;
  }
  weights_error_.clear();
  if (!r->run.ok()) {
    input_error_ = r->run.error.empty() ? tr("the forward pass did not finish") : r->run.error;
    return;
  }
  input_error_ = r->run.append_error;
  result_ = r;
  if (requested_ && r->request == *requested_) std::tie(shown_choice_, shown_dir_) = requested_choice_;
  // Tabs not on screen would keep the previous result (trace and weights) alive until they are shown again.
  shown_step_.clear();
  shown_strip_.clear();
  shown_residual_.clear();
  shown_params_.clear();
  shown_lens_.clear();
  shown_families_.clear();
  shown_next_.clear();
  shown_all_.clear();
}

// [SECTION] stepping

bool ForwardPanel::presenter_step(PresenterStep step) {
  const int n = result_ ? static_cast<int>(result_->run.trace.steps().size()) : 0;
  if (int to = step_; apply_presenter_step(step, &to, 0, n - 1)) go_to(to);
  return true;
}

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
  // The named step does not exist in this architecture (e.g. q_rope without RoPE): stay at the same place. While
  // another model is still on its way the name is kept (a scene's "layers.20..." for a folder still loading).
  step_ = std::clamp(step_, 0, n - 1);
  if (!loading_ && !job_.busy()) s_.step = trace.steps()[static_cast<size_t>(step_)].name;
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
  figs.push_back(lens_figure(*result_));
  figs.push_back(families_figure(compare_family_steps(gpt2_shaped_config(), llama_shaped_config())));
  return figs;
}

const std::vector<plot::Figure>& ForwardPanel::shown_figures() {
  const std::string controls_now = controls().to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return shown_all_.get({result_, step_, controls_now}, [this] { return figures(); });
}

// [SECTION] draw: left column

void ForwardPanel::draw(const DrawContext& ctx) {
  panel_explanation(panel_text(info().id), ctx.fit_figures_to_height);
  const float s = ctx.dpi_scale;
  const float left_w = std::min(340.0f * s, ImGui::GetContentRegionAvail().x * 0.4f);
  begin_controls_column(ctx, left_w / s);  // collapsible in focus, like every panel's controls
  draw_left(ctx);
  begin_figures_column();
  draw_right(ctx);
  end_figures_column();
}

// [SECTION] draw: right column

void ForwardPanel::draw_transport() {
  const int n = result_ ? static_cast<int>(result_->run.trace.steps().size()) : 0;
  // Each item on the row while it fits, else on the next line: at 200% in a narrow column the step count ran past
  // the edge, and the text wrap of the column then stacked it a letter a line, a ~200 px empty band.
  if (ImGui::Button("|<")) go_to(0);
  same_line_if_fits(button_width("<"));
  if (ImGui::Button("<")) go_to(step_ - 1);
  same_line_if_fits(button_width(">"));
  if (ImGui::Button(">")) go_to(step_ + 1);
  same_line_if_fits(button_width(">|"));
  if (ImGui::Button(">|")) go_to(n - 1);
  const char* play_label = s_.play ? tr("pause") : tr("play");
  same_line_if_fits(button_width(play_label));
  if (ImGui::Button(play_label)) {
    s_.play = !s_.play;
    if (s_.play && step_ >= n - 1) go_to(0);
  }
  Control& speed = *controls().find("speed");
  const float speed_w = 120 * ImGui::GetFontSize() / 15.0f;
  same_line_if_fits(speed_w + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(tr(speed.label.c_str())).x +
                    ImGui::GetFontSize() * 2);  // the slider, its label and its "(?)"
  ImGui::SetNextItemWidth(speed_w);
  draw_control(speed);
  char count[64];
  std::snprintf(count, sizeof count, tr("step %d / %d"), step_ + 1, n);
  same_line_if_fits(ImGui::CalcTextSize(count).x);
  ImGui::TextUnformatted(count);
  // Whole in the column's visible width (it scrolls sideways, so check_item_fits_across would let it pass).
  check_text_fits("the step count", ImGui::GetItemRectSize().x,
                  ImGui::GetCurrentWindow()->InnerClipRect.Max.x - ImGui::GetItemRectMin().x);
  // A layer slider instead of a button per layer: a 30-layer model stays one line. It keeps the sub-step.
  const int layers = result_ ? result_->run.config.n_layers : 0;
  if (result_ && layers > 0 && step_ < n) {
    const TraceStep& cur = result_->run.trace.steps()[static_cast<size_t>(step_)];
    int layer = std::max(cur.layer, 0);
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x * 0.5f, 320.0f * ImGui::GetFontSize() / 15.0f));
    if (ImGui::SliderInt((std::string(tr("layer")) + "###layer").c_str(), &layer, 0, layers - 1, tr("layer %d"),
                         ImGuiSliderFlags_AlwaysClamp)) {
      const std::string sub = cur.layer >= 0 ? sub_step_name(cur.name) : "attn.probs";
      const int found = result_->run.trace.index_of("layers." + std::to_string(layer) + "." + sub);
      go_to(found >= 0 ? found : result_->run.trace.index_of("layers." + std::to_string(layer) + ".attn.probs"));
    }
  }

  // A clicker's PageDown/PageUp, ←/→, Home/End step while the panel has focus (views/presenter_keys).
  if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) {
    presenter_step(take_presenter_step());
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
  if (job_.busy() && job_progress(job_.progress(), tr("recomputing on a worker thread..."))) job_.cancel();
  if (job_.cancelled() && !job_.busy())
    warning_text(tr("Cancelled: showing the previous run; change a control to rerun."));
  if (!result_) {
    empty_state(job_.busy() ? tr("Running the model...") : tr("Nothing to show yet: fix the messages on the left."));
    return;
  }
  draw_transport();
  const ForwardResult& r = *result_;
  const auto& steps = r.run.trace.steps();
  // Full width, and at least the figure's natural height; taller when the column has room (a few heads side by
  // side are otherwise thumbnails).
  const auto fill = [](const plot::Figure& f) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const plot::Vec2 n = plot::default_figure_size(f);
    const float natural = n.x > 0 ? avail.x * n.y / n.x : 0.0f;
    return ImVec2(0, std::max(natural, avail.y - ImGui::GetTextLineHeightWithSpacing()));
  };
  const TraceStep& st = steps[static_cast<size_t>(step_)];
  // Wrapped at the column's edge (one line ran past it at 200%); an append changes only a count, so the tabs below
  // stay where they are.
  if (r.run.incremental)
    math_text(subst(tr("This trace is the pass of the newest token only ($T = 1$); the keys and values of the "
                       "other {0} come from the KV cache."),
                    {std::to_string(static_cast<int>(r.run.tokens.size()) - 1)})
                  .c_str(),
              0.0f, false, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  else {
    char line[512];
    std::snprintf(line, sizeof line,
                  trn("This trace is the full pass over the prompt's %d token.",
                      "This trace is the full pass over the prompt's %d tokens.", r.run.tokens.size()),
                  static_cast<int>(r.run.tokens.size()));
    wrapped_text(line, 0.0f, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  }
  // The tabs wrap onto a second row in a narrow column (ImGui's tab bar cut them to "Residua…" at 200%). The
  // selection is s_.tab itself, so a scene or --set picks the tab as a click does.
  {
    static constexpr std::pair<ForwardTab, const char*> kTabs[] = {{ForwardTab::Step, N_("Step")},
                                                                   {ForwardTab::Strip, N_("Strip")},
                                                                   {ForwardTab::Residual, N_("Residual stream")},
                                                                   {ForwardTab::Next, N_("Next token")},
                                                                   {ForwardTab::Lens, N_("Logit lens")},
                                                                   {ForwardTab::Params, N_("Parameters")},
                                                                   {ForwardTab::Families, N_("Families")}};
    std::vector<std::string> labels;
    int selected = 0;
    for (const auto& [id, label] : kTabs) {
      if (id == s_.tab) selected = static_cast<int>(labels.size());
      labels.emplace_back(tr(label));
    }
    if (wrapping_tabs("views", labels, &selected)) s_.tab = kTabs[selected].first;
  }
  if (s_.tab == ForwardTab::Step) {
    if (st.layer >= 0) ImGui::Text(tr("Layer %d of %d"), st.layer, r.run.config.n_layers);
    draw_block_diagram(r.run.config, st.name, ctx);
    draw_step_header(r, step_);
    const plot::Figure& fig = shown_step_.get({result_, step_}, [&] { return std::vector{step_figure(r, step_)}; })[0];
    plot::draw_figure(fig, ctx, "forward", fill(fig));
  }
  if (s_.tab == ForwardTab::Strip) {
    draw_control(*controls().find("strip_layer"));
    const int layer = std::clamp(s_.strip_layer, 0, std::max(r.run.config.n_layers - 1, 0));
    if (layer != s_.strip_layer)
      ImGui::TextDisabled(tr("(showing layer %d: the model has %d)"), layer, r.run.config.n_layers);
    plot::draw_figure(shown_strip_.get({result_, layer}, [&] { return std::vector{strip_figure(r, layer)}; })[0], ctx,
                      "forward");
  }
  if (s_.tab == ForwardTab::Residual) {
    plot::draw_figure(shown_residual_.get({result_, step_}, [&] { return std::vector{residual_figure(r, step_)}; })[0],
                      ctx, "forward");
  }
  if (s_.tab == ForwardTab::Next) {
    draw_next_token(ctx);
  }
  if (s_.tab == ForwardTab::Lens) {
    if (r.run.incremental)
      ImGui::TextDisabled("%s", tr("The lens reads the newest pass: after an append, only the appended token."));
    if (!r.lens_error.empty()) warning_text(r.lens_error.c_str());
    const plot::Figure& fig = shown_lens_.get(result_, [&] { return std::vector{lens_figure(r)}; })[0];
    plot::draw_figure(fig, ctx, "forward", fill(fig));
  }
  if (s_.tab == ForwardTab::Params) {
    draw_parameter_tables(r.run.config);
    plot::draw_figure(shown_params_.get(result_, [&] { return std::vector{params_figure(r.run.config)}; })[0], ctx,
                      "forward");
  }
  if (s_.tab == ForwardTab::Families) {
    // Independent of the model above: the two shapes run on their own seeded weights, so any scene can open them.
    wrapped_text(tr("A GPT-2-shaped and a LLaMA-shaped model of the same size, each run once through the same "
                    "forward pass on random weights. Each row is one step as its trace recorded it; the colour says "
                    "whether the other model computes it the same way."),
                 0.0f, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    const plot::Figure& fig = shown_families_.get(result_, [&] {
      return std::vector{families_figure(compare_family_steps(gpt2_shaped_config(), llama_shaped_config()))};
    })[0];
    plot::draw_figure(fig, ctx, "forward", fill(fig));
  }
  ImGui::TextDisabled(tr("computed in %.1f ms"), r.seconds * 1e3);
}

TW_REGISTER_PANEL(ForwardPanel);

}  // namespace tw
