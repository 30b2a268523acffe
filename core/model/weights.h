#pragma once
// ModelWeights: every parameter of the Transformer, with its shape, its Hugging Face tensor name, a deterministic
// seeded init, parameter counts per component, and safetensors save/load.
//
// Linear weights are stored (out_features, in_features) like Hugging Face checkpoints, so a projection of
// activations x (T, in) is x · Wᵀ. Tensor names follow HF LLaMA (conventions.md); choices LLaMA lacks use
// names in the same style: model.embed_positions.weight (learned positions) and *.bias (LayerNorm β).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/io/safetensors.h"
#include "core/model/config.h"
#include "core/ops/mlp.h"
#include "core/tensor.h"

namespace tw {

struct NormWeights {
  Vec weight;  // (C) γ, initialised to 1
  Vec bias;    // (C) β, initialised to 0; LayerNorm only (empty for RMSNorm)
};

struct LayerWeights {
  NormWeights attn_norm;       // input_layernorm: before attention (pre-norm) or after the attention residual (post)
  Mat wq;                      // (H*D, C)  q_proj
  Mat wk;                      // (KV*D, C) k_proj
  Mat wv;                      // (KV*D, C) v_proj
  Mat wo;                      // (C, H*D)  o_proj
  Vec q_norm, k_norm;          // (D)       QK-norm γ (self_attn.q_norm / k_norm, as Qwen3); qk_norm configs only
  Vec bq;                      // (H*D)     q_proj.bias, attn_bias configs only (Qwen2)
  Vec bk, bv;                  // (KV*D)    k_proj.bias, v_proj.bias, attn_bias configs only
  Vec bo;                      // (C)       o_proj.bias, linear_bias configs only (GPT-2's attn.c_proj.bias)
  NormWeights post_attn_norm;  // sandwich_norm only: Norm of the attention output before its residual add
  NormWeights post_mlp_norm;   // sandwich_norm only: Norm of the MLP output before its residual add
  Vec b_up, b_down;            // (F), (C) up_proj.bias, down_proj.bias, linear_bias configs only (GPT-2's c_fc, c_proj)
  NormWeights mlp_norm;        // post_attention_layernorm: before the MLP (pre-norm) or after the MLP residual (post)
  MlpWeights mlp;              // gate (F, C) for SwiGLU/GeGLU only, up (F, C), down (C, F); dense configs only
  // Mixture of experts (config.moe()), Mixtral's names: block_sparse_moe.gate.weight is the router, expert e's
  // block_sparse_moe.experts.{e}.w1 / w3 / w2 are its gate / up / down (a plain MLP's up is w1: the matrix whose
  // output goes through the activation).
  Mat router;                       // (E, C) router logits x · W_rᵀ
  std::vector<MlpWeights> experts;  // E expert MLPs shaped like `mlp`
};

struct ModelWeights {
  Mat embed;                         // (V, C)       embed_tokens: row t is token t's vector
  Mat pos_embed;                     // (max_seq, C) embed_positions, learned positions only (else empty)
  std::vector<LayerWeights> layers;  // n_layers blocks
  NormWeights final_norm;            // (C)          norm, pre-norm only (post-norm output is already normed)
  Mat lm_head;                       // (V, C)       lm_head; empty when tie_embeddings (embed is used)

  const Mat& head() const { return lm_head.size() ? lm_head : embed; }  // the matrix the logits use
};

// [SECTION] init
// Gaussian init from a seed (same seed → bit-identical weights on every platform: a fixed PRNG and Box–Muller,
// no std:: distributions). Linear weights get std 1/√in_features so each projection keeps unit scale and the
// attention maps and logits of an untrained model are neither flat nor saturated; norms start at γ = 1, β = 0;
// embeddings get std 1 (1/√C when tied, since they then also produce the logits). Assumes validate(config) is empty.
ModelWeights init_weights(const ModelConfig& config, uint64_t seed);

// [SECTION] parameter counts
struct ParamGroup {
  std::string name;     // "W_q (q_proj)", "Token embedding", ...
  std::string formula;  // "C · H·D = 256 · 256"
  int64_t count = 0;    // parameters in one instance
  int instances = 1;    // 1, or n_layers for a row inside the block
  int64_t total() const { return count * instances; }
};
// One row per component, in the order of the forward pass; a block's rows have instances = n_layers.
// The tied lm_head appears with count 0 so the table says where the logits come from.
std::vector<ParamGroup> parameter_table(const ModelConfig& config);
int64_t parameter_count(const ModelConfig& config);    // sum of parameter_table totals
int64_t parameter_count(const ModelWeights& weights);  // values actually held (for checking the table)
// Parameters one token passes through: a MoE block counts its router and k of its E experts; dense = the total.
int64_t active_parameter_count(const ModelConfig& config);
// Experts per layer of a checkpoint from its tensor names (1 + the largest expert index of block_sparse_moe tensors;
// 0 when it has none, a dense checkpoint).
int checkpoint_experts(const std::vector<std::string>& tensor_names);

// [SECTION] parameter visitor
// What an optimizer needs to know of a tensor: AdamW decays Matrix tensors (projections, lm_head) by default and
// leaves norms (γ, β) and embeddings (token, learned position) alone unless asked (PyTorch/nanoGPT practice).
enum class ParamKind { Matrix, Norm, Embedding };
// Visits every parameter tensor as a flat float span with its HF name, in tensor_specs order. A tied LM head is
// not visited separately (it is model.embed_tokens.weight). Gradients are a ModelWeights of the same shapes, so
// visiting the weights and their gradients in lockstep pairs each tensor with its gradient.
using ParamVisitor = std::function<void(const std::string& name, float* data, int64_t size, ParamKind kind)>;
void visit_parameters(ModelWeights& weights, const ModelConfig& config, const ParamVisitor& visit);
// A ModelWeights with every tensor of `config` allocated and zero (gradient buffers, optimizer moments).
ModelWeights zero_weights(const ModelConfig& config);

// [SECTION] checkpoints
// Every tensor with its HF name and shape, in forward order (what save writes and load expects).
struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
};
std::vector<TensorSpec> tensor_specs(const ModelConfig& config);
// "(2, 64, 128)": a tensor shape as messages print it.
std::string shape_text(const std::vector<int64_t>& shape);

SafeTensors to_safetensors(const ModelWeights& weights, const ModelConfig& config);
// Refuses (false + one-line message) a checkpoint that lacks a tensor the config needs, has one with another
// shape, or has tensors the config does not use (a checkpoint for a different architecture).
bool from_safetensors(const SafeTensors& file, const ModelConfig& config, ModelWeights* out, std::string* error);
bool save_weights(const std::string& path, const ModelWeights& weights, const ModelConfig& config, std::string* error);
// Every tensor as a view into the weights' own matrices (HF names, tensor_specs order): what the streaming
// checkpoint writers take, so a save never holds a second copy of the model. Valid while `weights` lives.
std::vector<TensorView> tensor_views(const ModelWeights& weights, const ModelConfig& config);
bool load_weights(const std::string& path, const ModelConfig& config, ModelWeights* out, std::string* error);

// Fills every tensor of `config` through `read` (name, shape, destination of product(shape) floats), e.g. from
// checkpoint files streamed tensor by tensor. `read` returns false with a message to stop (missing tensor,
// wrong shape, cancelled); *out is only written on success.
using TensorReader =
    std::function<bool(const std::string& name, const std::vector<int64_t>& shape, float* dst, std::string* error)>;
bool weights_from_reader(const ModelConfig& config, const TensorReader& read, ModelWeights* out, std::string* error);
// Rounds every parameter to what a save in `dtype` and a reload give back (dump --dtype bf16 runs the model it
// writes, so the logits it dumps are those of the checkpoint on disk).
void round_weights(ModelWeights& weights, const ModelConfig& config, StorageType dtype);

}  // namespace tw
