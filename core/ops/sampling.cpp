#include "core/ops/sampling.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "core/base/i18n.h"
#include "core/ops/softmax.h"
#include "core/random.h"

namespace tw {

std::string validate(const SamplingConfig& cfg) {
  if (!(cfg.temperature > 0.0f) || !std::isfinite(cfg.temperature))
    return tr("temperature must be a finite number > 0 (use greedy decoding for temperature 0)");
  if (cfg.top_k < 0) return tr("top_k must be ≥ 0 (0 disables it)");
  if (!(cfg.top_p > 0.0f && cfg.top_p <= 1.0f)) return tr("top_p must be in (0, 1] (1 disables it)");
  if (!(cfg.min_p >= 0.0f && cfg.min_p <= 1.0f)) return tr("min_p must be in [0, 1] (0 disables it)");
  if (cfg.min_tokens_to_keep < 1) return tr("min_tokens_to_keep must be at least 1");
  return "";
}

namespace {

// A uniform double in [0, 1) from the engine's top 53 bits: the same on every platform, unlike std distributions.

// Softmax over the entries where keep[i] is set (all when keep is empty), in double for the cumulative sums: the
// others enter as −∞, so they get exactly 0.
void masked_softmax(std::vector<float>& probs, const std::vector<float>& logits, const std::vector<char>& keep) {
  std::vector<double> x(logits.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = keep.empty() || keep[i] ? static_cast<double>(logits[i]) : -INFINITY;
  const std::vector<double> p = softmax(x);
  probs.resize(p.size());
  for (size_t i = 0; i < p.size(); ++i) probs[i] = static_cast<float>(p[i]);
}

}  // namespace

void sampling_filter(SamplingTrace& out, const std::vector<float>& logits, const SamplingConfig& cfg,
                     const std::vector<char>* allowed) {
  // logits, allowed and every per-token field: (V)
  const int V = static_cast<int>(logits.size());
  out.scaled_logits.resize(static_cast<size_t>(V));
  for (int i = 0; i < V; ++i)
    out.scaled_logits[static_cast<size_t>(i)] = logits[static_cast<size_t>(i)] / cfg.temperature;
  masked_softmax(out.probs_before, out.scaled_logits, {});

  const auto& s = out.scaled_logits;

  // The allowed tokens (all when `allowed` is null or allows none) are the candidates every filter starts from,
  // like a logits processor that runs before Hugging Face's warpers.
  out.kept_top_k.assign(static_cast<size_t>(V), 1);
  // A model may have more logits than its vocabulary has tokens (padded rows): those are never allowed.
  if (allowed && std::find(allowed->begin(), allowed->end(), 1) != allowed->end())
    for (int i = 0; i < V; ++i) {
      const size_t k = static_cast<size_t>(i);
      out.kept_top_k[k] = k < allowed->size() && (*allowed)[k] ? 1 : 0;
    }
  // top-k: threshold = k-th largest candidate value (nth_element, O(V)); every candidate at or above it survives.
  if (cfg.top_k > 0) {
    std::vector<float> values;
    values.reserve(static_cast<size_t>(V));
    for (int i = 0; i < V; ++i)
      if (out.kept_top_k[static_cast<size_t>(i)]) values.push_back(s[static_cast<size_t>(i)]);
    const int k = std::min(std::max(cfg.top_k, cfg.min_tokens_to_keep), static_cast<int>(values.size()));
    std::nth_element(values.begin(), values.begin() + (k - 1), values.end(), std::greater<float>());
    const float kth = values[static_cast<size_t>(k - 1)];
    for (int i = 0; i < V; ++i)
      out.kept_top_k[static_cast<size_t>(i)] =
          out.kept_top_k[static_cast<size_t>(i)] && s[static_cast<size_t>(i)] >= kth;
  }
  out.n_top_k = static_cast<int>(std::count(out.kept_top_k.begin(), out.kept_top_k.end(), 1));

  // top-p over the distribution left by top-k: keep a token while the mass before it is < p.
  out.kept_top_p = out.kept_top_k;
  if (cfg.top_p < 1.0f) {
    std::vector<float> p_k;
    masked_softmax(p_k, s, out.kept_top_k);
    // The top-k survivors, descending by logit, ties by token id (only these need sorting).
    std::vector<int> order;
    order.reserve(static_cast<size_t>(out.n_top_k));
    for (int i = 0; i < V; ++i)
      if (out.kept_top_k[static_cast<size_t>(i)]) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return s[static_cast<size_t>(a)] > s[static_cast<size_t>(b)]; });
    double before = 0.0;
    int rank = 0;  // position among the top-k survivors, in descending order
    for (int idx : order) {
      const size_t i = static_cast<size_t>(idx);
      out.kept_top_p[i] = (before < static_cast<double>(cfg.top_p) || rank < cfg.min_tokens_to_keep) ? 1 : 0;
      before += p_k[i];
      ++rank;
    }
  }
  out.n_top_p = static_cast<int>(std::count(out.kept_top_p.begin(), out.kept_top_p.end(), 1));

  // min-p over the distribution left by top-p: p_i < min_p · p_max  ⟺  s_i − s_max < ln(min_p), in double.
  out.kept_min_p = out.kept_top_p;
  if (cfg.min_p > 0.0f) {
    std::vector<int> order;  // top-p survivors, descending by logit, ties by id: the first min_tokens_to_keep stay
    for (int i = 0; i < V; ++i)
      if (out.kept_top_p[static_cast<size_t>(i)]) order.push_back(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return s[static_cast<size_t>(a)] > s[static_cast<size_t>(b)]; });
    const double s_max = s[static_cast<size_t>(order.front())];
    const double cut = std::log(static_cast<double>(cfg.min_p));
    for (size_t rank = 0; rank < order.size(); ++rank) {
      const size_t i = static_cast<size_t>(order[rank]);
      const bool below = static_cast<double>(s[i]) - s_max < cut;
      out.kept_min_p[i] = (!below || static_cast<int>(rank) < cfg.min_tokens_to_keep) ? 1 : 0;
    }
  }
  out.n_final = static_cast<int>(std::count(out.kept_min_p.begin(), out.kept_min_p.end(), 1));
  masked_softmax(out.probs, s, out.kept_min_p);
}

int sample_token(const std::vector<float>& probs, std::mt19937_64& rng) {
  const double u = uniform01(rng);
  double total = 0.0;
  for (float p : probs) total += p;
  double cum = 0.0;
  int last_nonzero = -1;
  for (size_t i = 0; i < probs.size(); ++i) {
    if (probs[i] <= 0.0f) continue;
    last_nonzero = static_cast<int>(i);
    cum += probs[i];
    if (u * total < cum) return last_nonzero;
  }
  return last_nonzero;  // rounding left u·total at the very top: the last possible token
}

int argmax_token(const std::vector<float>& logits) {
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace tw
