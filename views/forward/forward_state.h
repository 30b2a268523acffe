#pragma once
// The forward stepper's state (every control's value) and the result its worker computes, shared by
// views/panel_forward.cpp (controls, update, draw) and views/forward/*.cpp (figures, drawing helpers).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/experiments/family_steps.h"
#include "core/experiments/forward_inspect.h"
#include "core/experiments/forward_session.h"
#include "core/model/config.h"
#include "views/controls.h"
#include "views/plot/figure.h"

namespace tw {

// Seeded presets (tiny, small, custom: random weights, byte tokenizer) and trained or real models (their own
// config, weights and vocabulary: core/experiments/stepper_model.h).
enum class ForwardModel {
  Tiny,
  Small,
  Custom,
  Sort,       // assets/models/sort
  Induction,  // assets/models/induction
  Training,   // the Training panel's model ("Open in forward stepper")
  Folder,     // a Hugging Face folder: model_dir
  Language,   // the shipped language model of the interface language (core/experiments/model_card.h); else Sort
};
inline bool is_seeded_model(ForwardModel model) { return model <= ForwardModel::Custom; }
enum class ForwardPattern { Full, Sliding, Interleaved };
enum class ForwardWeights { Seeded, Checkpoint };
enum class ForwardTab { Step, Strip, Residual, Next, Params, Lens, Families };

// A held-out sort prompt, the sorted answer's last letter still to come: BAAABC | AAABB → C. (The sort checkpoint's
// example prompt: stepper_model.h.)
inline constexpr const char* kSortExample = "BAAABCAAABB";

struct ForwardState {
  // Model: a preset or the custom sizes below (the sizes are used only when model == Custom).
  // Opens on a trained model, so its maps and predictions mean something: real language when one is shipped.
  ForwardModel model = ForwardModel::Language;
  std::string model_dir;  // the Hugging Face folder of ForwardModel::Folder
  // The seeded model: the controls bind its sizes (C, layers, H, F, V, max_seq) and its architecture toggles (norm,
  // placement, positions, activation); forward_config derives the rest.
  ModelConfig config;
  int gqa_ratio = 2;  // query heads per KV head: n_kv_heads = n_heads / gqa_ratio
  ForwardPattern pattern = ForwardPattern::Full;
  int window = 4;      // W of sliding layers
  int full_every = 2;  // interleaved: every P-th layer is full
  // Weights.
  ForwardWeights weights = ForwardWeights::Seeded;
  int seed = 1;
  std::string checkpoint;
  // Input.
  std::string text = kSortExample;
  bool bos = false;
  int generated = 0;  // tokens sampled and appended through the KV cache after the prompt
  // Stepping: the current step by its stable trace name, so scenes survive config changes.
  std::string step = "layers.0.attn.probs";
  bool play = false;
  float speed = 2.0f;                 // steps per second while playing
  ForwardTab tab = ForwardTab::Step;  // which view the right-hand side shows
  int strip_layer = 0;
  // Next-token sampling (temperature → top-k → top-p, as Hugging Face generate).
  float temperature = 1.0f;
  int top_k = 0;       // 0: off
  float top_p = 1.0f;  // 1: off
  float min_p = 0.0f;  // 0: off
  int sample_seed = 0;
  int generate_count = 16;  // tokens the Generate button samples, one per pass, each through the KV cache
};

// Declares every control of the forward panel, bound to `s`.
void bind_forward_controls(Controls& c, ForwardState& s);
// The preset a model choice names (tiny or small; custom starts from tiny). The one place presets are chosen.
ModelConfig preset_config(ForwardModel model);
// Copies the preset's sizes into the custom fields, so the greyed editor shows the model that runs and switching
// to custom starts from it.
void show_preset_sizes(ForwardState& s);
// The config the state describes, and every reason it is invalid (empty when valid), each with the field it is
// about: a ModelConfig field (validate_fields), or the controls "gqa_ratio" and "full_every".
ModelConfig forward_config(const ForwardState& s, std::vector<ConfigProblem>* problems);
// The sampling controls as core's sampling settings.
SamplingConfig sampling_config(const ForwardState& s);
// What the state asks the session to run with `config` (forward_config's result): a seeded preset, byte tokenizer.
ForwardRequest forward_request(const ForwardState& s, const ModelConfig& config);
// The same for a trained or real model: its config and weights, the text through its vocabulary. Returns false
// with one line in *error when the text has a symbol the vocabulary lacks or is longer than the model's max_seq.
bool model_request(const ForwardState& s, const StepperModel& model, ForwardRequest* out, std::string* error);

// What the worker hands back: core's session (model, run, appended tokens, residual norms).
using ForwardResult = ForwardSession;

// [SECTION] figures (plain data; drawn on screen and exported identically)
// Token labels for axes: the vocabulary's chip labels, position-prefixed ("3:a") so repeats stay distinct.
std::vector<std::string> token_axis_labels(const TokenVocabulary& vocab, const std::vector<int>& tokens, int first,
                                           int count);
// The current step's output: attention maps as one small multiple per head grouped by KV head, other
// tensors as one (T, ·) heatmap. id "step".
plot::Figure step_figure(const ForwardResult& r, int step_index);
// Every step of one layer as small multiples ("strip" for lecture notes). id "strip".
plot::Figure strip_figure(const ForwardResult& r, int layer);
// Norm of each token's residual-stream vector across the stream steps; marks the current step. id "residual".
plot::Figure residual_figure(const ForwardResult& r, int step_index);
// The next-token distribution: the most likely tokens before the filters and after them, the sampled one
// marked. id "next"; its CSV lists those tokens with their logit, scaled logit, survival and probabilities.
plot::Figure next_token_figure(const ForwardResult& r, const NextTokenChoice& choice);
// The parameter table of the current config. id "params" (a table-only figure: bars per component).
plot::Figure params_figure(const ModelConfig& config);
// The logit lens of the run (views/forward/forward_lens.cpp): the top token per position per layer as a labelled
// heatmap (colour: its probability), and per layer the probability of the token the model finally predicts at
// the last position and on average over positions. id "lens".
plot::Figure lens_figure(const ForwardResult& r);
// A GPT-2-shaped and a LLaMA-shaped model side by side (views/forward/forward_families.cpp): core's comparison of
// their recorded steps as two columns of formulas, coloured by same / different / one model only. id "families".
plot::Figure families_figure(const FamilyComparison& comparison);

}  // namespace tw
