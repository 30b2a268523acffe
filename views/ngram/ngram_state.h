#pragma once
// The n-gram panel's state and result, shared by views/panel_ngram.cpp (controls, recompute) and
// views/ngram/ngram_figures.cpp (its figures).

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/experiments/model_bits.h"
#include "core/experiments/model_card.h"
#include "core/text/corpus.h"
#include "core/text/ngram.h"
#include "views/plot/figure.h"

namespace tw::ngram_panel {

constexpr int kMaxOrder = 5;

// [SECTION] state

struct NgramState {
  CorpusId corpus = CorpusId::TangPoems;
  float k = 0.01f;  // add-k's pseudo-count
  int record = 0;   // held-out record for the causal vs bidirectional comparison
  int seed = 1;
  std::string model_dir;  // a language model folder (config.json, safetensors, tokenizer.json) scored beside them
};

struct OrderResult {
  int n = 0;
  double heldout_wb = 0, heldout_addk = 0, train_wb = 0;  // bits per character
  double heldout_kn = NAN;         // bits per character, Kneser–Ney (modified); NaN until orders 3 … 5 are counted
  double heldout_kn_unseen = NAN;  // its part paid for characters never seen in training
  size_t unseen_chars = 0;         // held-out characters never seen in training
  size_t distinct = 0;             // distinct n-grams in training
  double unseen = 0;               // fraction of held-out n-grams never seen
  std::string sample;
};
struct NgramResult {
  NgramState state;
  std::string error;
  size_t train_chars = 0, heldout_chars = 0, train_records = 0, heldout_records = 0;
  int vocab = 0;
  std::vector<OrderResult> orders;
  std::string record;  // the held-out record compared, its first line
  MaskedComparison masked;
  bool samples_pending = false;    // the first answer of a new seed: refine() draws the samples
  bool orders_pending = false;     // the first answer of a corpus not counted yet: orders 1 … 2, refine() counts on
  std::optional<ModelBits> model;  // the folder's model on the same held-out records
  std::string model_name, model_error;
  std::shared_ptr<const std::vector<ShippedLanguageModel>> shipped;  // their cards: transformer vs Kneser–Ney
};
using ResultPtr = std::shared_ptr<const NgramResult>;

plot::Figure bits_figure(const NgramResult& r);
plot::Figure sparsity_figure(const NgramResult& r);
plot::Figure samples_figure(const NgramResult& r);
plot::Figure masked_figure(const NgramResult& r);
plot::Figure transformer_figure(const NgramResult& r);
plot::Figure masks_figure(const NgramResult& r);

}  // namespace tw::ngram_panel
