#pragma once
// The one list of a model's parameter tensors: each with its Hugging Face name and shape, in forward order. Saving,
// loading, counting, the optimizer's visitor (core/model/weights.cpp) and the double-precision gradient checks
// (core/train/model_train.cpp) all walk it, so a tensor a family adds is added once, here.

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/model/config.h"

namespace tw {

// Visits every parameter tensor with its HF name and shape, in forward order: f(name, tensor, shape). W is
// ModelWeights, const ModelWeights or the gradient checks' double-precision copy (ModelWeightsD).
template <class W, class F>
void for_each_tensor(W& w, const ModelConfig& c, F&& f) {
  const int64_t C = c.dim, V = c.vocab, F_ = c.hidden, HD = int64_t(c.n_heads) * c.head_dim(),
                KVD = int64_t(c.n_kv_heads) * c.head_dim();
  auto norm = [&](auto& n, const std::string& prefix) {
    f(prefix + ".weight", n.weight, std::vector<int64_t>{C});
    if (c.norm == NormType::LayerNorm) f(prefix + ".bias", n.bias, std::vector<int64_t>{C});
  };
  f(std::string("model.embed_tokens.weight"), w.embed, std::vector<int64_t>{V, C});
  if (c.positions == PositionType::Learned)
    f(std::string("model.embed_positions.weight"), w.pos_embed, std::vector<int64_t>{c.max_seq, C});
  for (int i = 0; i < c.n_layers; ++i) {
    auto& l = w.layers[static_cast<size_t>(i)];
    const std::string p = "model.layers." + std::to_string(i) + ".";
    // Gemma 3 names its four norms input, post_attention, pre_feedforward and post_feedforward; the MLP norm is
    // then the pre_feedforward one.
    const bool gemma = c.family == Family::Gemma3;
    norm(l.attn_norm, p + "input_layernorm");
    f(p + "self_attn.q_proj.weight", l.wq, std::vector<int64_t>{HD, C});
    if (c.attn_bias) f(p + "self_attn.q_proj.bias", l.bq, std::vector<int64_t>{HD});
    f(p + "self_attn.k_proj.weight", l.wk, std::vector<int64_t>{KVD, C});
    if (c.attn_bias) f(p + "self_attn.k_proj.bias", l.bk, std::vector<int64_t>{KVD});
    f(p + "self_attn.v_proj.weight", l.wv, std::vector<int64_t>{KVD, C});
    if (c.attn_bias) f(p + "self_attn.v_proj.bias", l.bv, std::vector<int64_t>{KVD});
    f(p + "self_attn.o_proj.weight", l.wo, std::vector<int64_t>{C, HD});
    if (c.linear_bias) f(p + "self_attn.o_proj.bias", l.bo, std::vector<int64_t>{C});
    if (c.qk_norm) {
      f(p + "self_attn.q_norm.weight", l.q_norm, std::vector<int64_t>{c.head_dim()});
      f(p + "self_attn.k_norm.weight", l.k_norm, std::vector<int64_t>{c.head_dim()});
    }
    if (c.sandwich_norm) norm(l.post_attn_norm, p + (gemma ? "post_attention_layernorm" : "post_attn_norm"));
    norm(l.mlp_norm, p + (gemma ? "pre_feedforward_layernorm" : "post_attention_layernorm"));
    if (c.moe()) {
      f(p + "block_sparse_moe.gate.weight", l.router, std::vector<int64_t>{c.experts, C});
      if constexpr (!std::is_const_v<W>) l.experts.resize(static_cast<size_t>(c.experts));
      for (int e = 0; e < c.experts; ++e) {
        auto& x = l.experts[static_cast<size_t>(e)];
        const std::string q = p + "block_sparse_moe.experts." + std::to_string(e) + ".";
        if (c.gated()) f(q + "w1.weight", x.gate, std::vector<int64_t>{F_, C});
        f(q + (c.gated() ? "w3.weight" : "w1.weight"), x.up, std::vector<int64_t>{F_, C});
        f(q + "w2.weight", x.down, std::vector<int64_t>{C, F_});
      }
      continue;
    }
    if (c.gated()) f(p + "mlp.gate_proj.weight", l.mlp.gate, std::vector<int64_t>{F_, C});
    f(p + "mlp.up_proj.weight", l.mlp.up, std::vector<int64_t>{F_, C});
    if (c.linear_bias) f(p + "mlp.up_proj.bias", l.b_up, std::vector<int64_t>{F_});
    f(p + "mlp.down_proj.weight", l.mlp.down, std::vector<int64_t>{C, F_});
    if (c.linear_bias) f(p + "mlp.down_proj.bias", l.b_down, std::vector<int64_t>{C});
    if (c.sandwich_norm) norm(l.post_mlp_norm, p + (gemma ? "post_feedforward_layernorm" : "post_mlp_norm"));
  }
  if (c.has_final_norm()) norm(w.final_norm, "model.norm");
  if (!c.tie_embeddings) f(std::string("lm_head.weight"), w.lm_head, std::vector<int64_t>{V, C});
}

}  // namespace tw
