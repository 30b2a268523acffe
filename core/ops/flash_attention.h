#pragma once
// Tiled attention with online softmax (FlashAttention, Dao et al. 2022), exact, never materialising T×T.
//
// For each (head, query tile) — independent work items, one GPU thread block each — walk the key tiles:
//   S_tile = scale·Q_tile K_tileᵀ → softcap → + bias → −∞ where masked     (tile_q × tile_k scratch)
//   m_new  = max(m, rowmax(S_tile))
//   P_tile = exp(S_tile − m_new)
//   ℓ      = ℓ·exp(m − m_new) + rowsum(P_tile)
//   acc    = acc·exp(m − m_new) + P_tile V_tile
//   m      = m_new
// and finish with O = acc / ℓ. Rows whose every key is masked keep m = −∞ and ℓ = 0; they give zeros and are
// flagged, exactly like the reference. Masks and biases are evaluated per tile from their predicates, so
// scratch memory is O(tile_q·tile_k + tile_q·D), independent of T. Tiles whose every cell is masked are
// skipped (that is how causal FlashAttention saves half the work), and a causal or sliding-window key tile that
// crosses the diagonal is cut after the tile's last query (so a wide key tile costs only its allowed part).
// On the CPU, Q_tile K_tileᵀ and P_tile V_tile are small Eigen GEMMs on the head's rows in place (no copies);
// a single causal or sliding-window mask (what forward() passes) is decided per tile and per row as a column
// range, so only the diagonal band evaluates the mask and exp runs vectorised. Other masks, and dense biases
// (which may hold −∞), are checked cell by cell like the reference.
//
// Same arguments and semantics as attention_forward (core/ops/attention.h), minus the (H, T, T) outputs.

#include <cstddef>
#include <vector>

#include "core/ops/attention.h"

namespace tw {

struct FlashStats {
  std::size_t scratch_bytes = 0;  // bytes of working memory the kernel allocated (tiles + row statistics)
  long long tiles_computed = 0;   // (head, q-tile, k-tile) triples whose scores were computed
  long long tiles_skipped = 0;    // triples skipped because the mask blocked every cell
};

// Sees the kernel's state after every key tile of every (head, query tile): what a learner steps through.
// Called from inside the kernel; the spans are only valid during the call.
struct FlashTileState {
  int head = 0, q0 = 0, nq = 0, k0 = 0, nk = 0;  // the tile: query rows q0..q0+nq−1, keys k0..k0+nk−1
  bool skipped = false;                          // every cell masked: nothing loaded, state unchanged
  const float* m = nullptr;                      // (nq) running row max after this tile
  const float* l = nullptr;                      // (nq) running row sum ℓ after this tile
  const float* acc = nullptr;                    // (nq, D) unnormalised output accumulator, rows D floats apart
  const float* p = nullptr;                      // (nq, nk) exp(S − m_new) of this tile, rows tile_k floats apart
  int p_stride = 0;                              // tile_k
};
struct FlashObserver {
  virtual ~FlashObserver() = default;
  virtual void tile(const FlashTileState& state) = 0;
};

// out: (T_q, H*D); empty_rows: (H*T_q). tile_q, tile_k ≥ 1 (any size; T need not be a multiple).
// Returns the number of empty rows. stats (optional) receives memory and work counts.
int flash_attention_forward(Mat& out, std::vector<char>& empty_rows, const Mat& q, const Mat& k, const Mat& v,
                            const AttentionOptions& opt, int n_heads, int n_kv_heads, int head_dim, int tile_q,
                            int tile_k, FlashStats* stats = nullptr, FlashObserver* observer = nullptr);

}  // namespace tw
