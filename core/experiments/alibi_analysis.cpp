#include "core/experiments/alibi_analysis.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/experiments/softmax_saturation.h"
#include "core/ops/alibi.h"
#include "core/ops/softmax.h"

namespace tw {

namespace {
std::string check(const AlibiParams& p) {
  auto range = [](const char* name, int v, int lo, int hi) -> std::string {
    if (v >= lo && v <= hi) return "";
    return std::string(name) + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
           std::to_string(v);
  };
  for (const std::string& e :
       {range("number of heads", p.n_heads, 1, 64), range("T", p.T, 1, 1024),
        range("selected head", p.head, 0, p.n_heads - 1), range("d_k", p.d_k, 1, 4096),
        range("training length", p.train_len, 1, 65536), range("evaluation length", p.eval_len, 1, 65536),
        range("thumbnail size", p.thumb_T, 1, 256)})
    if (!e.empty()) return e;
  return "";
}

// Row of pre-bias scores for `n` keys: zeros, or one query's q·k/√d_k against n random keys.
void scores_row(std::vector<float>& s, bool random, int d_k, int n, std::mt19937_64& rng) {
  if (!random) {
    s.assign(n, 0.0f);
    return;
  }
  sample_scores(s, rng, d_k, n);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
  for (float& x : s) x *= scale;
}
}  // namespace

AlibiAnalysis analyze_alibi(const AlibiParams& p) {
  AlibiAnalysis a;
  a.error = check(p);
  if (!a.error.empty()) return a;
  const int H = p.n_heads;
  a.slopes = alibi_slopes(H);
  alibi_bias(a.bias, a.slopes[p.head], p.T, p.T, 0, p.symmetric);
  const int t = std::min(p.T, p.thumb_T);
  a.thumbs.resize(H);
  for (int h = 0; h < H; ++h) alibi_bias(a.thumbs[h], a.slopes[h], t, t, 0, p.symmetric);

  // Last query i = eval_len − 1 against keys 0..i: causal and symmetric agree here (every key is in the past).
  const int n = p.eval_len, i = n - 1;
  a.last_query_probs.resize(H, n);
  a.mean_distance.assign(H, 0.0);
  a.mass_beyond_train.assign(H, 0.0);
  a.half_mass_distance.assign(H, 0);
  std::vector<float> s;
  for (int h = 0; h < H; ++h) {  // one head per work item, each with its own random stream
    std::mt19937_64 rng(p.seed * 1000003ull + static_cast<std::uint64_t>(h));
    scores_row(s, p.random_scores, p.d_k, n, rng);
    for (int j = 0; j < n; ++j) s[j] += alibi_bias_at(a.slopes[h], i, j, p.symmetric);
    softmax_inplace(s.data(), n);
    double cum = 0.0;
    int half = -1;
    for (int d = 0; d <= i; ++d) {  // walk outwards from the query
      const double pj = s[i - d];
      a.mean_distance[h] += pj * d;
      if (d >= p.train_len) a.mass_beyond_train[h] += pj;
      cum += pj;
      if (half < 0 && cum >= 0.5) half = d;
    }
    a.half_mass_distance[h] = half < 0 ? i : half;
    for (int j = 0; j < n; ++j) a.last_query_probs(h, j) = s[j];
  }

  // Shortcut check on (Tc, Tc) causal rows: softmax(S − m(i − j)) vs softmax(S + m·j), same scores S.
  const int Tc = std::min(p.T, 128);
  a.equivalence_T = Tc;
  a.equivalence_applies = !p.symmetric;
  std::vector<float> base, ref, fast;
  for (int h = 0; h < H; ++h) {
    std::mt19937_64 rng(p.seed * 1000003ull + 7777ull + static_cast<std::uint64_t>(h));
    for (int r = 0; r < Tc; ++r) {
      scores_row(base, p.random_scores, p.d_k, Tc, rng);
      ref.resize(Tc);
      fast.resize(Tc);
      for (int j = 0; j < Tc; ++j) {
        const bool visible = p.symmetric || j <= r;
        ref[j] = visible ? base[j] + alibi_bias_at(a.slopes[h], r, j, p.symmetric) : kNegInf;
        fast[j] = visible ? base[j] + static_cast<float>(a.slopes[h] * j) : kNegInf;
      }
      softmax_inplace(ref.data(), Tc);
      softmax_inplace(fast.data(), Tc);
      for (int j = 0; j < Tc; ++j)
        a.equivalence_max_diff = std::max(a.equivalence_max_diff, static_cast<double>(std::abs(ref[j] - fast[j])));
    }
  }
  return a;
}

}  // namespace tw
