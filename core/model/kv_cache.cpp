#include "core/model/kv_cache.h"

namespace tw {

void KVCache::reset(const ModelConfig& config) {
  const int width = config.n_kv_heads * config.head_dim();
  k.assign(static_cast<size_t>(config.n_layers), Mat(0, width));
  v.assign(static_cast<size_t>(config.n_layers), Mat(0, width));
  length = 0;
}

void KVCache::append(int layer, const Mat& new_k, const Mat& new_v) {
  // (T_cached, KV*D) grows to (T_cached + T_new, KV*D); the rows of this layer may already include new tokens
  // only if append is called twice for one layer, which forward_cached never does.
  Mat& K = k[static_cast<size_t>(layer)];
  Mat& Vv = v[static_cast<size_t>(layer)];
  const Eigen::Index old_rows = K.rows();
  K.conservativeResize(old_rows + new_k.rows(), new_k.cols());
  Vv.conservativeResize(old_rows + new_v.rows(), new_v.cols());
  K.bottomRows(new_k.rows()) = new_k;
  Vv.bottomRows(new_v.rows()) = new_v;
}

double KVCache::bytes() const {
  double total = 0;
  for (size_t l = 0; l < k.size(); ++l) total += 4.0 * static_cast<double>(k[l].size() + v[l].size());
  return total;
}

}  // namespace tw
