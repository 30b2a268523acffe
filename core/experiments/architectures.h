#pragma once
// What published models choose: a table of real configurations, each with its source, and the parameter count
// computed from the configuration beside the count the source publishes.
//
// The count covers the token embedding (and learned positions), attention with GQA/MQA (q: d·H·d_h, k and v:
// d·H_kv·d_h each, o: H·d_h·d; biases where the model has them), the MLP (two matrices, or three for a gated unit;
// every expert plus the router for a mixture of experts), the norms (a weight, plus a bias for LayerNorm; one shared
// norm per block in a parallel block; four per block in Gemma 2/3's sandwich; QK-norm weights), the final norm and
// the output head unless it is tied to the embedding. Encoder–decoder models add cross-attention to every decoder
// layer; BERT adds segment embeddings, an embedding norm and the pooler.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/config.h"

namespace tw {

enum class ArchPositions { Learned, Sinusoidal, Rope, Alibi, RelativeBias };
enum class ArchNorm { LayerNorm, RmsNorm };
enum class ArchBlock { Serial, Parallel };
enum class ArchKind { DecoderOnly, EncoderOnly, EncoderDecoder };

struct ArchitectureConfig {
  std::string name;    // "Llama 2 7B"
  std::string source;  // where the numbers come from: paper table or config file
  int year = 0;
  ArchKind kind = ArchKind::DecoderOnly;
  int64_t d_model = 0;     // residual width d
  int layers = 0;          // decoder layers (encoder-only: encoder layers; encoder–decoder: each stack)
  int heads = 0;           // query heads H
  int kv_heads = 0;        // key/value heads H_kv (H: MHA, 1: MQA)
  int64_t head_dim = 0;    // d_h (usually d / H)
  int64_t d_ff = 0;        // MLP hidden width (per expert)
  bool gated = false;      // SwiGLU/GeGLU: three MLP matrices instead of two
  std::string activation;  // "GELU", "SwiGLU", ...
  int64_t vocab = 0;
  int64_t context = 0;  // trained context length
  ArchPositions positions = ArchPositions::Rope;
  ArchNorm norm = ArchNorm::RmsNorm;
  ArchBlock block = ArchBlock::Serial;
  bool attn_bias = false;      // biases on q/k/v (Qwen2: q/k/v only)
  bool qkv_bias_only = false;  // true: q, k, v have biases but o does not
  bool mlp_bias = false;
  bool norm_bias = false;        // LayerNorm's β
  bool tied = false;             // output head shares the embedding
  int norms_per_block = 2;       // 1 for a parallel block, 4 for a sandwich (pre + post around attention and MLP)
  bool qk_norm = false;          // a norm of width d_h on q and on k (Gemma 3)
  int experts = 1;               // MLP experts per layer (1: dense)
  int active_experts = 1;        // experts each token uses
  int relative_buckets = 0;      // T5: relative position buckets (a table per stack, shared over layers)
  bool final_norm = true;        // a norm after the last layer (per stack); BERT's post-norm layers end normalised
  bool embedding_norm = false;   // a norm right after the embedding (BLOOM, BERT)
  int segments = 0;              // BERT's token-type embeddings
  double published_params = 0;   // as the source states it
  bool published_exact = false;  // the source gives the exact count (not a rounded one)
};

// The table: at least 20 published models, oldest first.
const std::vector<ArchitectureConfig>& published_architectures();

struct ParameterBreakdown {
  int64_t embedding = 0;  // tokens (+ positions, segments, embedding norm)
  int64_t attention = 0;  // every layer's attention (cross-attention included)
  int64_t mlp = 0;        // every layer's MLP (all experts and routers)
  int64_t norms = 0;      // every norm in the layers and the final norm(s)
  int64_t head = 0;       // the output head when untied (BERT: the pooler)
  int64_t total = 0;
  int64_t active = 0;  // parameters one token uses (mixture of experts: only its experts)
};
ParameterBreakdown count_parameters(const ArchitectureConfig& c);

// A workbench model (its config.json) as a row of the table, so a loaded or shipped model can be placed among the
// published ones; count_parameters of it equals the model code's own count (core/model/weights parameter_count).
ArchitectureConfig architecture_of(const ModelConfig& m, const std::string& name);

// "" when usable, else one sentence naming the field (the user's own configuration).
std::string validate(const ArchitectureConfig& c);

}  // namespace tw
