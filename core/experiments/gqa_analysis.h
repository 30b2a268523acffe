#pragma once
// The math behind the GQA / MQA panel: which KV head each query head reads, KV-cache memory for MHA, the
// current grouping and MQA, attention-projection parameter counts, the output error of converting a toy MHA
// layer to GQA by mean-pooling K/V heads (for every valid n_kv), and the attention maps of one group's heads.
//
// KV-cache bytes = 2 (K and V) · layers · kv_heads · head_dim · seq_len · batch · bytes_per_value.
// Projection parameters of one layer (no biases): q = C·H·D, k = v = C·KV·D, o = H·D·C.

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

// A real model's attention shape, from its Hugging Face config.json.
struct GqaModelPreset {
  const char* name;
  int layers;      // num_hidden_layers
  int n_heads;     // num_attention_heads
  int n_kv_heads;  // num_key_value_heads (1 for multi-query)
  int head_dim;    // head_dim, or hidden_size / num_attention_heads when the config has none
  int hidden;      // hidden_size (C)
  const char* source;
};
const std::vector<GqaModelPreset>& gqa_model_presets();

struct GqaParams {
  int n_heads = 8;     // H
  int n_kv_heads = 2;  // KV, must divide H
  int head_dim = 128;  // D of the memory / parameter figures
  int hidden = 0;      // C; 0 means H·D
  int layers = 32;
  int seq_len = 4096;  // the KV-cache curve runs from 0 to here
  int batch = 1;
  int bytes_per_value = 2;  // 2 for fp16/bf16, 4 for fp32, 1 for int8

  // Toy layer for the conversion error and the attention maps (small so it recomputes instantly).
  int toy_tokens = 10;           // T
  int toy_head_dim = 8;          // D of the toy layer; its model dim is H·toy_head_dim
  double head_similarity = 0.0;  // ρ in [0, 1]: K/V head weights are √ρ·shared + √(1−ρ)·own
  int group = 0;                 // which KV group's heads the attention maps show
  uint64_t seed = 1;
};

struct ProjectionParams {
  int64_t q = 0, k = 0, v = 0, o = 0;  // weight counts of q_proj, k_proj, v_proj, o_proj
  int64_t total() const { return q + k + v + o; }
};

struct GqaAnalysis {
  int n_rep = 1;                // query heads per KV head
  std::vector<int> kv_head_of;  // (H) KV head read by each query head

  std::vector<int> seq_len;                                      // KV-cache curve x
  std::vector<int64_t> bytes_mha;                                // KV = H
  std::vector<int64_t> bytes_gqa;                                // KV = current
  std::vector<int64_t> bytes_mqa;                                // KV = 1
  int64_t bytes_mha_at = 0, bytes_gqa_at = 0, bytes_mqa_at = 0;  // at params.seq_len

  ProjectionParams proj_mha, proj_gqa, proj_mqa;  // one layer

  std::vector<int> conversion_kv;        // every divisor of H, ascending
  std::vector<double> conversion_error;  // ‖O_gqa − O_mha‖_F / ‖O_mha‖_F on the toy layer (0 at KV = H)

  std::vector<int> group_heads;  // the query heads of `group` under the current KV
  Mat group_probs;               // (n_rep·T, T) their causal attention maps (same pooled K and V, own Q)
};

// Empty when usable; otherwise one sentence naming the bad field.
std::string validate(const GqaParams& p);

// 2 · layers · kv_heads · head_dim · seq_len · batch · bytes_per_value.
int64_t kv_cache_bytes(int layers, int kv_heads, int head_dim, int64_t seq_len, int batch, int bytes_per_value);
ProjectionParams attention_projection_params(int hidden, int n_heads, int n_kv_heads, int head_dim);

// Assumes validate(p) is empty.
GqaAnalysis analyze_gqa(const GqaParams& p);

}  // namespace tw
