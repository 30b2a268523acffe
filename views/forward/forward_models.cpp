// Which model the forward stepper runs besides its seeded presets: the shipped trained checkpoints, the model the
// Training panel hands over, and a Hugging Face folder (loaded on the worker with progress and cancel). A model
// that cannot be opened leaves the one on screen in place and says why.
//
// [SECTION] loading and adopting a model
// [SECTION] draw: the model's source, folder box and vocabulary
#include <imgui.h>
#include <imgui_stdlib.h>
#include <algorithm>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "core/base/i18n.h"
#include "core/base/text_in_use.h"
#include "core/base/utf8.h"
#include "core/experiments/model_card.h"
#include "core/train/model_folder.h"
#include "views/file_browser.h"
#include "views/forward/forward_panel.h"
#include "views/handoffs.h"
#include "views/plot/math.h"
#include "views/text/imgui_label.h"
#include "views/widgets.h"

namespace tw {

namespace {
std::string fs_name(const std::string& dir) { return std::filesystem::path(dir).filename().string(); }
std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", 100 * fraction);
  return buf;
}

// Why `text` cannot run on `m` ("" when it can): the tokenizer's refusal, no tokens, or more than the context.
std::string prompt_unfit(const StepperModel& m, const std::string& text, bool bos) {
  std::vector<int> ids;
  std::string why;
  if (!m.vocabulary->encode(text, bos, &ids, &why))
    return why.empty() ? std::string(tr("the tokenizer refused it")) : why;
  if (ids.empty()) return tr("the tokenizer gave no tokens");
  if (static_cast<int>(ids.size()) > m.config.max_seq)
    return subst(tr("{0} tokens, above the model's context of {1}"),
                 {std::to_string(ids.size()), std::to_string(m.config.max_seq)});
  return "";
}
}  // namespace

// [SECTION] loading and adopting a model

std::string ForwardPanel::error() const {
  for (const std::string* m : {&model_error_, &weights_error_, &input_error_})
    if (!m->empty()) return *m;
  return problems_.empty() ? std::string() : problems_.front().message;
}

bool ForwardPanel::sync_model() {
  if (std::optional<StepperModel> posted = handoffs().take_posted_model(info().id)) {
    trained_ = std::make_shared<const StepperModel>(std::move(*posted));
    s_.model = ForwardModel::Training;
    use_model(trained_, ForwardModel::Training, "");
  }
  adopt_load();
  if (is_seeded_model(s_.model)) return true;
  if (s_.model == ForwardModel::Training) {
    if (!trained_) {
      revert_model_choice(
          tr("No model from the Training panel yet: train one there and press \"Open in forward stepper\"."));
      return is_seeded_model(s_.model) || (model_ && model_choice_ == s_.model);
    }
    if (model_ != trained_) use_model(trained_, ForwardModel::Training, "");
    return true;
  }
  std::string dir = s_.model_dir;
  bool language_model = s_.model == ForwardModel::Folder;  // loaded with its tokenizer.json
  if (s_.model == ForwardModel::Language) {
    // The shipped language model of the interface language, else the trained sort model.
    if (!shipped_lms_) shipped_lms_ = shipped_language_models(shipped_models_dir());
    if (const ShippedLanguageModel* lm = language_model_for(*shipped_lms_, language() == Language::Zh ? "zh" : "en")) {
      dir = lm->dir;
      language_model = true;
    } else if (!shipped_models_dir().empty()) {
      dir = shipped_models_dir() + "/sort";
    } else {
      revert_model_choice(tr("The shipped checkpoints (assets/models) were not found next to the program."));
      return is_seeded_model(s_.model) || (model_ && model_choice_ == s_.model);
    }
  }
  if (s_.model != ForwardModel::Folder && s_.model != ForwardModel::Language) {
    const std::string shipped = shipped_models_dir();
    if (shipped.empty()) {
      revert_model_choice(tr("The shipped checkpoints (assets/models) were not found next to the program."));
      return is_seeded_model(s_.model) || (model_ && model_choice_ == s_.model);
    }
    dir = shipped + (s_.model == ForwardModel::Sort ? "/sort" : "/induction");
  }
  if (model_ && model_choice_ == s_.model && model_dir_ == dir) return true;
  const std::pair<ForwardModel, std::string> key{s_.model, dir};
  if (loading_ && *loading_ == key) return false;
  if (dir.empty()) {  // the folder box is on screen now: the shown model stays until a path is opened
    model_error_ = tr("Type the path of a Hugging Face model folder and press Open.");
    return false;
  }
  loading_ = key;
  // The shipped checkpoints are tens of kB: the UI waits for them. A folder may be gigabytes: the worker loads it.
  const bool quick = !language_model;
  load_job_.request(quick, background_priority(), [key, language_model, text = s_.text, bos = s_.bos](Progress& p) {
    auto out = std::make_shared<ModelLoad>();
    out->choice = key.first;
    out->dir = key.second;
    out->text = text;
    if (language_model) {
      out->ok = load_hf_stepper_model(
          key.second,
          [&p](double f) {
            p.set(static_cast<float>(f));
            return !p.cancelled();
          },
          &out->model, &out->error);
      // A shipped language model's card names it and suggests a prompt (a famous line when it does not).
      const ModelCard card = read_model_card(key.second);
      // A famous line for a Chinese model whose card suggests no prompt (the loader's default is English).
      if (out->ok && !card.example.empty()) out->model.example = card.example;
      if (out->ok && card.example.empty() && card.language == "zh") out->model.example = "床前明月光，疑是地上霜。";
      if (out->ok && (!card.corpus.empty() || card.heldout_bits_per_char > 0))
        // The parentheses are translatable: Chinese uses full-width （）.
        out->model.source = subst(
            tr("{0} ({1})"), {ShippedLanguageModel{fs_name(key.second), key.second, card}.label(), out->model.source});
    } else {
      out->ok = load_task_checkpoint(key.second, &out->model, &out->error);
    }
    if (out->ok) out->text_unfit = prompt_unfit(out->model, text, bos);
    return std::shared_ptr<const ModelLoad>(std::move(out));
  });
  adopt_load();
  return model_ && model_choice_ == s_.model && model_dir_ == dir;
}

void ForwardPanel::adopt_load() {
  if (!load_job_.take_fresh() || !load_job_.result()) return;
  const ModelLoad& r = *load_job_.result();
  if (!loading_ || loading_->first != r.choice || loading_->second != r.dir) return;  // an older request's result
  loading_.reset();
  if (!r.ok) {
    revert_model_choice(subst(tr("Could not open {0}: {1}"), {r.dir, r.error}));
    return;
  }
  use_model(std::make_shared<const StepperModel>(r.model), r.choice, r.dir,
            r.text == s_.text ? std::optional<std::string>(r.text_unfit) : std::nullopt);
}

void ForwardPanel::use_model(std::shared_ptr<const StepperModel> model, ForwardModel choice, const std::string& dir,
                             std::optional<std::string> text_unfit) {
  const std::shared_ptr<const StepperModel> previous = std::exchange(model_, std::move(model));
  model_choice_ = choice;
  model_dir_ = dir;
  model_error_.clear();
  prompt_note_.clear();
  // Text typed for another vocabulary (English for a sort model), or another model's stock prompt, becomes the
  // model's own example prompt; a prompt the user (or a scene) wrote for it stays.
  const bool stock =
      s_.text == kSortExample || s_.text == "The cat sat on" || (previous && s_.text == previous->example);
  if (!text_unfit && model_->vocabulary->kind() != TokenVocabulary::Kind::Bpe)
    text_unfit = prompt_unfit(*model_, s_.text, s_.bos);
  // An unknown fit (a tokenizer.json and a prompt changed while loading) keeps the prompt: the forward pass, on the
  // worker, says what is wrong with it.
  if (model_->example.empty() || !(stock || (text_unfit && !text_unfit->empty()))) return;
  // A prompt someone wrote (a scene, a lesson, the text box) is never swapped in silence: the panel and export say
  // which prompt the model could not run and why.
  if (!stock)
    prompt_note_ = subst(tr("The prompt \"{0}\" cannot run on this model ({1}); its example prompt is shown instead."),
                         {std::string(utf8_prefix(s_.text, 60)) + (s_.text.size() > 60 ? "..." : ""), *text_unfit});
  s_.text = model_->example;
}

void ForwardPanel::revert_model_choice(std::string why) {
  model_error_ = std::move(why);
  loading_.reset();
  s_.model = shown_choice_;
  if (shown_choice_ == ForwardModel::Folder) s_.model_dir = shown_dir_;
}

// [SECTION] draw: the model's source, folder box and vocabulary

std::vector<std::string> forward_model_labels(const std::string& models_dir,
                                              const std::vector<ShippedLanguageModel>& lms) {
  ForwardState state;
  Controls controls("forward");
  bind_forward_controls(controls, state);
  const Control* names = controls.find("model");  // the option names as the control spells them
  std::vector<std::string> labels;
  for (size_t i = 0; i < names->options.size(); ++i) {
    const auto m = static_cast<ForwardModel>(i);
    const std::string name = tr(names->options[i].c_str());
    if (is_seeded_model(m)) {
      labels.push_back(subst(tr("{0}: random weights"), {name}));
    } else if (m == ForwardModel::Sort || m == ForwardModel::Induction) {
      ModelCard card = read_model_card(models_dir + "/" + names->options[i]);
      if (language() == Language::Zh && !card.task_zh.empty()) card.task = card.task_zh;
      if (card.task.empty())
        labels.push_back(subst(tr("{0}: trained"), {name}));
      else if (card.heldout_accuracy < 0)
        labels.push_back(subst(tr("{0}: trained to {1}"), {name, card.task}));
      else
        // xgettext:no-c-format
        labels.push_back(subst(tr("{0}: trained to {1}, {2}% held-out accuracy"),
                               {name, card.task, percent(card.heldout_accuracy)}));
    } else if (m == ForwardModel::Training) {
      labels.push_back(subst(tr("{0}: what the Training panel trained"), {name}));
    } else if (m == ForwardModel::Folder) {
      labels.push_back(subst(tr("{0}: a Hugging Face folder (its own weights)"), {name}));
    } else {
      const ShippedLanguageModel* lm = language_model_for(lms, language() == Language::Zh ? "zh" : "en");
      labels.push_back(lm ? subst(tr("{0}: trained on text ({1})"), {name, lm->label()})
                          : subst(tr("{0}: the sort model (no language model shipped)"), {name}));
    }
  }
  return labels;
}

void ForwardPanel::draw_model_source() {
  const Controls& c = controls();
  // The model list says which weights are trained (and on what) and which are random.
  if (model_labels_.empty() || model_labels_lang_ != language()) {
    if (!shipped_lms_) shipped_lms_ = shipped_language_models(shipped_models_dir());
    model_labels_ = forward_model_labels(shipped_models_dir(), *shipped_lms_);
    model_labels_lang_ = language();
  }
  const Control& model = *c.find("model");
  const int chosen = model.get_index();
  // The closed combo names the model (its whole line would be cut at the column's edge: "语言模型：在文本上训");
  // the list and the tooltip give each model's whole line, the list as wide as its longest.
  const std::string name = tr(model.options[static_cast<size_t>(chosen)].c_str());
  float widest = 0;
  for (const std::string& l : model_labels_) widest = std::max(widest, ImGui::CalcTextSize(l.c_str()).x);
  ImGui::SetNextWindowSizeConstraints(
      ImVec2(widest + 2 * ImGui::GetStyle().WindowPadding.x + ImGui::GetStyle().ScrollbarSize, 0),
      ImVec2(FLT_MAX, FLT_MAX));
  const bool open = ImGui::BeginCombo(imgui_label(tr(model.label.c_str()), "model").c_str(), name.c_str());
  if (!open && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", model_labels_[static_cast<size_t>(chosen)].c_str());
  if (open) {
    for (size_t i = 0; i < model_labels_.size(); ++i)
      if (ImGui::Selectable(model_labels_[i].c_str(), int(i) == chosen)) model.set_index(static_cast<int>(i));
    ImGui::EndCombo();
  }
  help_marker(tr(model.help.c_str()));
  // The folder is taken on Enter or Open, not per keystroke: a half-typed path would be loaded (and refused).
  if (s_.model == ForwardModel::Folder || shown_choice_ == ForwardModel::Folder || !s_.model_dir.empty()) {
    if (!folder_editing_) folder_box_ = s_.model_dir;
    // The box gives up what Open, Browse... and (?) need beside it, so neither button is cut at the column's edge.
    const ImGuiStyle& style = ImGui::GetStyle();
    const auto button_w = [&](const char* label) { return ImGui::CalcTextSize(label).x + 2 * style.FramePadding.x; };
    const float beside =
        button_w(tr("Open")) + button_w(tr("Browse...")) + ImGui::CalcTextSize("(?)").x + 3 * style.ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    ImGui::SetNextItemWidth(std::max(avail - beside, avail * 0.3f));
    const bool enter = ImGui::InputTextWithHint("##folder", tr("Hugging Face model folder"), &folder_box_,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    folder_editing_ = ImGui::IsItemActive();
    ImGui::SameLine();
    if (ImGui::Button(imgui_label(tr("Open"), "open").c_str()) || enter) {
      s_.model_dir = folder_box_;
      s_.model = ForwardModel::Folder;
      model_error_.clear();
    }
    ImGui::SameLine();
    if (browse_button("model_dir", folder_browser_, &folder_box_)) {
      s_.model_dir = folder_box_;
      s_.model = ForwardModel::Folder;
      model_error_.clear();
    }
    help_marker(tr(c.find("model_dir")->help.c_str()));
  }
  if (loading_ && load_job_.busy()) {
    if (job_progress(load_job_.progress(), subst(tr("loading {0}..."), {loading_->second}).c_str())) {
      load_job_.cancel();
      revert_model_choice(tr("Loading cancelled; the previous model stays."));
    }
  }
  if (!model_error_.empty()) warning_text(model_error_.c_str());
  if (model_ && s_.text != model_->example) prompt_note_.clear();  // the user has typed a prompt of their own since
  if (!prompt_note_.empty()) warning_text(prompt_note_.c_str());
  draw_language_models();
  if (is_seeded_model(shown_choice_) || !result_) return;
  ImGui::PushTextWrapPos(0.0f);
  // Wrapped by math_text, which breaks between Chinese characters too (ImGui wraps only at spaces, so a Chinese line
  // such as "…留出集每字符 2.31 比特" lost its number at the column's edge).
  const ImU32 grey = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  math_text(result_->model.source.c_str(), 0.0f, false, grey);
  math_text(subst(tr("vocabulary: {0}"), {result_->request.vocab().describe()}).c_str(), 0.0f, false, grey);
  if (model_ && !model_->example.empty() && model_choice_ == shown_choice_) {
    math_text(subst(tr("example prompt: {0}"), {model_->example}).c_str(), 0.0f, false, grey);
    if (s_.text != model_->example &&
        ImGui::SmallButton(imgui_label(tr("use the example prompt"), "use_example").c_str()))
      s_.text = model_->example;
  }
  ImGui::PopTextWrapPos();
}

void ForwardPanel::draw_language_models() {
  // The shipped language models, each labelled from its own model card, one click away.
  if (!shipped_lms_) shipped_lms_ = shipped_language_models(shipped_models_dir());
  if (shipped_lms_->empty()) return;
  ImGui::TextDisabled("%s", tr("shipped language models:"));
  for (const ShippedLanguageModel& lm : *shipped_lms_) {
    note_text_in_use(lm.label());  // a card may name its corpus in Chinese: the font atlas gains those glyphs
    const bool shown = model_ && model_dir_ == lm.dir;
    // The label wrapped inside the row (a Selectable's own text is one line: cut after the number at 200%).
    const std::string label = lm.label();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const std::vector<std::string> lines =
        plot::wrap_plain_text(label, std::max(1.0f, ImGui::GetContentRegionAvail().x),
                              [](std::string_view s) { return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x; });
    const float height = float(lines.size()) * ImGui::GetTextLineHeight();
    const bool clicked = ImGui::Selectable(("###lm_" + lm.name).c_str(), shown, 0, ImVec2(0, height));
    const ImVec2 after = ImGui::GetCursorScreenPos();
    ImGui::SetCursorScreenPos(at);
    wrapped_text(label.c_str());
    ImGui::SetCursorScreenPos(after);
    if (clicked && !shown) {
      s_.model_dir = lm.dir;
      s_.model = ForwardModel::Folder;
      model_error_.clear();
    }
  }
}

}  // namespace tw
