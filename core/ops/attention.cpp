#include "core/ops/attention.h"
#include "core/base/i18n.h"  // N_: names translated where shown

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/enum_names.h"
#include "core/ops/alibi.h"
#include "core/ops/exp_kernel.h"
#include "core/ops/norm.h"
#include "core/ops/softmax.h"

namespace tw {

namespace {
constexpr const char* kScaleModeNames[] = {"1/sqrt(d_k)", N_("none"), "1/d_k", N_("custom")};
static_assert(names_every(kScaleModeNames, ScaleMode::Custom));
}  // namespace

const char* scale_mode_name(ScaleMode m) { return enum_name(kScaleModeNames, m); }
const char* scale_mode_formula(ScaleMode m) {
  switch (m) {
    case ScaleMode::InvSqrtDk: return "$1/\\sqrt{d_k}$";
    case ScaleMode::InvDk: return "$1/d_k$";
    default: return tr(scale_mode_name(m));
  }
}

float attention_scale(ScaleMode mode, int head_dim, float custom) {
  switch (mode) {
    case ScaleMode::InvSqrtDk: return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim)));
    case ScaleMode::None: return 1.0f;
    case ScaleMode::InvDk: return 1.0f / static_cast<float>(head_dim);
    case ScaleMode::Custom: return custom;
  }
  return 1.0f;
}

float AttentionBias::at(int h, int r, int i, int j, int T_q) const {
  switch (kind) {
    case Kind::None: return 0.0f;
    case Kind::Alibi: return alibi_bias_at(slopes[h], i, j, false);
    case Kind::AlibiSymmetric: return alibi_bias_at(slopes[h], i, j, true);
    case Kind::Dense:
      return dense->rows() == T_q ? (*dense)(r, j) : (*dense)(static_cast<Eigen::Index>(h) * T_q + r, j);
  }
  return 0.0f;
}

std::string check_attention_args(const Mat& q, const Mat& k, const Mat& v, const AttentionOptions& opt, int n_heads,
                                 int n_kv_heads, int head_dim) {
  auto s = [](Eigen::Index x) { return std::to_string(x); };
  if (n_heads < 1 || n_kv_heads < 1 || head_dim < 1) return tr("n_heads, n_kv_heads and head_dim must be >= 1");
  if (n_heads % n_kv_heads != 0)
    return subst(tr("n_heads ({0}) must be a multiple of n_kv_heads ({1})"), {s(n_heads), s(n_kv_heads)});
  if (q.cols() != static_cast<Eigen::Index>(n_heads) * head_dim)
    return subst(tr("queries have {0} columns, expected n_heads*head_dim = {1}"), {s(q.cols()), s(n_heads * head_dim)});
  if (k.cols() != static_cast<Eigen::Index>(n_kv_heads) * head_dim || v.cols() != k.cols())
    return subst(tr("keys and values need n_kv_heads*head_dim = {0} columns, got {1} and {2}"),
                 {s(n_kv_heads * head_dim), s(k.cols()), s(v.cols())});
  if (k.rows() != v.rows()) return subst(tr("keys have {0} rows but values have {1}"), {s(k.rows()), s(v.rows())});
  if (opt.q_offset < 0) return tr("q_offset must be >= 0");
  if (opt.softcap < 0.0f) return tr("softcap must be >= 0 (0 disables it)");
  if (opt.scale_mode == ScaleMode::Custom && !std::isfinite(opt.custom_scale)) return tr("custom scale must be finite");
  if (opt.mask_matrix && (opt.mask_matrix->rows() != q.rows() || opt.mask_matrix->cols() != k.rows()))
    return subst(tr("the mask matrix must have {0} rows (queries) and {1} columns (keys)"), {s(q.rows()), s(k.rows())});
  if ((opt.q_norm_weight && opt.q_norm_weight->size() != head_dim) ||
      (opt.k_norm_weight && opt.k_norm_weight->size() != head_dim))
    return subst(tr("QK-norm weights must have head_dim = {0} entries"), {s(head_dim)});
  const AttentionBias& b = opt.bias;
  if ((b.kind == AttentionBias::Kind::Alibi || b.kind == AttentionBias::Kind::AlibiSymmetric) &&
      static_cast<int>(b.slopes.size()) != n_heads)
    return subst(tr("ALiBi bias needs one slope per head ({0}), got {1}"), {s(n_heads), s(b.slopes.size())});
  if (b.kind == AttentionBias::Kind::Dense &&
      (!b.dense || b.dense->cols() != k.rows() ||
       (b.dense->rows() != q.rows() && b.dense->rows() != static_cast<Eigen::Index>(n_heads) * q.rows())))
    return tr("dense bias must be (T_q, T_k) or (H*T_q, T_k)");
  return "";
}

void qk_norm_heads(Mat& out, const Mat& x, const Vec* weight, float eps, int n, int head_dim) {
  // x, out: (T, n*D); weight: (D) or nullptr
  const int T = static_cast<int>(x.rows());
  if (&out != &x) out.resize(T, x.cols());
  for (int t = 0; t < T; ++t)      // one token
    for (int h = 0; h < n; ++h) {  // one head slice
      const Eigen::Index off = static_cast<Eigen::Index>(t) * x.cols() + static_cast<Eigen::Index>(h) * head_dim;
      rmsnorm_row(out.data() + off, x.data() + off, weight ? weight->data() : nullptr, head_dim, eps);
    }
}

const MaskTerm* attention_range_term(const AttentionOptions& opt) {
  if (opt.mask_matrix || !opt.mask || opt.mask->op != Mask::Op::Term) return nullptr;
  const MaskTerm& t = opt.mask->term;
  const bool simple =
      t.kind == MaskKind::Causal || t.kind == MaskKind::Bidirectional || t.kind == MaskKind::SlidingWindow;
  return simple ? &t : nullptr;
}

KeyRange allowed_keys(const MaskTerm* term, int i, int T_k) {
  if (!term || term->kind == MaskKind::Bidirectional) return {0, T_k};
  const int hi = std::clamp(i + 1, 0, T_k);                                                          // causal: j ≤ i
  const int lo = term->kind == MaskKind::SlidingWindow ? std::clamp(i - term->size + 1, 0, hi) : 0;  // i − j < W
  return {lo, hi};
}

namespace {
// p = softmax(s) over the keys [lo, hi), exactly 0 elsewhere (where s is −∞): exp vectorised over the range
// (core/ops/exp_kernel.h). A row with no key left or a non-finite score goes through softmax_inplace over the
// whole row, whose rules decide it (every key blocked: zeros and false; NaN in: NaN out).
bool softmax_keys(float* p, const float* s, KeyRange keys, int T_k) {
  const int n = keys.hi - keys.lo;
  if (n > 0) {
    const float mx = Eigen::Map<const Eigen::ArrayXf>(s + keys.lo, n).maxCoeff();
    const float sum = std::isfinite(mx) ? exp_row(p + keys.lo, s + keys.lo, mx, n) : kNegInf;
    if (std::isfinite(sum)) {  // ≥ 1: the max contributes e^0
      Eigen::Map<Eigen::ArrayXf>(p + keys.lo, n) *= 1.0f / sum;
      std::fill(p, p + keys.lo, 0.0f);
      std::fill(p + keys.hi, p + T_k, 0.0f);
      return true;
    }
  }
  std::copy(s, s + T_k, p);
  return softmax_inplace(p, T_k);
}
}  // namespace

int attention_forward(Mat& out, Mat& scores, Mat& probs, std::vector<char>& empty_rows, const Mat& q, const Mat& k,
                      const Mat& v, const AttentionOptions& opt, int n_heads, int n_kv_heads, int head_dim) {
  // q: (T_q, H*D)  k, v: (T_k, KV*D)  out: (T_q, H*D)  scores, probs: (H*T_q, T_k)  empty_rows: (H*T_q)
  assert(check_attention_args(q, k, v, opt, n_heads, n_kv_heads, head_dim).empty());
  const int T_q = static_cast<int>(q.rows());
  const int T_k = static_cast<int>(k.rows());
  const int H = n_heads, D = head_dim;
  const int n_rep = n_heads / n_kv_heads;  // query heads per KV head
  const float scale = attention_scale(opt.scale_mode, D, opt.custom_scale);
  const float cap = opt.softcap;
  const bool terms = cap > 0.0f || opt.bias.kind != AttentionBias::Kind::None;  // per-cell soft-cap or bias
  // Ranged: each query row reads one key range [lo, hi) (no mask, or one causal / sliding-window term) and no
  // bias can put −∞ inside it (a dense one can). The products and the softmax then skip the blocked keys;
  // any other mask is evaluated per cell.
  const MaskTerm* term = attention_range_term(opt);
  const bool ranged = (!(opt.mask || opt.mask_matrix) || term) && opt.bias.kind != AttentionBias::Kind::Dense;

  // QK-norm works on copies so the caller's q and k stay what they passed in.
  Mat qn, kn;
  if (opt.qk_norm) {
    qk_norm_heads(qn, q, opt.q_norm_weight, opt.qk_norm_eps, n_heads, D);
    qk_norm_heads(kn, k, opt.k_norm_weight, opt.qk_norm_eps, n_kv_heads, D);
  }
  const Mat& Q = opt.qk_norm ? qn : q;
  const Mat& K = opt.qk_norm ? kn : k;

  out.resize(T_q, static_cast<Eigen::Index>(H) * D);
  scores.resize(static_cast<Eigen::Index>(H) * T_q, T_k);
  probs.resize(static_cast<Eigen::Index>(H) * T_q, T_k);
  empty_rows.assign(static_cast<size_t>(H) * T_q, 0);
  int n_empty = 0;
  constexpr int kRows = 64;  // query rows per product: a causal block's keys end at its last row's

  for (int h = 0; h < H; ++h) {  // one head: a batch of independent (head, query) rows
    const int g = h / n_rep;     // the KV head this query head reads
    for (int r0 = 0; r0 < T_q; r0 += kRows) {
      const int nq = std::min(kRows, T_q - r0);
      const Eigen::Index row0 = static_cast<Eigen::Index>(h) * T_q + r0;
      // The keys any row of the block reads (ranges only grow with the position): the two products of the
      // block (S = Q_h K_gᵀ, O_h = P V_g) run over these columns only; the rest of S is −∞ and of P exactly 0.
      KeyRange block{0, T_k};
      if (ranged)
        block = {allowed_keys(term, opt.q_offset + r0, T_k).lo, allowed_keys(term, opt.q_offset + r0 + nq - 1, T_k).hi};
      const int nk = std::max(block.hi - block.lo, 0);
      if (nk > 0)
        scores.block(row0, block.lo, nq, nk).noalias() =
            Q.block(r0, static_cast<Eigen::Index>(h) * D, nq, D) *
            K.block(block.lo, static_cast<Eigen::Index>(g) * D, nk, D).transpose();
      // Everything between the products is per element and spelled out, so the stored scores are exactly what
      // the softmax sees.
      for (int a = 0; a < nq; ++a) {
        const int r = r0 + a, i = opt.q_offset + r;  // query row, its absolute position
        float* s = scores.data() + (row0 + a) * T_k;
        float* p = probs.data() + (row0 + a) * T_k;
        bool ok = true;
        if (ranged) {
          const KeyRange keys = allowed_keys(term, i, T_k);
          std::fill(s, s + keys.lo, kNegInf);  // lo ≤ hi always (an empty range has lo = hi)
          std::fill(s + keys.hi, s + T_k, kNegInf);
          for (int j = keys.lo; j < keys.hi; ++j) s[j] *= scale;
          for (int j = keys.lo; j < keys.hi && terms; ++j) {
            float x = s[j];
            if (cap > 0.0f) x = cap * std::tanh(x / cap);
            s[j] = x + opt.bias.at(h, r, i, j, T_q);
          }
          ok = softmax_keys(p, s, keys, T_k);
        } else {
          for (int j = 0; j < T_k; ++j) {
            float x = s[j] * scale;
            if (cap > 0.0f) x = cap * std::tanh(x / cap);
            x += opt.bias.at(h, r, i, j, T_q);
            s[j] = attention_allows(opt, r, j) ? x : kNegInf;
          }
          std::copy(s, s + T_k, p);
          ok = softmax_inplace(p, T_k);
        }
        if (!ok) {  // softmax left the row all zeros, so its output row stays zero
          empty_rows[static_cast<size_t>(row0 + a)] = 1;
          ++n_empty;
        }
      }
      auto O = out.block(r0, static_cast<Eigen::Index>(h) * D, nq, D);
      if (nk > 0)
        O.noalias() = probs.block(row0, block.lo, nq, nk) * v.block(block.lo, static_cast<Eigen::Index>(g) * D, nk, D);
      else
        O.setZero();
    }
  }
  return n_empty;
}

}  // namespace tw

// [SECTION] training kernels
namespace tw {

namespace {
template <class S>
S scale_of(const AttentionOptions& opt, int D) {
  switch (opt.scale_mode) {
    case ScaleMode::InvSqrtDk: return static_cast<S>(1.0 / std::sqrt(static_cast<double>(D)));
    case ScaleMode::None: return S(1);
    case ScaleMode::InvDk: return S(1) / static_cast<S>(D);
    case ScaleMode::Custom: return static_cast<S>(opt.custom_scale);
  }
  return S(1);
}
}  // namespace

template <class S>
void attention_batched_forward(MatT<S>& out, MatT<S>& capped, MatT<S>& probs, const MatT<S>& q, const MatT<S>& k,
                               const MatT<S>& v, const AttentionOptions& opt, int B, int T, int H, int KV, int D) {
  // q: (B*T, H*D)  k, v: (B*T, KV*D)  out: (B*T, H*D)  capped, probs: (B*H*T, T)
  assert(!opt.qk_norm && opt.q_offset == 0 && q.rows() == static_cast<Eigen::Index>(B) * T);
  const int n_rep = H / KV;
  const S scale = scale_of<S>(opt, D);
  const S cap = static_cast<S>(opt.softcap);
  out.resize(static_cast<Eigen::Index>(B) * T, static_cast<Eigen::Index>(H) * D);
  probs.resize(static_cast<Eigen::Index>(B) * H * T, T);
  if (cap > 0) capped.resize(probs.rows(), T);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {  // one (sequence, head) per work item
      const int g = h / n_rep;
      const Eigen::Index row0 = (static_cast<Eigen::Index>(b) * H + h) * T;
      auto P = probs.middleRows(row0, T);  // (T, T): the raw products first, then the probabilities in place
      P.noalias() = q.block(static_cast<Eigen::Index>(b) * T, static_cast<Eigen::Index>(h) * D, T, D) *
                    k.block(static_cast<Eigen::Index>(b) * T, static_cast<Eigen::Index>(g) * D, T, D).transpose();
      // ALiBi and the (T, T) mask matrix (what training uses) are read directly; other biases and mask trees go
      // through the general per-cell calls.
      const AttentionBias::Kind bias_kind = opt.bias.kind;
      const S slope = bias_kind == AttentionBias::Kind::Alibi ? static_cast<S>(opt.bias.slopes[h]) : S(0);
      constexpr S kInf = std::numeric_limits<S>::infinity();
      for (int r = 0; r < T; ++r) {
        // One pass per term over the row, each free of calls and loop-carried state so it runs in SIMD.
        Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>> row(probs.data() + (row0 + r) * T, T);
        row *= scale;
        if (cap > 0) {
          Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>> c(capped.data() + (row0 + r) * T, T);
          c = cap * (row / cap).tanh();
          row = c;
        }
        if (bias_kind == AttentionBias::Kind::Alibi) {
          for (int j = 0; j <= r; ++j) row[j] -= slope * static_cast<S>(r - j);  // j > r: 0 (the mask's cells)
        } else if (bias_kind != AttentionBias::Kind::None) {
          for (int j = 0; j < T; ++j) row[j] += static_cast<S>(opt.bias.at(h, r, r, j, T));
        }
        if (opt.mask_matrix) {
          const bool* allow = opt.mask_matrix->data() + static_cast<Eigen::Index>(r) * T;
          for (int j = 0; j < T; ++j) row[j] = allow[j] ? row[j] : -kInf;
        }
        if (opt.mask)
          for (int j = 0; j < T; ++j)
            if (!opt.mask->allows(r, j)) row[j] = -kInf;
        softmax_row_inplace(row);  // every key blocked: zeros, never NaN
      }
      out.block(static_cast<Eigen::Index>(b) * T, static_cast<Eigen::Index>(h) * D, T, D).noalias() =
          P * v.block(static_cast<Eigen::Index>(b) * T, static_cast<Eigen::Index>(g) * D, T, D);
    }
}

template <class S>
void attention_batched_backward(MatT<S>& dq, MatT<S>& dk, MatT<S>& dv, MatT<S>& scratch, const MatT<S>& dout,
                                const MatT<S>& capped, const MatT<S>& probs, const MatT<S>& q, const MatT<S>& k,
                                const MatT<S>& v, const AttentionOptions& opt, int B, int T, int H, int KV, int D) {
  // dout, q, dq: (B*T, H*D)  k, v, dk, dv: (B*T, KV*D)  capped, probs: (B*H*T, T)  scratch: (T, T)
  const int n_rep = H / KV;
  const S scale = scale_of<S>(opt, D);
  const S cap = static_cast<S>(opt.softcap);
  scratch.resize(T, T);
  // Heads run in order h = 0..H−1 inside a sequence, so a KV head's gradient sums its query heads in a fixed
  // order: the result is bit-for-bit reproducible. (A GPU would give each (b, g) group one work item.)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const int g = h / n_rep;
      const Eigen::Index row0 = (static_cast<Eigen::Index>(b) * H + h) * T;
      const Eigen::Index t0 = static_cast<Eigen::Index>(b) * T;
      const auto P = probs.middleRows(row0, T);
      const auto dO = dout.block(t0, static_cast<Eigen::Index>(h) * D, T, D);
      const auto Vg = v.block(t0, static_cast<Eigen::Index>(g) * D, T, D);
      dv.block(t0, static_cast<Eigen::Index>(g) * D, T, D).noalias() += P.transpose() * dO;
      scratch.noalias() = dO * Vg.transpose();  // dP
      for (int r = 0; r < T; ++r) {
        const S* p = probs.data() + (row0 + r) * T;
        S* d = scratch.data() + static_cast<Eigen::Index>(r) * T;
        S dot = 0;
        for (int j = 0; j < T; ++j) dot += p[j] * d[j];
        for (int j = 0; j < T; ++j) d[j] = p[j] * (d[j] - dot);
        if (cap > 0) {
          const S* c = capped.data() + (row0 + r) * T;
          for (int j = 0; j < T; ++j) {
            const S u = c[j] / cap;
            d[j] *= S(1) - u * u;
          }
        }
        for (int j = 0; j < T; ++j) d[j] *= scale;
      }
      dq.block(t0, static_cast<Eigen::Index>(h) * D, T, D).noalias() +=
          scratch * k.block(t0, static_cast<Eigen::Index>(g) * D, T, D);
      dk.block(t0, static_cast<Eigen::Index>(g) * D, T, D).noalias() +=
          scratch.transpose() * q.block(t0, static_cast<Eigen::Index>(h) * D, T, D);
    }
}

template <class S>
void qk_norm_forward(MatT<S>& out, VecT<S>& rstd, const MatT<S>& x, const VecT<S>& weight, float eps, int n,
                     int head_dim) {
  // x, out: (N, n*D)  rstd: (N*n)  weight: (D)
  const int rows = static_cast<int>(x.rows()) * n;  // a row-major (N, n*D) matrix is (N*n, D) slices
  out.resize(x.rows(), x.cols());
  rstd.resize(rows);
  rmsnorm_rows_forward<S>(out.data(), rstd.data(), x.data(), weight.data(), rows, head_dim, eps);
}

template <class S>
void qk_norm_backward(MatT<S>& dx, VecT<S>& dweight, const MatT<S>& dout, const MatT<S>& x, const VecT<S>& weight,
                      const VecT<S>& rstd, int n, int head_dim) {
  // dx, dout, x: (N, n*D)  dweight, weight: (D)  rstd: (N*n)
  const int rows = static_cast<int>(x.rows()) * n;
  rmsnorm_rows_backward<S>(dx.data(), dweight.data(), dout.data(), x.data(), weight.data(), rstd.data(), rows,
                           head_dim);
}

#define TW_ATTN_INSTANTIATE(S)                                                                                        \
  template void attention_batched_forward<S>(MatT<S>&, MatT<S>&, MatT<S>&, const MatT<S>&, const MatT<S>&,            \
                                             const MatT<S>&, const AttentionOptions&, int, int, int, int, int);       \
  template void attention_batched_backward<S>(MatT<S>&, MatT<S>&, MatT<S>&, MatT<S>&, const MatT<S>&, const MatT<S>&, \
                                              const MatT<S>&, const MatT<S>&, const MatT<S>&, const MatT<S>&,         \
                                              const AttentionOptions&, int, int, int, int, int);                      \
  template void qk_norm_forward<S>(MatT<S>&, VecT<S>&, const MatT<S>&, const VecT<S>&, float, int, int);              \
  template void qk_norm_backward<S>(MatT<S>&, VecT<S>&, const MatT<S>&, const MatT<S>&, const VecT<S>&,               \
                                    const VecT<S>&, int, int);
TW_ATTN_INSTANTIATE(float)
TW_ATTN_INSTANTIATE(double)
#undef TW_ATTN_INSTANTIATE

}  // namespace tw
