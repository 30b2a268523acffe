#include "core/ops/gqa.h"

#include <cassert>

#include "core/base/i18n.h"

namespace tw {

std::string check_gqa(int n_heads, int n_kv_heads) {
  if (n_heads < 1) return subst(tr("n_heads must be at least 1 (got {0})"), {std::to_string(n_heads)});
  if (n_kv_heads < 1) return subst(tr("n_kv_heads must be at least 1 (got {0})"), {std::to_string(n_kv_heads)});
  if (n_heads % n_kv_heads != 0)
    return subst(tr("n_heads ({0}) must be a multiple of n_kv_heads ({1})"),
                 {std::to_string(n_heads), std::to_string(n_kv_heads)});
  return "";
}

std::vector<int> kv_head_map(int n_heads, int n_kv_heads) {
  std::vector<int> map(static_cast<size_t>(n_heads));
  for (int h = 0; h < n_heads; ++h) map[static_cast<size_t>(h)] = kv_head_of(h, n_heads, n_kv_heads);
  return map;
}

std::vector<int> valid_kv_head_counts(int n_heads) {
  std::vector<int> out;
  for (int kv = 1; kv <= n_heads; ++kv)
    if (n_heads % kv == 0) out.push_back(kv);
  return out;
}

void mean_pool_kv_heads(Mat& out, const Mat& w, int H, int KV, int D, int C) {
  // w: (H*D, C)   out: (KV*D, C)
  assert(w.rows() == H * D && w.cols() == C && H % KV == 0 && &out != &w);
  const int n_rep = H / KV;
  out.setZero(KV * D, C);
  const float inv = 1.0f / static_cast<float>(n_rep);
  for (int g = 0; g < KV; ++g) {  // one work item per KV head
    for (int r = 0; r < n_rep; ++r) out.middleRows(g * D, D) += w.middleRows((g * n_rep + r) * D, D);
    out.middleRows(g * D, D) *= inv;
  }
}

}  // namespace tw
