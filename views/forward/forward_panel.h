#pragma once
// The forward stepper panel's class, shared by views/panel_forward.cpp (recompute, stepping, figures, the right
// column), views/forward/forward_columns.cpp (the left column and the next-token view) and
// views/forward/forward_models.cpp (which model runs: shipped checkpoints, the Training panel's, a folder).

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/base/i18n.h"
#include "core/experiments/model_card.h"
#include "views/file_browser.h"
#include "views/forward/forward_state.h"
#include "views/panel.h"
#include "views/recompute.h"

namespace tw {

using ForwardResultPtr = std::shared_ptr<const ForwardResult>;

// The model list's entries, one per ForwardModel option in its order: the option's name, then whether its weights
// are trained (the task and held-out accuracy as the shipped folder's card.json says, or the language model's card)
// or random. `models_dir`: the shipped checkpoints (assets/models); `lms`: its language models.
std::vector<std::string> forward_model_labels(const std::string& models_dir,
                                              const std::vector<ShippedLanguageModel>& lms);

class ForwardPanel : public Panel {
 public:
  PanelInfo info() const override {
    return {"forward", N_("Forward pass stepper"), N_("Model"),
            N_("Step through every named step of a LLaMA-style forward pass on text you type")};
  }
  void update() override;
  void draw(const DrawContext& ctx) override;
  std::vector<plot::Figure> figures() override;
  const std::vector<plot::Figure>& shown_figures() override;  // figures(), rebuilt when the result or a control changes
  bool busy() const override { return job_.busy() || load_job_.busy(); }
  // A checkpoint or folder is being loaded (the File menu's status waits for the outcome).
  bool loading_model() const { return loading_.has_value(); }
  // The folder of the model on screen when it is a Hugging Face folder ("" otherwise).
  std::string folder_shown() const { return model_ && model_choice_ == ForwardModel::Folder ? model_dir_ : ""; }
  void wait_idle() override {
    load_job_.wait();
    request_if_changed();  // a model that just loaded is run now
    job_.wait();
    adopt();
    resolve_step();
  }
  // The message the panel shows about the model or the text ("" when the run on screen is what was asked).
  std::string error() const override;
  // error(), else a prompt that was replaced by the model's example (export names it instead of passing in silence).
  std::string problem() const override { return error().empty() ? prompt_note_ : error(); }
  bool presenter_step(PresenterStep step) override;

 protected:
  void bind(Controls& c) override;

 private:
  void request_if_changed();
  // [SECTION] models (views/forward/forward_models.cpp)
  // Takes a model posted by the Training panel, starts loading the checkpoint or folder the "model" control names,
  // adopts a finished load. False while the non-seeded model asked for is not ready (the shown run stays).
  bool sync_model();
  void adopt_load();
  // text_unfit: why the current prompt cannot run on the model ("" = it can), known from the load job, else found
  // here for vocabularies that cost nothing (bytes, symbols, ids); a tokenizer.json's prompt is never encoded on the
  // UI thread.
  void use_model(std::shared_ptr<const StepperModel> model, ForwardModel choice, const std::string& dir,
                 std::optional<std::string> text_unfit = std::nullopt);
  void revert_model_choice(std::string why);  // back to the model on screen, saying why
  void draw_model_source();                   // the model choice, its folder box, its source and vocabulary
  void draw_language_models();                // the shipped language models, labelled from their cards
  void adopt();                               // takes a finished result from the worker, keeps the last valid one
  void resolve_step();                        // s_.step (a name) → step_ index in the shown trace
  void go_to(int index);                      // moves the current step and its name
  void draw_left(const DrawContext& ctx);
  void draw_model_editor();
  // The config messages naming `field` that have not been shown beside an earlier field this frame.
  void draw_messages(const char* field);  // "" = the problems of fields with no control here
  void draw_right(const DrawContext& ctx);
  void draw_right_body(const DrawContext& ctx);
  void draw_transport();
  void draw_next_token(const DrawContext& ctx);
  // Generate: the button, Stop, and the continuation so far with each token's probability.
  void draw_generate();
  // While Generate runs: one more appended token each time the previous one is on screen.
  void advance_generation();
  // The next token after the run on screen, with the same random stream the next append will use.
  NextTokenChoice current_choice() const {
    if (!result_) return {};
    return choose_next_token(result_->run, sampling_config(s_), static_cast<uint64_t>(s_.sample_seed),
                             static_cast<int>(result_->appended.size()), &result_->request.vocab());
  }

  struct ModelLoad {
    ForwardModel choice = ForwardModel::Tiny;
    std::string dir;
    bool ok = false;
    StepperModel model;
    std::string error;
    // Why `text` (the prompt when the load was asked for) cannot run on the model ("" = it encodes within the
    // context): found on the worker, since tokenizing a long prompt through a hostile tokenizer.json can take as long
    // as the load.
    std::string text;
    std::string text_unfit;
  };

  ForwardState s_;
  FileBrowser folder_browser_{{.folders_only = true, .extensions = {}}};  // the folder box's Browse... button

  std::shared_ptr<const StepperModel> model_;    // the trained or real model the non-seeded choices run
  std::optional<ForwardModel> model_choice_;     // the choice model_ was loaded for (none yet: empty)
  std::string model_dir_;                        // the folder model_ came from
  std::shared_ptr<const StepperModel> trained_;  // the Training panel's latest hand-off
  std::optional<std::vector<ShippedLanguageModel>> shipped_lms_;  // assets/models' language models, read once
  std::vector<std::string> model_labels_;                         // forward_model_labels, in model_labels_lang_
  Language model_labels_lang_ = Language::En;
  std::optional<std::pair<ForwardModel, std::string>> loading_;  // (choice, folder) being loaded
  ForwardModel shown_choice_ = ForwardModel::Tiny;  // the choice of the model on screen: restored when a load fails
  std::string shown_dir_;
  std::string model_error_;                  // why the model asked for could not be opened
  std::string prompt_note_;                  // a prompt the model could not run, replaced by its example: why
  std::string folder_box_;                   // the folder path being typed (taken on Enter or Open)
  bool folder_editing_ = false;              // the folder box has the keyboard
  std::vector<ConfigProblem> problems_;      // why the config in the controls is invalid; the shown model stays
  std::string input_error_;                  // why the text cannot run (too long, outside the vocabulary)
  std::string weights_error_;                // why the checkpoint could not be loaded
  std::optional<ForwardRequest> requested_;  // the newest request sent to the worker
  ForwardResultPtr result_;                  // the result on screen (last valid)
  int step_ = 0;                             // index of s_.step in result_'s trace
  bool reveal_step_ = false;
  double play_clock_ = 0;  // seconds accumulated towards the next step while playing
  // Each tab's figure, rebuilt only when the result or what the tab shows of it changes (draw runs every frame).
  FigureCache<std::pair<ForwardResultPtr, int>> shown_step_, shown_strip_, shown_residual_;  // (result, step or layer)
  FigureCache<ForwardResultPtr> shown_params_, shown_lens_, shown_families_;
  FigureCache<std::tuple<ForwardResultPtr, int, std::string>> shown_all_;  // (result, step, controls): a slide's
  FigureCache<std::tuple<ForwardResultPtr, float, int, float, float, int>> shown_next_;  // (result, sampling controls)
  int generate_target_ = 0;                                // Generate appends until s_.generated reaches this
  NextTokenChoice next_choice_;                            // the choice shown_next_ was built from
  std::pair<ForwardModel, std::string> requested_choice_;  // (choice, folder) of requested_
  Recompute<ModelLoad> load_job_;
  Recompute<ForwardResult> job_;  // declared last: its worker is joined before the members above go away
};

}  // namespace tw
