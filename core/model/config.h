#pragma once
// ModelConfig: every architecture choice of the Transformer the workbench runs, one commented field each.
//
// A config is plain data the user edits (sliders, config.json); validate() turns every invalid combination into
// a readable message instead of an assert. config.json uses the Hugging Face LlamaConfig keys so a student can
// load the same checkpoint in PyTorch; choices LLaMA does not have are stored under extra "tw_*" keys.

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops/attention.h"  // ScaleMode
#include "core/ops/rope.h"       // RopeScaling, RopeConfig

namespace tw {

enum class NormType { RMSNorm, LayerNorm };
enum class NormPlacement { Pre, Post };                              // pre: x + f(Norm(x)); post: Norm(x + f(x))
enum class PositionType { None, Learned, Sinusoidal, RoPE, ALiBi };  // how the model knows token order
enum class ActivationKind { ReLU, GELU, SwiGLU, GeGLU };             // MLP kind; GELU is the exact erf form
enum class AttentionPattern { Full, Sliding };                       // sliding: each query sees the last W keys
// The Hugging Face architecture a config follows: its tensor names and layout on disk, and the details below that
// only some families have. Llama covers LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM and the
// workbench's own models; the others are GPT2LMHeadModel, Qwen3ForCausalLM, Gemma3ForCausalLM, Phi3ForCausalLM.
enum class Family { Llama, GPT2, Qwen3, Gemma3, Phi3 };

struct ModelConfig {
  int dim = 64;                       // C: width of the residual stream (hidden_size)
  int n_layers = 2;                   // number of Transformer blocks
  int n_heads = 4;                    // H: query heads; head_dim D = dim / n_heads unless head_dim_override
  int n_kv_heads = 2;                 // KV: key/value heads (= H: MHA, 1: MQA, between: GQA)
  int vocab = 259;                    // V: token ids 0 .. V-1 (259 = 256 bytes + 3 specials of the byte tokenizer)
  int hidden = 192;                   // F: MLP hidden size (intermediate_size)
  int max_seq = 128;                  // longest sequence the model accepts (max_position_embeddings)
  NormType norm = NormType::RMSNorm;  // RMSNorm (LLaMA) or LayerNorm (GPT-2, with bias)
  NormPlacement placement = NormPlacement::Pre;  // where the norm sits relative to the residual add
  // Parallel block (GPT-NeoX's use_parallel_residual; GPT-J and PaLM share one norm): out = x + Attn(Norm₁(x)) +
  // MLP(Norm₂(x)), both branches read the block input, with the two norms of the serial block (attn_norm, mlp_norm),
  // so the same weights run either way; GPT-J/PaLM's one shared norm is the case γ₁ = γ₂. Pre-norm only.
  bool parallel_block = false;
  PositionType positions = PositionType::RoPE;          // position information
  ActivationKind activation = ActivationKind::SwiGLU;   // MLP non-linearity; the GLU kinds have a gate matrix
  AttentionPattern attention = AttentionPattern::Full;  // pattern of the layers (see full_every for mixing)
  int window = 0;                                       // W for sliding layers: query i sees key j when 0 <= i - j < W
  int full_every = 0;  // interleave period with sliding attention: layer l is full when (l+1) % P == 0; 0 = none
  bool tie_embeddings = false;                  // lm_head reuses the token embedding matrix
  float eps = 1e-5f;                            // added to the variance inside the norm
  float rope_base = 10000.0f;                   // RoPE base theta: frequencies base^(-2k/D)
  ScaleMode attn_scale = ScaleMode::InvSqrtDk;  // factor on q·k: 1/√D (default), none, or 1/D (Custom is refused)
  bool qk_norm = false;  // RMS-normalise each head's q and k (learned γ of size D) before q·k, after RoPE (rotation
                         // keeps the RMS; Qwen3 applies its γ before RoPE instead)
  float attn_softcap = 0.0f;    // c > 0: scores become c·tanh(S/c) after scaling (Gemma 2 uses 50); 0 = off
  double memory_cap_mb = 2048;  // validate() refuses configs whose weights + traced activations exceed this
  bool attn_bias = false;       // q/k/v projections add a learned bias (Qwen2); o_proj never has one here
  RopeScaling rope_scaling = RopeScaling::None;  // config.json rope_scaling: linear, dynamic (NTK), llama3
  float rope_factor = 1.0f;                      // rope_scaling.factor
  int rope_original_context = 0;                 // trained context L (original_max_position_embeddings); 0 = max_seq
  float rope_low_freq = 1.0f;                    // rope_scaling.low_freq_factor (llama3)
  float rope_high_freq = 4.0f;                   // rope_scaling.high_freq_factor (llama3)
  // Mixture of experts (training path only; core/ops/moe_ffn.h): the MLP of every block becomes E expert MLPs of
  // hidden size F behind a router. Dense configs leave experts at 0 and every other field below is ignored.
  int experts = 0;               // E: 0 or 1 = one dense MLP; ≥ 2 = MoE feed-forward (Mixtral's block_sparse_moe)
  int top_k = 2;                 // k: experts each token is sent to (1 ≤ k ≤ E), gates renormalised over the k
  double capacity_factor = 0.0;  // > 0: an expert takes at most ⌈cf · N·k / E⌉ of a batch's N tokens, the rest
                                 // pass through on the residual stream (Switch); 0 = no limit
  double aux_loss_coef = 0.01;  // α of the load-balancing loss α · E Σ_e f_e P̄_e added to training (Switch: 0.01)
  // Details of the Hugging Face families (Family above); every default is the LLaMA behaviour.
  Family family = Family::Llama;  // tensor names and layout on disk (fused c_attn, qkv_proj, gate_up_proj, ...)
  int head_dim_override = 0;      // D when config.json's head_dim differs from dim / n_heads (Qwen3, Gemma 3); 0 = none
  bool linear_bias = false;       // o_proj and both MLP projections add a learned bias (GPT-2's c_proj, c_fc)
  bool gelu_tanh = false;         // GELU / GeGLU use the tanh approximation (gelu_new, gelu_pytorch_tanh)
  bool qk_norm_before_rope = false;    // QK-norm γ applied before RoPE with ε = eps (Qwen3, Gemma 3)
  bool norm_plus_one = false;          // RMSNorm scales by (1 + γ) instead of γ (Gemma), also in the QK-norm
  bool sandwich_norm = false;          // norms on the attention and MLP outputs before each residual add (Gemma 3)
  float embed_scale = 0.0f;            // > 0: embeddings multiplied by this (Gemma: √C in the weights' dtype)
  float query_scale = 0.0f;            // > 0: scores scaled by this, not 1/√D (Gemma: query_pre_attn_scalar^(-1/2))
  float final_softcap = 0.0f;          // > 0: logits become c·tanh(logits/c) (final_logit_softcapping)
  float rope_local_base = 0.0f;        // > 0: sliding layers rotate with this base, unscaled (rope_local_base_freq)
  float rotary_fraction = 1.0f;        // RoPE turns the first ⌊D·f⌋ dims of each head, the rest pass (Phi-3)
  std::vector<char> sliding_layers{};  // per layer 1 = sliding (config.json layer_types); empty = the full_every rule

  int head_dim() const { return head_dim_override > 0 ? head_dim_override : n_heads > 0 ? dim / n_heads : 0; }
  int rotary_dim() const { return static_cast<int>(head_dim() * rotary_fraction) / 2 * 2; }  // even, ≤ D
  int n_rep() const { return n_kv_heads > 0 ? n_heads / n_kv_heads : 0; }                    // query heads per KV head
  bool gated() const { return activation == ActivationKind::SwiGLU || activation == ActivationKind::GeGLU; }
  bool layer_is_sliding(int layer) const;                                  // sliding vs full attention for this layer
  bool has_final_norm() const { return placement == NormPlacement::Pre; }  // post-norm output is already normed
  bool moe() const { return experts >= 2; }                                // the blocks' MLP is a mixture of experts
  bool operator==(const ModelConfig&) const = default;  // every field: equal configs build equal models
};

// [SECTION] presets
inline constexpr int kMaxExperts = 64;  // largest E a config accepts

ModelConfig tiny_config();   // dim 64, 2 layers, 4 heads, 2 KV heads, byte vocabulary: recomputes instantly
ModelConfig small_config();  // the classic Small: dim 256, 4 layers, 8 heads, 4 KV heads, vocab 8192, F 768

// The RoPE frequencies this config uses (head_dim, base and the rope_scaling fields).
RopeConfig rope_config(const ModelConfig& config);

// [SECTION] validation
// One problem of a config: the field to change and one readable sentence. The field lets an editor put the
// message beside that field's control without reading the sentence; config.json errors name the file's keys.
struct ConfigProblem {
  std::string field;    // a ModelConfig field name: "dim", "n_kv_heads", "rope_scaling", "memory_cap_mb", ...
  std::string message;  // names ModelConfig fields, e.g. "dim (9) must be divisible by n_heads (2) so ..."
  bool operator==(const ConfigProblem&) const = default;
};
// Every problem, in a fixed order; empty when the config is valid.
std::vector<ConfigProblem> validate_fields(const ModelConfig& config);
// The messages of validate_fields alone, for callers that show one line (the CLI, the trainer).
std::vector<std::string> validate(const ModelConfig& config);
// An upper bound of the peak memory of the program running this model: weights, every buffer of a traced forward
// pass of max_seq tokens (Trace steps, working buffers, KV cache, logits) and the forward panel's figures of it
// (one step and one layer, in double), or the weights twice while a checkpoint loads, plus the program itself
// (kProcessBaseBytes). Writing a dump or a CSV streams, so it adds nothing.
// tests/app/dump_test.sh checks the peak RSS of the largest configs a cap accepts against it.
double estimated_memory_bytes(const ModelConfig& config);
constexpr double kProcessBaseBytes = 48.0 * 1024 * 1024;  // code, libraries, BLAS buffers, allocator slack

// [SECTION] names (config.json values and UI labels)
const char* to_string(NormType v);
const char* to_string(NormPlacement v);
const char* to_string(PositionType v);
const char* to_string(ActivationKind v);
const char* to_string(AttentionPattern v);
const char* to_string(Family v);
// The Hugging Face class name of a family ("GPT2LMHeadModel"), and every class name a folder or config may give,
// comma-separated, for the one-line refusal of an unknown one.
const char* hf_architecture(Family v);
const char* supported_architectures();
// Which family a config.json's architectures[0] / model_type names; false when none of ours.
bool family_from_architecture(const std::string& name, Family* out);
// The Hugging Face class an older config's model_type stands for ("qwen2" → "Qwen2ForCausalLM"); a class name as is.
std::string hf_class_name(const std::string& name);
// "" when training (backward pass, LoRA) can run this config; otherwise one line naming what has no backward.
std::string training_unsupported(const ModelConfig& config);
// Gives a config a family's block, keeping its sizes (dim, layers, heads, vocab, hidden, max_seq, window): what the
// Training panel's "family" builds.
//   GPT-2  LayerNorm with β, learned positions, tanh GELU (gelu_new), biases on q/k/v, o_proj and both MLP
//          projections, tied head, as many KV heads as query heads;
//   Qwen3  RMSNorm, RoPE, SwiGLU, each head's q and k RMS-normalised (own γ, the model's ε) before RoPE, no biases;
//   Gemma 3  RMSNorm as (1 + γ) (ε 1e-6), also on q and k before RoPE, sandwich norms, tanh GeGLU, embeddings
//          scaled by √C, tied head; its attention pattern (full unless the config has a sliding window) is kept.
// LLaMA keeps the config's own choices and drops every family's details (biases, tanh GELU, ...); Phi-3 (a LLaMA
// block stored fused) only sets the family.
void apply_family(ModelConfig& config, Family family);

// [SECTION] config.json
// Writes Hugging Face LlamaConfig keys plus tw_* keys for the non-LLaMA choices.
std::string config_to_json(const ModelConfig& config);
// Parses config.json text. On failure returns false and sets *error to one line; *out is only written on success.
// Missing keys keep the defaults of ModelConfig; the result is also validate()d.
bool config_from_json(const std::string& text, ModelConfig* out, std::string* error);
bool load_config(const std::string& path, ModelConfig* out, std::string* error);
bool save_config(const std::string& path, const ModelConfig& config, std::string* error);

}  // namespace tw
