#pragma once
// Held-out bits per character of a language model: the number the n-gram baselines are compared with.
//
//   ModelBits b = model_bits_per_char(model, corpus.heldout);
//   if (b.error.empty()) show(b.bits_per_char);
//
// Each record is encoded with the model's own tokenizer (starting with its BOS token when it has one, so the first
// token is predicted too; without one the first token of each record is context only, its characters still
// counted, which flatters the model a little), cut into
// windows of at most max_seq tokens overlapping by one, and every scored token costs −log₂ of the probability the model
// gave it. The sum is divided by the characters (code points) of the records scored, so tokenizers of any granularity
// compare.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/stepper_model.h"

namespace tw {

struct ModelBits {
  double bits_per_char = 0;
  double bits = 0;            // total over the scored tokens
  int64_t tokens_scored = 0;  // tokens whose probability was read
  int64_t chars = 0;          // characters of the records scored (newlines between records not counted)
  int records = 0;            // records scored (at most max_records)
  std::string error;          // one line when nothing could be scored (no tokenizer, a record it cannot encode)
};

// Scores the first `max_chars` characters' worth of records (whole records only; at least one).
ModelBits model_bits_per_char(const StepperModel& model, const std::vector<std::string>& records,
                              int64_t max_chars = 20000);

// Held-out bits per character of one whole text read as a stream, the way an n-gram model reads it: the text is
// encoded once (with the BOS token when the tokenizer has one, so the first token is predicted too), cut into
// windows of max_seq tokens that start every max_seq / 2 tokens, and each token is scored once, in the first window
// where it has at least max_seq / 2 tokens of context (or all there are). Every character counts, line breaks
// included. progress(fraction) may return false to stop (error "cancelled").
ModelBits model_bits_of_text(const StepperModel& model, const std::string& text,
                             const std::function<bool(double)>& progress = {});

// The windows model_bits_per_char runs, for other measurements on the same tokens (core/experiments/
// architectures_block.h): every window of ≥ 2 tokens, in order, with the records' characters.
struct ScoringWindows {
  std::vector<std::vector<int>> windows;  // each at most max_seq tokens; position t predicts t + 1
  int64_t chars = 0;                      // characters of the records cut into them
  int records = 0;
  std::string error;  // one line when a record cannot be encoded or the model has no tokenizer
};
ScoringWindows scoring_windows(const StepperModel& model, const std::vector<std::string>& records,
                               int64_t max_chars = 20000);
// Σ over first ≤ t < T−1 of −log₂ softmax(logits_t)[window_{t+1}]: the bits a window's logits (T, V) cost.
double window_bits(const Mat& logits, const std::vector<int>& window, size_t first = 0);

}  // namespace tw
