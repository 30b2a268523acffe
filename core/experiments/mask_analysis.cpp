#include "core/experiments/mask_analysis.h"

#include <cstdint>

#include "core/base/i18n.h"
#include "core/ops/softmax.h"

namespace tw {

namespace {
constexpr int kMaxT = 4096;

std::string validate(const std::vector<MaskTerm>& terms, int T) {
  if (T < 1 || T > kMaxT)
    return subst(tr("sequence length $T$ must be in 1..{0}, got {1}"), {std::to_string(kMaxT), std::to_string(T)});
  for (const MaskTerm& t : terms) {
    const std::string e = validate_mask_term(t, T);
    if (!e.empty()) return e;
  }
  return "";
}
}  // namespace

MaskAnalysis analyze_mask(const std::vector<MaskTerm>& terms, int T) {
  MaskAnalysis a;
  a.error = validate(terms, T);
  if (!a.error.empty()) return a;
  a.T = T;
  const Mask mask = combine_mask_terms(terms);
  a.allowed.resize(T, T);
  a.blocked_by.assign(static_cast<size_t>(T) * T, -1);
  a.visible_keys.assign(T, 0);
  Mat logits(T, T);
  for (int i = 0; i < T; ++i) {  // one query per work item
    for (int j = 0; j < T; ++j) {
      const MaskTerm* b = mask.blocking_term(i, j);
      a.allowed(i, j) = b == nullptr;
      logits(i, j) = b ? kNegInf : 0.0f;
      if (b)
        a.blocked_by[static_cast<size_t>(i) * T + j] = b->tag;
      else
        ++a.visible_keys[i];
    }
    a.visible_cells += a.visible_keys[i];
    if (a.visible_keys[i] == 0) a.empty_rows.push_back(i);
  }
  a.fraction_computed = static_cast<double>(a.visible_cells) / (static_cast<double>(T) * T);
  softmax_rows(a.uniform_probs, logits);
  return a;
}

const std::vector<InterleavePreset>& interleave_presets() {
  static const std::vector<InterleavePreset> presets = {
      {"Gemma 2", 2, 4096,
       N_("Gemma 2 technical report (2024): local sliding-window (4096) and global attention alternate every other "
          "layer")},
      {"Gemma 3", 6, 1024, N_("Gemma 3 technical report (2025): 5 local layers (window 1024) for every global layer")},
      {"Cohere-style", 4, 4096,
       N_("Cohere Command R7B model card (2024): 3 sliding-window layers (4096) then 1 global layer without "
          "positions")},
  };
  return presets;
}

bool layer_is_global(int layer_1based, int global_period) {
  return global_period > 0 && layer_1based % global_period == 0;
}

ReceptiveField receptive_field(const std::vector<MaskTerm>& terms, int T, int layers, int global_period) {
  ReceptiveField rf;
  rf.error = validate(terms, T);
  if (rf.error.empty() && (layers < 1 || layers > 256))
    rf.error = subst(tr("layers must be in 1..256, got {0}"), {std::to_string(layers)});
  if (rf.error.empty() && global_period < 0) rf.error = tr("global layer period must be >= 0 (0 = never)");
  if (!rf.error.empty()) return rf;

  std::vector<MaskTerm> structural;
  for (const MaskTerm& t : terms)
    if (t.kind != MaskKind::SlidingWindow && t.kind != MaskKind::Dilated && t.kind != MaskKind::Global)
      structural.push_back(t);
  MatB local, global;  // evaluated once: the layer loop only reads them
  materialize_mask(local, combine_mask_terms(terms), T, T);
  materialize_mask(global, combine_mask_terms(structural), T, T);

  // Bitset rows: W words of 64 positions each. All buffers are allocated before the layer loop.
  const int W = (T + 63) / 64;
  auto bit = [W](std::vector<std::uint64_t>& m, int i, int j) {
    m[static_cast<size_t>(i) * W + j / 64] |= 1ull << (j % 64);
  };
  std::vector<std::uint64_t> reach(static_cast<size_t>(T) * W, 0), next(reach.size());
  for (int i = 0; i < T; ++i) bit(reach, i, i);  // before layer 1 each position holds only itself

  for (int l = 1; l <= layers; ++l) {
    const bool is_global = layer_is_global(l, global_period);
    const MatB& m = is_global ? global : local;
    rf.layer_global.push_back(is_global ? 1 : 0);
    for (int i = 0; i < T; ++i) {  // one query per work item
      std::uint64_t* out = next.data() + static_cast<size_t>(i) * W;
      const std::uint64_t* self = reach.data() + static_cast<size_t>(i) * W;
      for (int w = 0; w < W; ++w) out[w] = self[w];  // residual stream
      for (int j = 0; j < T; ++j) {
        if (!m(i, j)) continue;
        const std::uint64_t* src = reach.data() + static_cast<size_t>(j) * W;
        for (int w = 0; w < W; ++w) out[w] |= src[w];
      }
    }
    reach.swap(next);
    long long total = 0;
    int last_count = 0, oldest = T - 1;
    for (int i = 0; i < T; ++i)
      for (int w = 0; w < W; ++w) {
        const int c = __builtin_popcountll(reach[static_cast<size_t>(i) * W + w]);
        total += c;
        if (i == T - 1) last_count += c;
      }
    for (int j = 0; j < T; ++j)
      if (reach[static_cast<size_t>(T - 1) * W + j / 64] >> (j % 64) & 1ull) {
        oldest = j;
        break;
      }
    rf.last_query_reach.push_back(T - 1 - oldest);
    rf.last_query_count.push_back(last_count);
    rf.mean_count.push_back(static_cast<double>(total) / T);
  }
  rf.reach.resize(T, T);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j) rf.reach(i, j) = (reach[static_cast<size_t>(i) * W + j / 64] >> (j % 64)) & 1ull;
  return rf;
}

}  // namespace tw
