#include "core/model/generation.h"

#include <random>

#include "core/base/i18n.h"
#include "core/model/forward.h"

namespace tw {

bool append_tokens(RowVec* next_logits, Mat* logits, Trace* trace, KVCache& cache, const ModelWeights& weights,
                   const ModelConfig& config, const std::vector<int>& tokens, std::string* error) {
  Mat rows;
  if (!forward_cached(rows, trace, cache, weights, config, tokens, error)) return false;
  if (next_logits) *next_logits = rows.row(rows.rows() - 1);
  if (logits) *logits = std::move(rows);
  return true;
}

NextTokenChoice choose_from_logits(const RowVec& last, const SamplingConfig& cfg, uint64_t seed, int index,
                                   const std::vector<char>* allowed) {
  NextTokenChoice out;
  out.error = validate(cfg);
  if (!out.error.empty()) return out;
  if (last.size() == 0) {
    out.error = tr("no logits yet: the model has not run");
    return out;
  }
  const std::vector<float> logits(last.data(), last.data() + last.size());
  sampling_filter(out.filter, logits, cfg, allowed && !allowed->empty() ? allowed : nullptr);
  for (float p : out.filter.probs_before) out.n_positive += p > 0.0f ? 1 : 0;
  // One stream per (seed, position in the continuation): golden-ratio mixing keeps neighbouring seeds apart.
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index) + 1);
  out.sampled = sample_token(out.filter.probs, rng);
  if (out.sampled >= 0 && out.sampled < static_cast<int>(out.filter.probs.size()))
    out.probability = out.filter.probs[static_cast<size_t>(out.sampled)];
  return out;
}

Generation generate(const ModelConfig& config, const ModelWeights& weights, const std::vector<int>& prompt, int count,
                    const SamplingConfig& sampling, uint64_t seed, const std::function<bool(int, int)>& progress,
                    const std::function<std::vector<char>(const std::vector<int>&)>& allowed, bool slide) {
  Generation out;
  if (out.error = validate(sampling); !out.error.empty()) return out;
  if (prompt.empty()) {
    out.error = tr("the prompt is empty: generation needs at least one token to continue");
    return out;
  }
  KVCache cache;
  cache.reset(config);
  RowVec next;
  if (!append_tokens(&next, nullptr, nullptr, cache, weights, config, prompt, &out.error)) return out;
  for (int i = 0; i < count; ++i) {
    if (progress && !progress(i, count)) {
      out.cancelled = true;
      return out;
    }
    std::vector<char> mask;
    if (allowed) {
      std::vector<int> so_far(prompt);
      so_far.insert(so_far.end(), out.tokens.begin(), out.tokens.end());
      mask = allowed(so_far);
    }
    const NextTokenChoice c = choose_from_logits(next, sampling, seed, i, &mask);
    if (!c.error.empty()) {
      out.error = c.error;
      return out;
    }
    out.tokens.push_back(c.sampled);
    out.probability.push_back(c.probability);
    out.raw_probability.push_back(c.filter.probs_before[static_cast<size_t>(c.sampled)]);
    if (i + 1 == count) break;  // the last token's own pass would only predict a token nobody asked for
    if (cache.length >= config.max_seq && slide && config.max_seq >= 2) {
      std::vector<int> window(prompt);
      window.insert(window.end(), out.tokens.begin(), out.tokens.end());
      window.erase(window.begin(), window.end() - (config.max_seq - 1));
      cache.reset(config);
      if (!append_tokens(&next, nullptr, nullptr, cache, weights, config, window, &out.error)) return out;
      continue;
    }
    if (cache.length >= config.max_seq) {
      out.error =
          subst(tr("stopped at max_seq {0}: the model has no room for more tokens"), {std::to_string(config.max_seq)});
      return out;
    }
    if (!append_tokens(&next, nullptr, nullptr, cache, weights, config, {c.sampled}, &out.error)) return out;
  }
  return out;
}

}  // namespace tw
