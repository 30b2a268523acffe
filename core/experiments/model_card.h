#pragma once
// What a shipped language model's folder says about itself, read from its model card, so the stepper can label it
// ("tang300, 2.31 bits/char held out") and open the one that matches the interface language. Nothing about a model
// is written in code: a folder in assets/models with a tokenizer.json is a language model, and its card names it.
//
// Read, first found wins per field:
//   card.json   {"language": "zh", "corpus": "tang300", "heldout_bits_per_char": 2.31, "example": "床前明月光，"}
//               a task model's: {"task": "sort 6 letters", "task_zh": "…", "heldout_accuracy": 0.998}
//   README.md   YAML front matter `language: zh` (or a `- zh` list item under it), as Hugging Face model cards have;
//               a line "corpus: …" (a Markdown table row "| corpus | … |" too; up to its first ';'); the first
//               number on the first line that mentions bits per character (bits/char) and held-out text, or under a
//               heading that does, the table row "| this model | 9.135 |"; a line "example: …"
//   tokenizer.json  when neither names a language: "zh" when its vocabulary holds 500+ Han characters, else "en".

#include <string>
#include <vector>

namespace tw {

struct ModelCard {
  std::string language;               // "zh", "en", ... ("" only when nothing says and there is no tokenizer.json)
  std::string corpus;                 // "" when the card does not say
  double heldout_bits_per_char = -1;  // -1 when the card does not say
  std::string example;                // a prompt the card suggests; "" when none
  std::string task;                   // what a task model was trained to do (card.json only); "" when not said
  std::string task_zh;                // the same in Chinese ("task_zh"); "" when not said
  double heldout_accuracy = -1;       // a task model's held-out answer accuracy in [0, 1]; -1 when not said
  // The card's own baselines on the same held-out text: kneser_ney_bits[n - 1] is interpolated Kneser–Ney of order n
  // trained on the same training part (rows "Kneser–Ney, order n | bits" under the held-out heading; empty when the
  // card gives none), and how many characters that text has (-1 when not said).
  std::vector<double> kneser_ney_bits;
  long heldout_chars = -1;
  // The card's own "This model is **13.7% below** the best n-gram" (worked out from unrounded bits); -1 when not said.
  double percent_below_kneser_ney = -1;
};
ModelCard read_model_card(const std::string& dir);
// How far the model's held-out bits per character are below its card's best Kneser–Ney order, in percent: the
// card's own figure when it gives one, so a figure agrees with the card; else from the rounded rows. -1 when the card
// has no model row or no Kneser–Ney rows.
double percent_below_best_kneser_ney(const ModelCard& c);

struct ShippedLanguageModel {
  std::string name;  // the folder's name
  std::string dir;   // its path
  ModelCard card;
  // One line for a model list: "poems-zh: tang300, 2.31 bits/char held out" (what the card does not say is left out).
  std::string label() const;
};
// Every folder under models_dir with config.json, model.safetensors and tokenizer.json, sorted by name.
std::vector<ShippedLanguageModel> shipped_language_models(const std::string& models_dir);
// The first of `models` in `language`; nullptr when none.
const ShippedLanguageModel* language_model_for(const std::vector<ShippedLanguageModel>& models,
                                               const std::string& language);

}  // namespace tw
