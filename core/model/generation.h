#pragma once
// Generation: a continuation sampled token by token, each new token appended through the KV cache.
//
//   KVCache cache;  cache.reset(config);
//   RowVec next;  std::string error;
//   append_tokens(&next, nullptr, cache, weights, config, prompt, &error);        // the prompt, once
//   NextTokenChoice c = choose_from_logits(next, sampling, seed, 0);               // filters, then a seeded draw
//   append_tokens(&next, nullptr, cache, weights, config, {c.sampled}, &error);   // one row of work per layer
// or all of it: Generation g = generate(config, weights, prompt, 20, sampling, seed);
//
// append_tokens is the one place a continuation runs the model: the stepper's session (forward_session.h) and
// generate() both go through it, so a change to the forward pass touches one call.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/kv_cache.h"
#include "core/model/trace.h"
#include "core/model/weights.h"
#include "core/ops/sampling.h"
#include "core/tensor.h"

namespace tw {

// Runs `tokens` at positions cache.length … through the model, appending their keys and values to the cache;
// *next_logits (V) is the last row, the logits that predict the token after them. logits (optional) receives
// every row (T, V); trace (optional) records the pass. False with one line in *error (ids outside the vocabulary,
// past max_seq); the cache is then unchanged.
bool append_tokens(RowVec* next_logits, Mat* logits, Trace* trace, KVCache& cache, const ModelWeights& weights,
                   const ModelConfig& config, const std::vector<int>& tokens, std::string* error);

// The next token drawn from one logits row: every sampling filter, then a seeded draw. `index` counts the tokens
// already appended, so the k-th token of a continuation always uses the same random stream.
struct NextTokenChoice {
  SamplingTrace filter;   // scaled logits, who survives top-k, top-p and min-p, probabilities before and after
  int sampled = -1;       // the drawn token id
  float probability = 0;  // its probability in the final (filtered, renormalised) distribution
  int n_positive = 0;     // tokens whose probability after temperature is not 0 in float
  std::string error;      // one line when the settings are invalid or there are no logits
};
// `allowed` (optional, (V)): only these tokens may be drawn (TokenVocabulary::utf8_allowed_after).
NextTokenChoice choose_from_logits(const RowVec& logits, const SamplingConfig& cfg, uint64_t seed, int index,
                                   const std::vector<char>* allowed = nullptr);

struct Generation {
  std::vector<int> tokens;             // the sampled continuation, in order (the prompt not included)
  std::vector<float> probability;      // each token's probability in the distribution it was drawn from
  std::vector<float> raw_probability;  // each token's probability before the filters (softmax of logits / T)
  std::string error;                   // one line when the prompt or the settings were refused, or the model is full
  bool cancelled = false;              // progress asked to stop; `tokens` holds what was generated until then
};
// Samples up to `count` tokens after `prompt`. progress(done, count) may return false to stop. allowed(ids so far)
// (optional) restricts each draw, e.g. to tokens that keep the text valid UTF-8. At max_seq it stops with a note in
// error, unless `slide`: then it goes on reading the last max_seq − 1 tokens (the cache rebuilt from them at
// positions 0 …), as a model trained on windows of its context reads text longer than one. Never throws.
Generation generate(const ModelConfig& config, const ModelWeights& weights, const std::vector<int>& prompt, int count,
                    const SamplingConfig& sampling, uint64_t seed, const std::function<bool(int, int)>& progress = {},
                    const std::function<std::vector<char>(const std::vector<int>&)>& allowed = {}, bool slide = false);

}  // namespace tw
