// The forward stepper's left column (input, model editor, architecture, weights, step tree) and its next-token
// view: drawing only; the state, the requests and the stepping live in views/panel_forward.cpp.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "core/base/i18n.h"
#include "core/base/text_in_use.h"
#include "core/text/byte_tokenizer.h"
#include "views/forward/forward_draw.h"
#include "views/forward/forward_panel.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/text/imgui_label.h"
#include "views/widgets.h"

namespace tw {

// [SECTION] left column

void ForwardPanel::draw_left(const DrawContext& ctx) {
  const Controls& c = controls();
  // Narrow widgets leave room for the labels and (?) markers in a column this width.
  ImGui::PushItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  if (ImGui::CollapsingHeader(imgui_label(tr("Input"), "input").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_control(*c.find("text"));
    if (!result_ || result_->request.vocab().has_bos()) draw_control(*c.find("bos"));
    if (!input_error_.empty()) warning_text(input_error_.c_str());
    if (result_)
      draw_token_chips(result_->request.vocab(), result_->run.tokens, static_cast<int>(result_->appended.size()), ctx);
    draw_generate();
  }
  if (ImGui::CollapsingHeader(imgui_label(tr("Model"), "model").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_model_editor();
    if (result_ && result_->model.weights &&
        ImGui::SmallButton(imgui_label(tr("What do the heads do?"), "heads").c_str())) {
      // The model on screen, whatever it is, goes to the head-role panel (views/panel_heads.cpp).
      const ForwardResult& r = *result_;
      handoffs().post_model("heads", {tr("forward stepper"), r.model.source, r.model.config, r.model.weights,
                                      r.request.vocabulary ? r.request.vocabulary : TokenVocabulary::bytes(), "", ""});
    }
    help_marker(
        tr("Scores every head of this model for previous-token, induction and first-token roles, and on a "
           "poem's lines for previous-line, line-start and rhyme roles, in the \"What the heads do\" panel."));
  }
  // Trained and real models bring their own architecture and weights: only the seeded presets are edited here.
  const bool seeded = is_seeded_model(s_.model);
  if (seeded && ImGui::CollapsingHeader(imgui_label(tr("Architecture"), "architecture").c_str(),
                                        ImGuiTreeNodeFlags_DefaultOpen)) {
    for (const char* key : {"norm", "placement", "positions", "activation", "pattern"}) draw_control(*c.find(key));
    if (s_.pattern != ForwardPattern::Full) draw_control(*c.find("window"));
    if (s_.pattern == ForwardPattern::Interleaved) draw_control(*c.find("full_every"));
    draw_control(*c.find("gqa_ratio"));
    for (const char* field : {"window", "full_every", "gqa_ratio", "rope_base", "eps"}) draw_messages(field);
  }
  if (seeded &&
      ImGui::CollapsingHeader(imgui_label(tr("Weights"), "weights").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
    draw_control(*c.find("weights"));
    if (s_.weights == ForwardWeights::Seeded)
      draw_control(*c.find("seed"));
    else
      draw_control(*c.find("checkpoint"));
    if (!weights_error_.empty()) warning_text(weights_error_.c_str());
    if (result_) math_text(result_->model.source.c_str(), 0.0f, false, ImGui::GetColorU32(ImGuiCol_TextDisabled));
  }
  if (ImGui::CollapsingHeader(imgui_label(tr("Steps"), "steps").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) {
    if (!result_) {
      ImGui::TextDisabled("%s", tr("No trace yet."));
    } else {
      const int clicked = draw_step_tree(result_->run.trace, step_, reveal_step_);
      reveal_step_ = false;
      if (clicked >= 0) go_to(clicked);
    }
  }
  ImGui::PopItemWidth();
}

void ForwardPanel::draw_messages(const char* field) {
  for (const std::string& m : messages_for_field(problems_, field)) warning_text(m.c_str());
}

void ForwardPanel::draw_model_editor() {
  const Controls& c = controls();
  draw_model_source();
  // The sizes of the model on screen (trained and real models bring their own; only the seeded ones are edited).
  auto running = [this] {
    if (!result_) return;
    const ModelConfig& m = result_->run.config;
    ImGui::PushTextWrapPos(0.0f);
    const auto n = [](int v) { return std::to_string(v); };
    math_text(subst(tr("running: $C$ = {0}, {1} layers, $H$ = {2}, $H_{kv}$ = {3}, $D$ = {4}, $F$ = {5}, $V$ = {6}, "
                       "max_seq {7}"),
                    {n(m.dim), n(m.n_layers), n(m.n_heads), n(m.n_kv_heads), n(m.head_dim()), n(m.hidden), n(m.vocab),
                     n(m.max_seq)})
                  .c_str(),
              0.0f, false, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    ImGui::PopTextWrapPos();
  };
  if (!is_seeded_model(s_.model)) return running();
  const bool custom = s_.model == ForwardModel::Custom;
  if (!custom) ImGui::BeginDisabled();
  for (const char* key : {"dim", "n_layers", "n_heads", "hidden", "vocab", "max_seq"}) {
    draw_control(*c.find(key));
    draw_messages(key);
  }
  if (!custom) ImGui::EndDisabled();
  draw_messages("n_kv_heads");
  draw_messages("memory_cap_mb");
  draw_messages("");
  if (!problems_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", result_ ? tr("Showing the last valid model until the config is fixed.")
                                      : tr("No valid model yet: fix the config above."));
    ImGui::PopTextWrapPos();
  }
  running();
}

// [SECTION] next token

void ForwardPanel::draw_next_token(const DrawContext& ctx) {
  const ForwardResult& r = *result_;
  const Controls& c = controls();
  for (const char* key : {"temperature", "top_k", "top_p", "min_p", "sample_seed"}) draw_control(*c.find(key));
  const std::vector<plot::Figure>& figs =
      shown_next_.get({result_, s_.temperature, s_.top_k, s_.top_p, s_.min_p, s_.sample_seed}, [&] {
        next_choice_ = current_choice();
        return std::vector{next_token_figure(r, next_choice_)};
      });
  const NextTokenChoice& next = next_choice_;
  if (!next.error.empty()) {
    warning_text(next.error.c_str());
    return;
  }
  const int V = static_cast<int>(next.filter.probs.size());
  const auto n = [](int v) { return std::to_string(v); };
  // Typeset ($p > 0$ was shown as its source).
  math_text(
      subst(tr("Of {0} tokens, {1} have $p > 0$ after temperature, {2} survive top-k, {3} survive top-p, {4} survive "
               "min-p."),
            {n(V), n(next.n_positive), n(next.filter.n_top_k), n(next.filter.n_top_p), n(next.filter.n_final)})
          .c_str());
  math_text(subst(tr("Sampled: id {0}  \"{1}\"  ($p = {2}$ after the filters)"),
                  {n(next.sampled), r.request.vocab().label(next.sampled),
                   plot::fmt("%.4g", static_cast<double>(next.probability))})
                .c_str());
  if (ImGui::Button(imgui_label(tr("Append and continue"), "append").c_str())) ++s_.generated;
  help_marker(
      tr("Appends the sampled token and runs only that token through the model, reading the other tokens' keys "
         "and values from the KV cache."));
  ImGui::SameLine();
  if (s_.generated == 0)
    ImGui::NewLine();  // the check below keeps its own line before and after the first append
  else if (ImGui::Button(imgui_label(tr("Back to the prompt"), "back").c_str()))
    s_.generated = 0;
  if (r.run.cache_check >= 0) {
    const std::string text = subst(tr("KV-cache logits equal a full recompute (max |difference| {0})"),
                                   {plot::fmt("%.2g", r.run.cache_check)});
    check_mark(r.run.cache_check < 1e-3, text.c_str());
  } else {  // the line is kept, so the figure below does not jump down after the first append
    ImGui::TextDisabled("%s", tr("After an append, the KV-cache logits are checked against a full recompute."));
  }
  const plot::Figure& fig = figs[0];
  plot::draw_figure(fig, ctx, "forward");
  draw_next_token_table(next, r.request.vocab());
}

// [SECTION] generate

void ForwardPanel::advance_generation() {
  if (generate_target_ <= s_.generated) return;
  // A refused request (past max_seq, a bad setting) or a cancelled pass ends the run where it is.
  if (!input_error_.empty() || job_.cancelled()) {
    generate_target_ = 0;
    return;
  }
  // One token at a time: the next is asked for once the previous one's pass is on screen, so each new request
  // continues the shown session through its KV cache (run_forward_session) and the text grows token by token.
  if (!result_ || job_.busy() || static_cast<int>(result_->appended.size()) != s_.generated) return;
  ++s_.generated;
}

void ForwardPanel::draw_generate() {
  if (!result_) return;
  const ForwardResult& r = *result_;
  const int room = r.run.config.max_seq - r.run.prompt_length;
  const bool running = generate_target_ > s_.generated || (generate_target_ > 0 && job_.busy());
  ImGui::BeginDisabled(running || room <= s_.generated);
  if (ImGui::Button(imgui_label(tr("Generate"), "generate").c_str()))
    generate_target_ = std::min(s_.generated + s_.generate_count, room);
  ImGui::EndDisabled();
  ImGui::SameLine();
  help_marker(
      tr("Samples a continuation with the Next token tab's settings (temperature, top-k, top-p, min-p, "
         "seed): one token per pass, each appended through the KV cache. The same seed gives the same "
         "text."));
  ImGui::SameLine();
  if (running) {
    if (ImGui::Button(imgui_label(tr("Stop"), "stop").c_str())) generate_target_ = 0;
  } else {
    // On the next line when the slider, its label and (?) do not fit beside the button ("tokens to generate" cut).
    const Control& count = *controls().find("generate_count");
    const ImGuiStyle& style = ImGui::GetStyle();
    const float need = ImGui::GetFontSize() * 6 + style.ItemInnerSpacing.x +
                       ImGui::CalcTextSize(tr(count.label.c_str())).x + style.ItemSpacing.x +
                       ImGui::CalcTextSize("(?)").x;
    if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
    // Where even a line of its own is too narrow (200%), the label goes above the slider.
    const bool label_above = ImGui::GetContentRegionAvail().x < need;
    if (!label_above) ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    draw_control(count, label_above);
    check_item_fits("forward: tokens to generate");
  }
  // Generation ends at the model's context length: say so, not only grey the button out.
  if (!running && s_.generated > 0 && s_.generated >= room)
    warning_text(subst(tr("Stopped: the text has reached the model's context length of {0} tokens (Back to the "
                          "prompt starts again)"),
                       {std::to_string(r.run.config.max_seq)})
                     .c_str());
  if (r.appended.empty()) return;
  const TokenVocabulary& vocab = r.request.vocab();
  // The text as read (spaces as spaces); the probabilities line keeps each token's chip label (␣ marks a space).
  const std::string text = vocab.text(r.appended);
  std::string probs;
  for (size_t i = 0; i < r.appended.size(); ++i) {
    if (i < r.appended_probability.size())
      probs += (i ? "  " : "") + vocab.label(r.appended[i]) + " " +
               plot::fmt("%.2g", static_cast<double>(r.appended_probability[i]));
  }
  note_text_in_use(text);  // generated characters the font atlas may not hold yet (Chinese in the English interface)
  // Wrapped at spaces and between Chinese characters, never inside a probability ("0.\n00046").
  wrapped_text(subst(trn("Generated ({0} token): {1}", "Generated ({0} tokens): {1}", r.appended.size()),
                     {std::to_string(r.appended.size()), text})
                   .c_str());
  wrapped_text(subst(tr("each token's probability when it was drawn: {0}"), {probs}).c_str(), 0.0f,
               ImGui::GetColorU32(ImGuiCol_TextDisabled));
  if (!running && ImGui::SmallButton(imgui_label(tr("Back to the prompt"), "back_generate").c_str())) s_.generated = 0;
}

}  // namespace tw
