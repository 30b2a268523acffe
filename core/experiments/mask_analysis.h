#pragma once
// What a mask lets attention see (masks panel): the allowed/blocked matrix with the term that blocked each cell,
// visible keys per query, the share of the T×T score matrix actually computed, rows with no visible key,
// attention probabilities when every score is equal, and how far information travels through L stacked layers
// when local (windowed) and global layers are interleaved.
//
// Terms are combined by combine_mask_terms (core/ops/mask.h): structural terms AND sparsity terms, with
// global/sink tokens as exceptions to the sparsity terms.

#include <string>
#include <vector>

#include "core/ops/mask.h"
#include "core/tensor.h"

namespace tw {

struct MaskAnalysis {
  std::string error;  // non-empty when a term or T is invalid; nothing below is filled then
  int T = 0;
  MatB allowed;                 // (T, T) row = query i, column = key j, true = visible
  std::vector<int> blocked_by;  // (T*T) row-major: index into `terms` of the term that blocked (i, j), −1 if visible
  std::vector<int> visible_keys;  // (T) number of visible keys of each query
  long long visible_cells = 0;    // Σ visible_keys
  double fraction_computed = 0;   // visible_cells / T²: the share of QKᵀ a mask-aware kernel must compute
  std::vector<int> empty_rows;    // queries with no visible key (their attention output is defined as 0)
  Mat uniform_probs;              // (T, T) softmax of all-zero scores under the mask: 1/visible_keys or 0
};
MaskAnalysis analyze_mask(const std::vector<MaskTerm>& terms, int T);

// [SECTION] Interleaved local/global layers
// Layer l (1-based) uses full attention — the structural terms only, no window/dilation — when
// global_period > 0 and l % global_period == 0; otherwise it uses the whole mask. global_period 0 = never.
struct InterleavePreset {
  const char* name;
  int global_period;  // full attention every k-th layer
  int window;         // the model's own sliding window (tokens)
  const char* source;
};
// Gemma 2, Gemma 3, Cohere-style (Command R7B); each entry names its source.
const std::vector<InterleavePreset>& interleave_presets();
bool layer_is_global(int layer_1based, int global_period);

struct ReceptiveField {
  std::string error;
  std::vector<char> layer_global;     // (L) 1 where layer l+1 is a full-attention layer
  std::vector<int> last_query_reach;  // (L) after layer l+1: T−1 − (oldest position the last query has heard from)
  std::vector<int> last_query_count;  // (L) after layer l+1: how many positions reach the last query
  std::vector<double> mean_count;     // (L) the same count averaged over all queries
  MatB reach;                         // (T, T) after all L layers: true when position j's information reaches i
};
// Information flows along allowed (i, j) edges in every layer and along the residual stream (i keeps its own
// past), so reach_l(i) = reach_{l−1}(i) ∪ ⋃_{j visible from i in layer l} reach_{l−1}(j). Bitsets: O(L·T²·T/64).
ReceptiveField receptive_field(const std::vector<MaskTerm>& terms, int T, int layers, int global_period);

// Work of analyze_mask plus receptive_field in cell visits (T² per layer and once for the mask): the panel waits
// for a result only when this is small (5e5 is well under a millisecond).
inline double mask_work(int T, int layers) { return double(T) * T * (1 + layers); }

}  // namespace tw
