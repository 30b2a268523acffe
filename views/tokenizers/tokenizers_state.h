#pragma once
// The tokenizers panel's state and result, shared by views/panel_tokenizers.cpp (controls, recompute, draw) and
// views/tokenizers/tokenizers_figures.cpp (its figures).

#include <memory>
#include <string>
#include <vector>

#include "core/text/tokenizer_training.h"
#include "views/plot/figure.h"

namespace tw::tokenizers_panel {

constexpr const char* kDefaultText =
    "the lowest of the low and the newest of the new. the widest river is lower than the lowest lake. "
    "newer and newest, wider and widest, lower and lowest: the suffixes -er and -est come back again and again, "
    "so a tokenizer learns them early. the low road is longer than the new road, and the newest road is the widest.";

struct TokenizerState {
  std::string text = kDefaultText;  // training text (used when no file is given)
  std::string file;                 // optional path of a UTF-8 text file to train on instead
  int merges = 60;                  // BPE merges (and WordPiece merges' budget, see vocab)
  int vocab = 80;                   // WordPiece and Unigram vocabulary size
  int step = 12;                    // which BPE merge the figures show (1 … merges)
  std::string sentence = "the newest widest lowest road";
  std::string tokenizer_json;  // optional path of a model's tokenizer.json, compared on the sentence (no model needed)
};

struct Segmentation {
  std::string name;                 // e.g. "BPE, 60 merges"
  std::string label;                // short, for a bar's axis label
  std::vector<std::string> tokens;  // as shown (core/text/token_display): "␣the", "注", "⟨E6 B3⟩"
  std::vector<std::string> raw;     // the vocabulary's own spelling ("Ġthe"), for the CSV
  std::vector<int> ids;             // tokenizer.json ids (empty for the trained WordPiece and Unigram)
  bool from_file = false;           // the tokenizer.json given by path, not one trained here
};

struct TokenizerResult {
  TokenizerState state;  // text replaced by the file's contents when one was read
  std::string error;     // the file or text could not be trained on
  BpeTraining bpe;
  WordPieceTraining wordpiece;
  UnigramTraining unigram;
  std::vector<Segmentation> cuts;  // BPE (all merges), BPE after `step` merges, WordPiece, Unigram
  int words = 0, bytes = 0;        // of the sentence
  std::string file_message;        // the tokenizer.json could not be read (one line), or what it approximates
};
using ResultPtr = std::shared_ptr<const TokenizerResult>;

// The BPE merge the figures show (the state's step, clamped), or nullptr before any merge.
const MergeStep* shown_merge(const TokenizerResult& r);
// A merge's symbols are spelled in the byte alphabet ('Ġ' for a space): what they stand for.
std::string visible(const std::string& s);

plot::Figure candidates_figure(const TokenizerResult& r);
plot::Figure growth_figure(const TokenizerResult& r);
plot::Figure counts_figure(const TokenizerResult& r);
plot::Figure segmentation_figure(const TokenizerResult& r);

}  // namespace tw::tokenizers_panel
