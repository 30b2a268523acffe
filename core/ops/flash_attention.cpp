#include "core/ops/flash_attention.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/ops/alibi.h"

namespace tw {

int flash_attention_forward(Mat& out, std::vector<char>& empty_rows, const Mat& q, const Mat& k, const Mat& v,
                            const AttentionOptions& opt, int n_heads, int n_kv_heads, int head_dim, int tile_q,
                            int tile_k, FlashStats* stats) {
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

  Mat qn, kn;  // QK-norm copies: O(T·D), like the inputs themselves
  if (opt.qk_norm) {
    qk_norm_heads(qn, q, opt.q_norm_weight, opt.qk_norm_eps, n_heads, D);
    qk_norm_heads(kn, k, opt.k_norm_weight, opt.qk_norm_eps, n_kv_heads, D);
  }
  const Mat& Q = opt.qk_norm ? qn : q;
  const Mat& K = opt.qk_norm ? kn : k;

  // All scratch is allocated here, once; the loops below never allocate.
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
    for (int r0 = 0; r0 < T_q; r0 += tile_q) {
      const int nq = std::min(tile_q, T_q - r0);
      std::fill(m.begin(), m.begin() + nq, kNegInf);
      std::fill(l.begin(), l.begin() + nq, 0.0f);
      std::fill(acc.begin(), acc.begin() + static_cast<size_t>(nq) * D, 0.0f);

      for (int j0 = 0; j0 < T_k; j0 += tile_k) {  // stream key tiles through the block
        const int nk = std::min(tile_k, T_k - j0);
        // 1. Mask for the tile; skip the tile when it is entirely blocked.
        bool any = false;
        for (int a = 0; a < nq; ++a)
          for (int b = 0; b < nk; ++b) {
            const bool ok = attention_allows(opt, r0 + a, j0 + b);
            S[static_cast<size_t>(a) * tile_k + b] = ok ? 0.0f : kNegInf;
            any = any || ok;
          }
        if (!any) {
          ++st.tiles_skipped;
          continue;
        }
        ++st.tiles_computed;
        // 2. Scores of the allowed cells: scale, soft-cap, bias.
        for (int a = 0; a < nq; ++a) {
          const int r = r0 + a, i = opt.q_offset + r;
          const float* qr = Q.data() + static_cast<Eigen::Index>(r) * Q.cols() + static_cast<Eigen::Index>(h) * D;
          float* s = S.data() + static_cast<size_t>(a) * tile_k;
          for (int b = 0; b < nk; ++b) {
            if (s[b] == kNegInf) continue;
            const int j = j0 + b;
            const float* kr = K.data() + static_cast<Eigen::Index>(j) * K.cols() + static_cast<Eigen::Index>(g) * D;
            float dot = 0.0f;
            for (int d = 0; d < D; ++d) dot += qr[d] * kr[d];
            float x = dot * scale;
            if (cap > 0.0f) x = cap * std::tanh(x / cap);
            s[b] = x + opt.bias.at(h, r, i, j, T_q);
          }
        }
        // 3. Online softmax update, row by row.
        for (int a = 0; a < nq; ++a) {
          float* s = S.data() + static_cast<size_t>(a) * tile_k;
          float tile_max = kNegInf;
          for (int b = 0; b < nk; ++b) tile_max = std::max(tile_max, s[b]);
          if (tile_max == kNegInf) continue;  // this row sees nothing in this tile
          const float m_new = std::max(m[a], tile_max);
          const float alpha = std::exp(m[a] - m_new);  // exp(−∞) = 0 on the first contributing tile
          float sum = 0.0f;
          for (int b = 0; b < nk; ++b) {
            s[b] = std::exp(s[b] - m_new);
            sum += s[b];
          }
          l[a] = l[a] * alpha + sum;
          float* o = acc.data() + static_cast<size_t>(a) * D;
          for (int d = 0; d < D; ++d) o[d] *= alpha;
          for (int b = 0; b < nk; ++b) {
            if (s[b] == 0.0f) continue;
            const float* vr =
                v.data() + static_cast<Eigen::Index>(j0 + b) * v.cols() + static_cast<Eigen::Index>(g) * D;
            for (int d = 0; d < D; ++d) o[d] += s[b] * vr[d];
          }
          m[a] = m_new;
        }
      }
      // 4. Normalise once at the end; rows that never saw a key are flagged and stay zero.
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
