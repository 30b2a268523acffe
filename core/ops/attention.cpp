#include "core/ops/attention.h"

#include <cassert>
#include <cmath>

#include "core/ops/alibi.h"
#include "core/ops/norm.h"
#include "core/ops/softmax.h"

namespace tw {

const char* scale_mode_name(ScaleMode m) {
  switch (m) {
    case ScaleMode::InvSqrtDk: return "1/sqrt(d_k)";
    case ScaleMode::None: return "none";
    case ScaleMode::InvDk: return "1/d_k";
    case ScaleMode::Custom: return "custom";
  }
  return "?";
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
  if (n_heads < 1 || n_kv_heads < 1 || head_dim < 1) return "n_heads, n_kv_heads and head_dim must be >= 1";
  if (n_heads % n_kv_heads != 0)
    return "n_heads (" + s(n_heads) + ") must be a multiple of n_kv_heads (" + s(n_kv_heads) + ")";
  if (q.cols() != static_cast<Eigen::Index>(n_heads) * head_dim)
    return "q has " + s(q.cols()) + " columns, expected n_heads*head_dim = " + s(n_heads * head_dim);
  if (k.cols() != static_cast<Eigen::Index>(n_kv_heads) * head_dim || v.cols() != k.cols())
    return "k and v need n_kv_heads*head_dim = " + s(n_kv_heads * head_dim) + " columns, got " + s(k.cols()) + " and " +
           s(v.cols());
  if (k.rows() != v.rows()) return "k has " + s(k.rows()) + " rows but v has " + s(v.rows());
  if (opt.q_offset < 0) return "q_offset must be >= 0";
  if (opt.softcap < 0.0f) return "softcap must be >= 0 (0 disables it)";
  if (opt.scale_mode == ScaleMode::Custom && !std::isfinite(opt.custom_scale)) return "custom scale must be finite";
  if (opt.mask_matrix && (opt.mask_matrix->rows() != q.rows() || opt.mask_matrix->cols() != k.rows()))
    return "mask matrix must be (T_q, T_k) = (" + s(q.rows()) + ", " + s(k.rows()) + ")";
  if ((opt.q_norm_weight && opt.q_norm_weight->size() != head_dim) ||
      (opt.k_norm_weight && opt.k_norm_weight->size() != head_dim))
    return "QK-norm weights must have head_dim = " + s(head_dim) + " entries";
  const AttentionBias& b = opt.bias;
  if ((b.kind == AttentionBias::Kind::Alibi || b.kind == AttentionBias::Kind::AlibiSymmetric) &&
      static_cast<int>(b.slopes.size()) != n_heads)
    return "ALiBi bias needs one slope per head (" + s(n_heads) + "), got " + s(b.slopes.size());
  if (b.kind == AttentionBias::Kind::Dense &&
      (!b.dense || b.dense->cols() != k.rows() ||
       (b.dense->rows() != q.rows() && b.dense->rows() != static_cast<Eigen::Index>(n_heads) * q.rows())))
    return "dense bias must be (T_q, T_k) or (H*T_q, T_k)";
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

  for (int h = 0; h < H; ++h) {  // one head: a batch of independent (head, query) rows
    const int g = h / n_rep;     // the KV head this query head reads
    // Both products of a head are matrix products (S = Q_h K_gᵀ, O_h = P V_g); everything between them is
    // per element and spelled out, so the stored scores are exactly what the softmax sees.
    auto S = scores.middleRows(static_cast<Eigen::Index>(h) * T_q, T_q);  // (T_q, T_k)
    S.noalias() = Q.middleCols(static_cast<Eigen::Index>(h) * D, D) *
                  K.middleCols(static_cast<Eigen::Index>(g) * D, D).transpose();
    for (int r = 0; r < T_q; ++r) {
      const int i = opt.q_offset + r;  // absolute query position
      const Eigen::Index row = static_cast<Eigen::Index>(h) * T_q + r;
      float* s = scores.data() + row * T_k;
      for (int j = 0; j < T_k; ++j) {
        float x = s[j] * scale;
        if (cap > 0.0f) x = cap * std::tanh(x / cap);
        x += opt.bias.at(h, r, i, j, T_q);
        s[j] = attention_allows(opt, r, j) ? x : kNegInf;
      }
      float* p = probs.data() + row * T_k;
      for (int j = 0; j < T_k; ++j) p[j] = s[j];
      if (!softmax_inplace(p, T_k)) {  // leaves the row all zeros, so its output row stays zero
        empty_rows[row] = 1;
        ++n_empty;
      }
    }
    out.middleCols(static_cast<Eigen::Index>(h) * D, D).noalias() =
        probs.middleRows(static_cast<Eigen::Index>(h) * T_q, T_q) * v.middleCols(static_cast<Eigen::Index>(g) * D, D);
  }
  return n_empty;
}

}  // namespace tw
