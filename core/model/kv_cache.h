#pragma once
// KVCache: the keys and values of the tokens already processed, so decoding one more token costs one row of
// work per layer instead of re-running the whole prompt.
//
// Keys are stored after RoPE (their rotation depends only on their own position, which never changes), so a new
// query attends to the cached keys exactly as it would in a full forward pass. forward_cached() (forward.h)
// appends to the cache; the logits it returns equal the matching rows of a full forward over all tokens.

#include <vector>

#include "core/model/config.h"
#include "core/tensor.h"

namespace tw {

struct KVCache {
  std::vector<Mat> k;  // per layer: (T_cached, KV*D) keys, RoPE already applied
  std::vector<Mat> v;  // per layer: (T_cached, KV*D) values
  int length = 0;      // T_cached: tokens processed so far (the position of the next token)

  // Empties the cache for a model with this config.
  void reset(const ModelConfig& config);
  // Appends new rows (T_new, KV*D) for one layer; call for every layer, then advance(T_new).
  void append(int layer, const Mat& new_k, const Mat& new_v);
  void advance(int n_new) { length += n_new; }
  // Bytes held: 2 · n_layers · T_cached · KV · D · 4, the memory GQA/MQA save at decode time.
  double bytes() const;
};

}  // namespace tw
