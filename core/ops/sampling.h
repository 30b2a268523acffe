#pragma once
// Next-token sampling with the logits processors of Hugging Face generate, in its order:
//   temperature (logits / T) → top-k → top-p → min-p → always keep at least min_tokens_to_keep → softmax → draw.
//
// top-k keeps every token whose logit is ≥ the k-th largest, so ties at the k-th value all survive
// (HF: scores < topk(scores, k)[-1] are removed). k is raised to min_tokens_to_keep and capped at V.
// top-p sorts the surviving tokens by probability, descending, and keeps the smallest prefix whose mass
// reaches p, including the token that crosses p (HF removes tokens whose ascending cumulative mass is
// ≤ 1 − p, which is the same set). min-p (HF MinPLogitsWarper) then removes every token whose probability under
// the distribution left so far is below min_p · (the largest such probability): a cut that scales with the
// model's confidence. The min_tokens_to_keep most likely tokens are never removed.
// Equal logits are ordered by token id so the kept set never depends on the sort implementation.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tw {

struct SamplingConfig {
  float temperature = 1.0f;    // > 0; divides the logits
  int top_k = 0;               // 0 disables
  float top_p = 1.0f;          // in (0, 1]; 1 disables
  float min_p = 0.0f;          // in [0, 1]; 0 disables
  int min_tokens_to_keep = 1;  // ≥ 1
  bool operator==(const SamplingConfig&) const = default;
};

// Empty when usable; otherwise one sentence naming the bad field.
std::string validate(const SamplingConfig& cfg);

// What survives each stage, for one vocabulary of V logits. A filtered token's logit becomes −∞.
struct SamplingTrace {
  std::vector<float> scaled_logits;  // (V) logits / temperature
  std::vector<char> kept_top_k;      // (V) 1 when the token survives top-k (all 1 when top-k is off)
  std::vector<char> kept_top_p;      // (V) 1 when it survives top-k and then top-p
  std::vector<char> kept_min_p;      // (V) 1 when it also survives min-p: the final candidates
  std::vector<float> probs_before;   // (V) softmax of scaled_logits (no filtering)
  std::vector<float> probs;          // (V) final distribution: softmax over the kept tokens, 0 elsewhere
  int n_top_k = 0;                   // how many survive top-k
  int n_top_p = 0;                   // how many survive top-k and top-p
  int n_final = 0;                   // how many survive every filter
};

// Runs every filter; assumes validate(cfg) is empty and logits is non-empty and finite. `allowed` (optional, one
// entry per token, 1 = may be drawn; logits past its end are not allowed) restricts the candidates before every filter,
// as a constraint such as "keeps the text valid UTF-8" (core/text/utf8_constraint.h); the kept_* fields then count only
// allowed tokens, probs_before does not.
void sampling_filter(SamplingTrace& out, const std::vector<float>& logits, const SamplingConfig& cfg,
                     const std::vector<char>* allowed = nullptr);

// Inverse-CDF draw from probs (which sum to 1) using the given engine; deterministic for a given seed on every
// platform (no std:: distribution involved). Never returns a token with probability 0.
int sample_token(const std::vector<float>& probs, std::mt19937_64& rng);

// Index of the largest logit (lowest index on ties): greedy decoding, the temperature → 0 limit.
int argmax_token(const std::vector<float>& logits);

}  // namespace tw
