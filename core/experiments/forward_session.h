#pragma once
// A forward-pass session: weights, the prompt's traced pass, and tokens sampled and appended one at a time
// through the KV cache. The forward panel, `dump` and the tests share it.
//
//   ForwardRequest req{config, source, tokens, generated, sampling, sample_seed};
//   ForwardSession s = run_forward_session(req, &previous);   // reuses previous's weights and KV cache if it can
// or the building blocks it is made of:
//   ForwardRun run = run_prompt(config, weights, tokens);      // full pass, every step traced
//   ForwardRun next = run_append(run, token);                  // one more token: only its row is computed,
//                                                              // the keys/values of the others come from the cache
// run_append can also recompute the whole sequence without the cache and report the largest difference of the
// newest logits, so the panel can show that the cache changes the cost, not the answer. A session checks only its
// last appended token that way: one full pass, not one per token.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/experiments/forward_inspect.h"
#include "core/experiments/logit_lens.h"
#include "core/model/config.h"
#include "core/model/generation.h"
#include "core/model/kv_cache.h"
#include "core/model/stepper_model.h"
#include "core/model/trace.h"
#include "core/model/weights.h"
#include "core/ops/sampling.h"
#include "core/tensor.h"

namespace tw {

// Where the weights come from. Every field has an initializer, so `{.seed = 7}` names only what it sets.
struct WeightsSource {
  uint64_t seed = 1;         // seeded init (used when checkpoint is empty)
  std::string checkpoint{};  // path to a .safetensors file written by `dump`; empty = seeded init
  // Weights already in memory (a trained or Hugging Face model): used with the request's config as they are.
  std::shared_ptr<const ModelWeights> weights{};
  std::string name{};  // what `weights` are, for LoadedModel::source
  bool operator==(const WeightsSource&) const = default;
};

struct LoadedModel {
  ModelConfig config;                           // the config the weights belong to
  std::shared_ptr<const ModelWeights> weights;  // null on failure
  std::string source;  // one line: "seeded init (seed 1)" or "checkpoint <path> (config.json beside it)"
  std::string error;   // one line for the user; empty on success
};
// Seeded init for `config`, or the checkpoint. A checkpoint with a config.json in the same directory uses that
// config (the one it was written for); otherwise it must match `config`. Never throws; problems go to .error.
LoadedModel load_model(const ModelConfig& config, const WeightsSource& source);

struct ForwardRun {
  ModelConfig config;
  std::shared_ptr<const ModelWeights> weights;
  std::vector<int> tokens;   // every token so far: the prompt, then the appended ones
  int prompt_length = 0;     // how many of `tokens` were the prompt
  Trace trace;               // the newest pass: the whole prompt, or (after an append) the one new token
  bool incremental = false;  // the trace is an append through the KV cache (T = 1, T_k = tokens.size())
  KVCache cache;             // keys and values of every token so far
  Mat logits;                // (T of the newest pass, V)
  double cache_check = -1;   // after an append: max |logits − full recompute's last row|; -1 when not checked
  std::string error;         // one line when the pass could not run (invalid tokens); the trace is then empty
  std::string append_error;  // one line when the last append was refused; the run is still the previous one

  bool ok() const { return error.empty() && trace.steps().size() > 0; }
  // The logits that predict the next token: the last row of the newest pass. Empty when !ok().
  RowVec next_logits() const;
};

// Full traced pass over `tokens`. Assumes weights match config (load_model output).
ForwardRun run_prompt(const ModelConfig& config, std::shared_ptr<const ModelWeights> weights,
                      const std::vector<int>& tokens);
// Appends `token` using prev's KV cache; traces only the new token's pass. With check_against_full the whole
// sequence is also recomputed without the cache to fill cache_check. On error (bad token, max_seq reached) the
// result is prev unchanged apart from append_error.
ForwardRun run_append(const ForwardRun& prev, int token, bool check_against_full = true);

// The next token after `run`: choose_from_logits (generation.h) on its last logits row. `index` counts the tokens
// already appended, so the token shown as "sampled" is the one "append and continue" appends.
// With a text vocabulary only tokens that keep the text valid UTF-8 may be drawn (no half characters).
NextTokenChoice choose_next_token(const ForwardRun& run, const SamplingConfig& cfg, uint64_t seed, int index,
                                  const TokenVocabulary* vocab = nullptr);
// The tokens worth showing of a choice: the `most` likely before filtering (ties by id, as the sampler orders
// them), then the sampled one if it is not among them. Empty when the choice has an error.
std::vector<int> shown_candidates(const NextTokenChoice& choice, int most = 24);

// [SECTION] session: one request, run reusing what the previous session computed

// Everything a session's result depends on; equal requests give equal sessions.
struct ForwardRequest {
  ModelConfig config;
  WeightsSource source;
  std::vector<int> prompt;   // token ids of the prompt
  int generated = 0;         // tokens sampled and appended one at a time after the prompt
  SamplingConfig sampling;   // used only when generated > 0 (make_forward_request resets it otherwise)
  uint64_t sample_seed = 0;  // seed of the sampled tokens
  // How the prompt's ids read as text (chips, axes, the next-token table); null = the byte tokenizer.
  std::shared_ptr<const TokenVocabulary> vocabulary;
  bool operator==(const ForwardRequest&) const = default;
  const TokenVocabulary& vocab() const { return vocabulary ? *vocabulary : *TokenVocabulary::bytes(); }
};
// A request whose sampling is reset when nothing is appended, so a sampling change alone never re-runs the prompt.
ForwardRequest make_forward_request(const ModelConfig& config, const WeightsSource& source, std::vector<int> prompt,
                                    int generated, const SamplingConfig& sampling, uint64_t sample_seed);
// Why the request cannot run with its own config (tokens outside the vocabulary, prompt plus appended tokens past
// max_seq); "" when it can. A checkpoint may bring its own config, so run_forward_session checks again after load.
std::string check_request(const ForwardRequest& request);
// True when the request finishes in well under a millisecond (the tiny model): the panel then waits for it.
bool is_quick_request(const ForwardRequest& request);

struct ForwardSession {
  ForwardRequest request;                   // what was asked
  LoadedModel model;                        // weights shared with later sessions of the same config and source
  ForwardRun run;                           // the newest pass (the prompt, or the last appended token)
  ResidualNorms residual;                   // of run.trace
  std::vector<int> appended;                // tokens sampled and appended, in order
  std::vector<float> appended_probability;  // each one's probability in the filtered distribution it was drawn from
  LogitLens lens;          // of run.trace: every layer's stream read through the final norm and LM head
  std::string lens_error;  // why the lens is empty
  double seconds = 0;      // wall time of the computation
  bool cancelled = false;  // progress asked to stop; the session is incomplete
};

// Runs `request`. Weights come from `previous` when its config and source match (text edits keep them); when
// `previous` ran the same prompt with the same sampling and fewer appended tokens, the new tokens continue its KV
// cache instead of re-running the prompt. progress(fraction) may return false to stop early. Never throws;
// problems go to model.error, run.error and run.append_error.
ForwardSession run_forward_session(const ForwardRequest& request, const ForwardSession* previous = nullptr,
                                   const std::function<bool(float)>& progress = {});

}  // namespace tw
