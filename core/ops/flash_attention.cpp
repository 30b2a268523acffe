#include "core/ops/flash_attention.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/ops/alibi.h"
#include "core/ops/exp_kernel.h"

namespace tw {

namespace {

// A (rows, cols) window of a row-major matrix whose rows are `stride` floats apart: one head's slice of q, k,
// v or of a scratch tile, seen in place (no copy) so Eigen can run the tile products as small GEMMs.
using ConstBlock = Eigen::Map<const Mat, 0, Eigen::OuterStride<>>;
using Block = Eigen::Map<Mat, 0, Eigen::OuterStride<>>;
using RowArray = Eigen::Map<Eigen::ArrayXf>;

ConstBlock head_rows(const Mat& x, int row0, int rows, int col0, int cols) {
  return ConstBlock(x.data() + static_cast<Eigen::Index>(row0) * x.cols() + col0, rows, cols,
                    Eigen::OuterStride<>(x.cols()));
}

// How a (query tile × key tile) block relates to the masks.
enum class TileCover { Blocked, Open, Mixed };  // every cell blocked / every cell allowed / evaluate per cell

// Query positions i in [i_lo, i_hi], keys j in [j_lo, j_hi]. Causal allows 0 ≤ i − j, the sliding window
// 0 ≤ i − j < W (MaskTerm::allows); both depend only on d = i − j ∈ [i_lo − j_hi, i_hi − j_lo].
TileCover cover(const MaskTerm& t, int i_lo, int i_hi, int j_lo, int j_hi) {
  if (t.kind == MaskKind::Bidirectional) return TileCover::Open;
  const int d_min = i_lo - j_hi, d_max = i_hi - j_lo;
  const int limit = t.kind == MaskKind::SlidingWindow ? t.size : std::numeric_limits<int>::max();
  if (d_max < 0 || d_min >= limit) return TileCover::Blocked;
  if (d_min >= 0 && d_max < limit) return TileCover::Open;
  return TileCover::Mixed;
}

// Whether a (query tile × key tile) block has anything the masks allow: from the corners for a simple mask,
// cell by cell for any other.
TileCover tile_cover(const AttentionOptions& opt, const MaskTerm* term, int r0, int i0, int nq, int j0, int nk) {
  if (!opt.mask && !opt.mask_matrix) return TileCover::Open;
  if (term) return cover(*term, i0, i0 + nq - 1, j0, j0 + nk - 1);
  for (int a = 0; a < nq; ++a)
    for (int b = 0; b < nk; ++b)
      if (attention_allows(opt, r0 + a, j0 + b)) return TileCover::Mixed;
  return TileCover::Blocked;
}

// What every row of every tile of one call reads.
struct RowRule {
  const AttentionOptions& opt;
  const MaskTerm* term;  // the simple mask, when there is one
  bool ranged;           // rows as one allowed column range with vectorised exp (see flash_attention_forward)
  bool has_bias;
  float cap;  // soft-cap, 0 for none
  int h, T_q, D;
};

// Row r (absolute position i) of a computed key tile starting at key j0: soft-cap, bias and mask on its nk scores
// s, then the online softmax update of its running maximum m, sum ℓ and accumulator row acc (D). P overwrites s in
// place; a row that sees nothing in this tile gets a zero P row (m, ℓ and acc untouched).
void update_row(const RowRule& rule, TileCover tc, float* s, int nk, int r, int i, int j0, float& m, float& l,
                float* acc) {
  const AttentionOptions& opt = rule.opt;
  const float cap = rule.cap;
  float tile_max = kNegInf;
  int lo = 0, hi = nk;  // allowed columns of this row (ranged path)
  if (rule.ranged) {
    if (tc == TileCover::Mixed) {  // the row's allowed keys (attention_range_term's), within this tile
      const KeyRange keys = allowed_keys(rule.term, i, j0 + nk);
      lo = std::clamp(keys.lo - j0, 0, nk);
      hi = std::clamp(keys.hi - j0, 0, nk);
    }
    for (int b = lo; b < hi && (cap > 0.0f || rule.has_bias); ++b) {
      float x = s[b];
      if (cap > 0.0f) x = cap * std::tanh(x / cap);
      if (rule.has_bias) x += opt.bias.at(rule.h, r, i, j0 + b, rule.T_q);
      s[b] = x;
    }
    if (lo < hi) tile_max = RowArray(s + lo, hi - lo).maxCoeff();
  } else {
    for (int b = 0; b < nk; ++b) {
      const int j = j0 + b;
      if (!attention_allows(opt, r, j)) {
        s[b] = kNegInf;
        continue;
      }
      float x = s[b];
      if (cap > 0.0f) x = cap * std::tanh(x / cap);
      s[b] = x + opt.bias.at(rule.h, r, i, j, rule.T_q);
      tile_max = std::max(tile_max, s[b]);
    }
  }
  if (tile_max == kNegInf) {  // this row sees nothing in this tile
    RowArray(s, nk).setZero();
    return;
  }
  const float m_new = std::max(m, tile_max);
  const float alpha = std::exp(m - m_new);  // exp(−∞) = 0 on the first contributing tile
  float sum = 0.0f;
  if (rule.ranged) {
    sum = exp_row_inplace(s + lo, m_new, hi - lo);  // vectorised exp (AVX clones); cells ≤ m_new
    std::fill(s, s + lo, 0.0f);
    std::fill(s + hi, s + nk, 0.0f);
  } else {
    for (int b = 0; b < nk; ++b) {
      s[b] = s[b] == kNegInf ? 0.0f : std::exp(s[b] - m_new);  // blocked cells are exactly 0
      sum += s[b];
    }
  }
  l = l * alpha + sum;
  if (alpha != 1.0f)
    for (int d = 0; d < rule.D; ++d) acc[d] *= alpha;
  m = m_new;
}

}  // namespace

int flash_attention_forward(Mat& out, std::vector<char>& empty_rows, const Mat& q, const Mat& k, const Mat& v,
                            const AttentionOptions& opt, int n_heads, int n_kv_heads, int head_dim, int tile_q,
                            int tile_k, FlashStats* stats, FlashObserver* observer) {
  // q: (T_q, H*D)  k, v: (T_k, KV*D)  out: (T_q, H*D)  empty_rows: (H*T_q)
  // scratch: S (tile_q, tile_k), acc (tile_q, D), m and ℓ (tile_q)
  assert(check_attention_args(q, k, v, opt, n_heads, n_kv_heads, head_dim).empty());
  assert(tile_q >= 1 && tile_k >= 1);
  const int T_q = static_cast<int>(q.rows());
  const int T_k = static_cast<int>(k.rows());
  const int H = n_heads, D = head_dim;
  const int n_rep = n_heads / n_kv_heads;
  const float scale = attention_scale(opt.scale_mode, D, opt.custom_scale);
  const float cap = opt.softcap;
  const bool has_bias = opt.bias.kind != AttentionBias::Kind::None;
  const bool any_mask = opt.mask || opt.mask_matrix;
  const MaskTerm* term = attention_range_term(opt);  // decided per tile from the corners, then per row
  // Rows of a tile are handled as one allowed column range [lo, hi) with vectorised exp when the mask is
  // simple (or absent) and the bias is finite. Otherwise (any mask, a dense bias that may hold −∞) every cell
  // is checked on its own, as in the reference.
  const bool ranged = (!any_mask || term) && opt.bias.kind != AttentionBias::Kind::Dense;
  RowRule rule{opt, term, ranged, has_bias, cap, 0, T_q, D};

  Mat qn, kn;  // QK-norm copies: O(T·D), like the inputs themselves
  if (opt.qk_norm) {
    qk_norm_heads(qn, q, opt.q_norm_weight, opt.qk_norm_eps, n_heads, D);
    qk_norm_heads(kn, k, opt.k_norm_weight, opt.qk_norm_eps, n_kv_heads, D);
  }
  const Mat& Q = opt.qk_norm ? qn : q;
  const Mat& K = opt.qk_norm ? kn : k;

  // All scratch is allocated here, once; the loops below never allocate (Eigen's tile products pack their
  // operands on the stack at these sizes).
  std::vector<float> S(static_cast<size_t>(tile_q) * tile_k);
  std::vector<float> acc(static_cast<size_t>(tile_q) * D);
  std::vector<float> m(tile_q), l(tile_q);
  out.setZero(T_q, static_cast<Eigen::Index>(H) * D);
  empty_rows.assign(static_cast<size_t>(H) * T_q, 0);
  FlashStats st;
  st.scratch_bytes = (S.size() + acc.size() + m.size() + l.size()) * sizeof(float) +
                     (opt.qk_norm ? static_cast<size_t>(qn.size() + kn.size()) * sizeof(float) : 0);
  int n_empty = 0;

  for (int h = 0; h < H; ++h) {  // (head, query tile) pairs are independent: one thread block each on a GPU
    const int g = h / n_rep;
    rule.h = h;
    for (int r0 = 0; r0 < T_q; r0 += tile_q) {
      const int nq = std::min(tile_q, T_q - r0);
      const int i0 = opt.q_offset + r0;  // absolute position of the tile's first query
      std::fill(m.begin(), m.begin() + nq, kNegInf);
      std::fill(l.begin(), l.begin() + nq, 0.0f);
      Block A(acc.data(), nq, D, Eigen::OuterStride<>(D));  // (nq, D) output accumulator
      A.setZero();
      const ConstBlock Qt = head_rows(Q, r0, nq, h * D, D);  // (nq, D)

      for (int j0 = 0; j0 < T_k; j0 += tile_k) {  // stream key tiles through the block
        const int nk = std::min(tile_k, T_k - j0);
        // 1. Does the mask leave anything in this tile? Skip it when every cell is blocked.
        const TileCover tc = tile_cover(opt, term, r0, i0, nq, j0, nk);
        if (tc == TileCover::Blocked) {
          ++st.tiles_skipped;
          if (observer) observer->tile({h, r0, nq, j0, nk, true, m.data(), l.data(), acc.data(), nullptr, tile_k});
          continue;
        }
        ++st.tiles_computed;
        // Causal and sliding-window masks block every key after the tile's last query: those columns are
        // neither multiplied nor exponentiated (their P is 0), so a wide key tile on the diagonal costs only
        // its allowed part.
        const int nk_used = tc == TileCover::Mixed && term && term->kind != MaskKind::Bidirectional
                                ? std::clamp(i0 + nq - j0, 1, nk)
                                : nk;

        // 2. S = scale · Q_tile K_tileᵀ as one small GEMM, for every used cell (masked ones are overwritten
        // below).
        Block St(S.data(), nq, nk_used, Eigen::OuterStride<>(tile_k));
        St.noalias() = scale * (Qt * head_rows(K, j0, nk_used, g * D, D).transpose());

        // 3. Per row: soft-cap, bias and mask; then the online softmax update.
        for (int a = 0; a < nq; ++a)
          update_row(rule, tc, S.data() + static_cast<size_t>(a) * tile_k, nk, r0 + a, i0 + a, j0, m[a], l[a],
                     acc.data() + static_cast<size_t>(a) * D);
        // 4. acc += P_tile V_tile, the second small GEMM (over the used keys; the rest of P is 0).
        A.noalias() += St * head_rows(v, j0, nk_used, g * D, D);
        if (observer) observer->tile({h, r0, nq, j0, nk, false, m.data(), l.data(), acc.data(), S.data(), tile_k});
      }
      // 5. Normalise once at the end; rows that never saw a key are flagged and stay zero.
      for (int a = 0; a < nq; ++a) {
        const int r = r0 + a;
        if (l[a] == 0.0f) {
          empty_rows[static_cast<size_t>(h) * T_q + r] = 1;
          ++n_empty;
          continue;
        }
        const float inv = 1.0f / l[a];
        float* o = out.data() + static_cast<Eigen::Index>(r) * out.cols() + static_cast<Eigen::Index>(h) * D;
        const float* src = acc.data() + static_cast<size_t>(a) * D;
        for (int d = 0; d < D; ++d) o[d] = src[d] * inv;
      }
    }
  }
  if (stats) *stats = st;
  return n_empty;
}

}  // namespace tw
