#pragma once
// The models the forward stepper runs besides its seeded presets, each with the vocabulary its text goes through:
//   - a shipped trained checkpoint (assets/models/sort, assets/models/induction): the training task's symbols,
//   - the model the Training panel holds right now: the same, handed over in memory,
//   - a Hugging Face folder (config.json + safetensors + tokenizer.json): its BPE tokenizer.
// A seeded preset keeps the byte tokenizer (every UTF-8 byte is one token).
//
// Loading a trained task checkpoint needs its task (core/train/model_folder.h); this file knows models and text only.
//
//   StepperModel m;  std::string error;
//   if (!load_hf_folder_model(dir, {}, &m, &error)) show(error);                     // previous model stays
//   std::vector<int> ids;
//   if (!m.vocabulary->encode("The cat", /*bos=*/true, &ids, &error)) show(error);

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/text/token_display.h"
#include "core/text/tokenizer.h"

namespace tw {

// [SECTION] vocabulary: text → ids for the stepper, id → the label a token chip shows

class TokenVocabulary {
 public:
  enum class Kind { Bytes, Symbols, Bpe, Ids };
  // The byte tokenizer of the toy models (core/text/byte_tokenizer.h): 256 bytes, then <bos> = 256.
  static std::shared_ptr<const TokenVocabulary> bytes();
  // One string per id, as a training task names its tokens ("A", "17", "+", "␣" for a space). `task` names the
  // vocabulary in messages ("sort task").
  static std::shared_ptr<const TokenVocabulary> symbols(std::vector<std::string> token_strings, std::string task);
  static std::shared_ptr<const TokenVocabulary> bpe(std::shared_ptr<const Tokenizer> tokenizer);
  // A model folder without tokenizer.json: the text is the token ids themselves ("1 15043 29892", commas allowed),
  // each in [0, vocab_size); a chip shows the id.
  static std::shared_ptr<const TokenVocabulary> ids(int vocab_size);

  // Token ids of `text`. Symbols: the longest token string matching at each place ('␣' also matches a space;
  // spaces are skipped when no token is a space, so "C A B" and "CAB" are the same prompt). False with one line
  // in *error naming the first character no token matches. bos: Bytes prepends <bos>; Bpe its BOS when it has
  // one; Symbols has none (ignored).
  bool encode(const std::string& text, bool bos, std::vector<int>* ids, std::string* error) const;
  // What a chip or an axis shows for `id`: the token's own text with visible spaces (␣), never empty.
  std::string label(int id) const;
  // The text `ids` spell, as a reader sees it: the tokenizer's decoding (spaces as spaces, bytes joined into their
  // characters); a task's symbols joined ("␣" back to a space); bare ids as "#id" separated by spaces.
  std::string text(const std::vector<int>& ids) const;
  // The token as its vocabulary spells it ("Ġthe", "<0x0A>", a raw byte), for CSV `token` columns beside the label.
  std::string spelling(int id) const;
  // The token at ids[i] as shown, with its neighbours: special tokens flagged, and for a token holding part of a
  // UTF-8 character the character it belongs to (core/text/token_display.h).
  TokenDisplay display(const std::vector<int>& ids, size_t i) const;
  Kind kind() const { return kind_; }
  // Generation that never shows half a character: (size()) 1 for each token whose bytes may follow the text of
  // `ids` and keep it valid UTF-8 (a byte-fallback token that starts or continues a character, never a stray
  // continuation byte); empty (no restriction) for vocabularies that are not text (task symbols, bare ids).
  std::vector<char> utf8_allowed_after(const std::vector<int>& ids) const;
  // The text of `ids` (the tokenizer's decoder; special tokens left out); task symbols and bare ids: their labels.
  std::string decode(const std::vector<int>& ids) const;
  int size() const;  // ids the vocabulary knows (bytes: 257)
  std::string describe()
      const;  // one line: "byte tokenizer", "sort task symbols: A B C", "byte-level BPE, 49152 tokens"
  bool has_bos() const;

 private:
  Kind kind_ = Kind::Bytes;
  std::vector<std::string> symbols_;  // Symbols: id → string
  std::string task_;
  std::shared_ptr<const Tokenizer> bpe_;
  int id_count_ = 0;                // Ids: the model's vocab_size
  std::vector<std::string> bytes_;  // Bytes and Bpe: id → the raw bytes the token stands for ("" for <bos>)
};

// [SECTION] models

struct StepperModel {
  std::string name;    // short, for the model list: "trained sort", "SmolLM2-135M"
  std::string source;  // one line: where it came from ("assets/models/sort (trained, 99.8% held out)" ...)
  ModelConfig config;
  std::shared_ptr<const ModelWeights> weights;
  std::shared_ptr<const TokenVocabulary> vocabulary;
  std::string example;  // a prompt the model makes sense of ("CABCBAAABB" for sort); empty when none
  // A Hugging Face folder's tokenizer.json as read (fine-tuning on a text encodes it with the model's own
  // tokenizer); "" for every other model and for a folder without a usable one.
  std::string tokenizer_json;
};

// Where the shipped checkpoints are: next to the executable (assets/models, ../share/transformer-workbench/models),
// else the source tree's assets/models. "" when none exists.
std::string shipped_models_dir();

// A Hugging Face folder (core/model/hf_model.h) with its tokenizer. progress(fraction) may return false to cancel
// (error "loading cancelled"). A folder without a usable tokenizer.json opens with TokenVocabulary::ids: the prompt
// is typed as token ids (the source line says so and why). A folder `train` wrote is read by load_hf_stepper_model
// (core/train/model_folder.h), which knows its task.
bool load_hf_folder_model(const std::string& dir, const std::function<bool(double)>& progress, StepperModel* out,
                          std::string* error);

}  // namespace tw
