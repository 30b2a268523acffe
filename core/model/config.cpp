#include "core/model/config.h"
#include "core/base/i18n.h"  // N_: names translated where shown
#include "core/base/json_parse.h"
#include "core/io/safetensors.h"  // round_to_storage: Gemma's embedding scale in the checkpoint's dtype
#include "core/machine_memory.h"

#include "core/base/read_file.h"
#include "core/enum_names.h"
#include "core/io/atomic_file.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <utility>

namespace tw {

bool ModelConfig::layer_is_sliding(int layer) const {
  if (attention != AttentionPattern::Sliding) return false;
  if (!sliding_layers.empty())
    return layer >= 0 && layer < static_cast<int>(sliding_layers.size()) && sliding_layers[size_t(layer)];
  if (full_every > 0 && (layer + 1) % full_every == 0) return false;
  return true;
}

// [SECTION] presets

ModelConfig tiny_config() { return ModelConfig{}; }

ModelConfig small_config() {
  // hidden 768, the LLaMA rule: int(2 * 4 * 256 / 3) = 682, rounded up to a multiple of 256.
  return {.dim = 256, .n_layers = 4, .n_heads = 8, .n_kv_heads = 4, .vocab = 8192, .hidden = 768, .max_seq = 256};
}

RopeConfig rope_config(const ModelConfig& c) {
  RopeConfig r;
  r.head_dim = c.rotary_dim();  // partial rotary (Phi-3): the frequencies of the rotated dims only
  r.base = c.rope_base;
  r.scaling = c.rope_scaling;
  r.factor = c.rope_factor;
  r.original_context = c.rope_original_context > 0 ? c.rope_original_context : c.max_seq;
  r.low_freq_factor = c.rope_low_freq;
  r.high_freq_factor = c.rope_high_freq;
  return r;
}

// [SECTION] validation

double estimated_memory_bytes(const ModelConfig& c) {
  // Everything in double: the point is to refuse huge configs before any int product can overflow.
  const double T = c.max_seq, C = c.dim, H = c.n_heads, KV = c.n_kv_heads, F = c.hidden, V = c.vocab, L = c.n_layers;
  const double D = c.head_dim();
  const double HD = H * D, KVD = KV * D;
  // The parameter_table formulas again, in double: int64 products of hostile sizes could overflow.
  const double norm = c.norm == NormType::LayerNorm ? 2 * C : C;
  const double E = c.moe() ? c.experts : 1;  // MoE: E expert MLPs and a router (E, C) per block
  const double per_block = (c.sandwich_norm ? 4 : 2) * norm + (c.linear_bias ? 2 * C + F : 0) + C * (HD + 2 * KVD) +
                           HD * C + E * (c.gated() ? 3 : 2) * C * F + (c.moe() ? E * C : 0) + (c.qk_norm ? 2 * D : 0) +
                           (c.attn_bias ? HD + 2 * KVD : 0);
  const double params = V * C + (c.positions == PositionType::Learned ? T * C : 0) + L * per_block +
                        (c.has_final_norm() ? norm : 0) + (c.tie_embeddings ? 0 : V * C);
  // A traced forward of max_seq tokens (what dump and the forward panel run), counted from forward.cpp:
  //   kept in the Trace, per layer: six (T, C) steps (norms, projections, residuals), q, q_rope and the
  //   attention output (T, H·D), k, k_rope and v (T, KV·D), the (H, T, T) scores and probabilities, and the three
  //   (T, F) MLP steps; plus the layer's KV cache, keys and values (T, KV·D);
  //   working buffers of one block, reused by every layer: five (T, C), two (T, H·D), two (T, KV·D), scores and
  //   probabilities (H, T, T) again, the MLP's three (T, F), and one (T, T) scratch;
  //   around the blocks: embeddings, positions and the final norm (T, C) each, and the logits (T, V) twice (the
  //   result and its Trace step);
  //   a MoE block (E experts, k per token; core/ops/moe_ffn.h) keeps the routing steps instead of the three
  //   (T, F) steps: router probabilities and gates (T, E), load and drops (E); its working buffers instead of the
  //   MLP's three (T, F): the router's (T, E) probabilities, the (T·k) choices, drop flags, gates and expert slots,
  //   the (T) gate sums, the (E) wanted and accepted counts, at most T·k accepted rows per layer in the experts
  //   ((T·k, C) in and out, (T·k, F) gate, up and hidden), and the dense (T, E) gates and two (E) rows the trace
  //   records.
  const double Ex = c.moe() ? c.experts : 0, Tk = c.moe() ? T * c.top_k : 0;
  const double mlp_steps = c.moe() ? 2 * T * Ex + 2 * Ex : 3 * T * F;
  const double mlp_work =
      c.moe() ? T * Ex + 4 * Tk + T + 2 * Ex + 2 * Tk * C + 3 * Tk * F + T * Ex + 2 * Ex : 3 * T * F;
  const double per_layer = 6 * T * C + 3 * T * HD + 3 * T * KVD + 2 * H * T * T + mlp_steps + 2 * T * KVD;
  const double working = 5 * T * C + 2 * T * HD + 2 * T * KVD + 2 * H * T * T + mlp_work + T * T;
  // What the forward panel shows of it: its step figure (one step, e.g. an (H, T, T) map) and its layer strip
  // (every step of one layer) hold their data in double precision for the plot layer, twice the floats.
  const double shown = 2 * std::max({H * T * T, T * V, c.moe() ? T * Ex : T * F}) + 2 * (per_layer - 2 * T * KVD);
  const double activations = L * per_layer + working + 3 * T * C + 2 * T * V + shown;
  // Loading a checkpoint briefly holds the weights twice (the parsed file and the model's matrices) before any
  // activation exists; saving streams them (core/io/safetensors.h), so it adds nothing.
  const double floats = params + std::max(params, activations);
  return 4.0 * floats + kProcessBaseBytes;
}

namespace {

// The problems of a config, each message naming fields as name(field) does: the ModelConfig field itself for the
// panels, the config.json key for a file's errors. The wording is written once for both.
std::vector<ConfigProblem> config_problems(const ModelConfig& c, const char* (*name)(const char* field)) {
  std::vector<ConfigProblem> errors;
  auto add = [&](const char* field, std::string message) { errors.push_back({field, std::move(message)}); };
  auto n = [&](const char* field) { return std::string(name(field)); };
  auto positive = [&](const char* field, int v) {
    if (v <= 0) add(field, subst(tr("{0} must be at least 1 (got {1})"), {n(field), std::to_string(v)}));
    return v > 0;
  };
  const bool dims_ok = positive("dim", c.dim);
  positive("n_layers", c.n_layers);
  const bool heads_ok = positive("n_heads", c.n_heads);
  const bool kv_ok = positive("n_kv_heads", c.n_kv_heads);
  positive("vocab", c.vocab);
  positive("hidden", c.hidden);
  positive("max_seq", c.max_seq);

  if (dims_ok && heads_ok && c.head_dim_override <= 0 && c.dim % c.n_heads != 0)
    add("dim", subst(tr("{0} ({1}) must be divisible by {2} ({3}) so every head gets the same head_dim"),
                     {n("dim"), std::to_string(c.dim), n("n_heads"), std::to_string(c.n_heads)}));
  if (heads_ok && kv_ok) {
    if (c.n_kv_heads > c.n_heads)
      add("n_kv_heads", subst(tr("{0} ({1}) cannot exceed {2} ({3})"), {n("n_kv_heads"), std::to_string(c.n_kv_heads),
                                                                        n("n_heads"), std::to_string(c.n_heads)}));
    else if (c.n_heads % c.n_kv_heads != 0)
      add("n_kv_heads",
          subst(tr("{0} ({1}) must be divisible by {2} ({3}) so each KV head serves the same number of query heads"),
                {n("n_heads"), std::to_string(c.n_heads), n("n_kv_heads"), std::to_string(c.n_kv_heads)}));
  }
  const bool d_ok = dims_ok && heads_ok && (c.head_dim_override > 0 || c.dim % c.n_heads == 0);
  if (c.positions == PositionType::RoPE && d_ok && c.head_dim_override > 0 && c.rotary_dim() < 2)
    add("rotary_fraction", subst(tr("RoPE needs at least 2 rotated dimensions (head_dim {0} · {1})"),
                                 {std::to_string(c.head_dim()), std::to_string(c.rotary_fraction)}));
  else if (c.positions == PositionType::RoPE && c.head_dim_override <= 0 && dims_ok && heads_ok &&
           c.dim % c.n_heads == 0 && c.head_dim() % 2 != 0)
    add("dim", subst(tr("RoPE rotates pairs of dimensions, so head_dim must be even (got {0} = {1} {2} / {3} {4})"),
                     {std::to_string(c.head_dim()), n("dim"), std::to_string(c.dim), n("n_heads"),
                      std::to_string(c.n_heads)}));
  if (c.positions == PositionType::RoPE && !(c.rope_base > 1.0f && std::isfinite(c.rope_base)))
    add("rope_base", subst(tr("{0} must be a finite number greater than 1 (got {1})"),
                           {n("rope_base"), std::to_string(c.rope_base)}));
  if (c.positions == PositionType::RoPE && c.rope_scaling != RopeScaling::None && d_ok && c.rotary_dim() >= 2) {
    if (const std::string problem = validate(rope_config(c)); !problem.empty())
      add("rope_scaling", "rope_scaling: " + problem);
  }
  if (c.positions == PositionType::Sinusoidal && dims_ok && c.dim % 2 != 0)
    add("dim", subst(tr("sinusoidal positions pair a sine with a cosine, so {0} must be even (got {1})"),
                     {n("dim"), std::to_string(c.dim)}));
  if (c.attention == AttentionPattern::Sliding && c.window <= 0)
    add("window", subst(tr("sliding attention needs {0} >= 1 (got {1})"), {n("window"), std::to_string(c.window)}));
  if (c.full_every < 0)
    add("full_every", subst(tr("{0} must be 0 (no full layers) or a period >= 1 (got {1})"),
                            {n("full_every"), std::to_string(c.full_every)}));
  if (c.attention == AttentionPattern::Full && c.full_every > 0)
    add("full_every",
        subst(tr("{0} interleaves full layers into sliding attention; set attention to sliding or {0} to 0"),
              {n("full_every")}));
  if (c.parallel_block && c.placement != NormPlacement::Pre)
    add("parallel_block", subst(tr("a parallel block adds both branches to the block input, so it needs pre-norm "
                                   "({0} = post)"),
                                {n("placement")}));
  if (c.attn_scale == ScaleMode::Custom)
    add("attn_scale", tr("attention scale must be 1/sqrt(d_k), none or 1/d_k (a custom factor is not a model choice)"));
  if (!(c.rotary_fraction > 0.0f && c.rotary_fraction <= 1.0f))
    add("rotary_fraction",
        subst(tr("{0} must be in (0, 1] (got {1})"), {n("rotary_fraction"), std::to_string(c.rotary_fraction)}));
  if (!c.sliding_layers.empty() && static_cast<int>(c.sliding_layers.size()) != c.n_layers)
    add("sliding_layers", subst(tr("layer_types has {0} entries but the model has {1} layers"),
                                {std::to_string(c.sliding_layers.size()), std::to_string(c.n_layers)}));
  for (const float v : {c.embed_scale, c.query_scale, c.final_softcap, c.rope_local_base})
    if (!(v >= 0.0f && std::isfinite(v))) {
      add("family", tr("embedding scale, query scale, final soft-cap and local RoPE base must be 0 (off) or positive"));
      break;
    }
  if (!(c.attn_softcap >= 0.0f && std::isfinite(c.attn_softcap)))
    add("attn_softcap", subst(tr("attention soft-cap must be 0 (off) or a positive number (got {0})"),
                              {std::to_string(c.attn_softcap)}));
  if (c.experts < 0 || c.experts > kMaxExperts)
    add("experts", subst(tr("{0} must be between 0 (dense) and {1} (got {2})"),
                         {n("experts"), std::to_string(kMaxExperts), std::to_string(c.experts)}));
  else if (c.moe() && (c.top_k < 1 || c.top_k > c.experts))
    add("top_k", subst(tr("{0} must be between 1 and {1} ({2}), got {3}"),
                       {n("top_k"), n("experts"), std::to_string(c.experts), std::to_string(c.top_k)}));
  if (c.moe() && !(c.capacity_factor >= 0.0 && std::isfinite(c.capacity_factor)))
    add("capacity_factor", subst(tr("{0} must be 0 (no limit) or a positive number"), {n("capacity_factor")}));
  if (c.moe() && !(c.aux_loss_coef >= 0.0 && std::isfinite(c.aux_loss_coef)))
    add("aux_loss_coef", subst(tr("{0} must be 0 (off) or a positive number"), {n("aux_loss_coef")}));
  if (!(c.eps > 0.0f && std::isfinite(c.eps)))
    add("eps", subst(tr("{0} must be a small positive number (got {1})"), {n("eps"), std::to_string(c.eps)}));
  if (!(c.memory_cap_mb > 0.0 && std::isfinite(c.memory_cap_mb)))
    add("memory_cap_mb",
        subst(tr("{0} must be positive (got {1})"), {n("memory_cap_mb"), std::to_string(c.memory_cap_mb)}));
  else if (errors.empty()) {
    const double mb = estimated_memory_bytes(c) / (1024.0 * 1024.0);
    const double cap = cap_to_machine(c.memory_cap_mb);  // a file cannot raise it past the machine's memory
    if (mb > cap) {
      auto mib = [](double v) {
        std::ostringstream s;
        s.precision(0);
        s << std::fixed << v;
        return s.str();
      };
      add("memory_cap_mb",
          subst(
              tr("this model needs about {0} MiB (weights + traced activations at {1} {2}), above the cap of {3} MiB"),
              {mib(mb), n("max_seq"), std::to_string(c.max_seq), mib(cap)}) +
              (cap < c.memory_cap_mb ? subst(tr(" (this machine's memory; {0} asks for {1} MiB)"),
                                             {n("memory_cap_mb"), mib(c.memory_cap_mb)})
                                     : std::string()));
    }
  }
  return errors;
}

const char* field_name(const char* field) { return field; }

// A user who wrote config.json knows the keys they typed, so its messages name those: hidden_size, not dim.
const char* config_json_key(const char* field) {
  static const std::pair<std::string_view, const char*> keys[] = {
      {"dim", "hidden_size"},
      {"n_layers", "num_hidden_layers"},
      {"n_heads", "num_attention_heads"},
      {"n_kv_heads", "num_key_value_heads"},
      {"vocab", "vocab_size"},
      {"hidden", "intermediate_size"},
      {"max_seq", "max_position_embeddings"},
      {"window", "sliding_window"},
      {"eps", "rms_norm_eps"},
      {"rope_base", "rope_theta"},
      {"full_every", "tw_full_every"},
      {"memory_cap_mb", "tw_memory_cap_mb"},
      {"parallel_block", "use_parallel_residual"},
      {"placement", "tw_norm_placement"},
      {"experts", "num_local_experts"},
      {"top_k", "num_experts_per_tok"},
      {"capacity_factor", "tw_capacity_factor"},
      {"aux_loss_coef", "router_aux_loss_coef"},
      {"rotary_fraction", "partial_rotary_factor"},
      {"sliding_layers", "layer_types"},
  };
  for (const auto& [f, key] : keys)
    if (f == field) return key;
  return field;
}

}  // namespace

std::vector<ConfigProblem> validate_fields(const ModelConfig& c) { return config_problems(c, field_name); }

std::vector<std::string> validate(const ModelConfig& c) {
  std::vector<std::string> messages;
  for (ConfigProblem& p : validate_fields(c)) messages.push_back(std::move(p.message));
  return messages;
}

// [SECTION] names

namespace {
// Also the tw_* values of config.json, which config_from_json parses back with these tables.
constexpr const char* kNormTypeNames[] = {N_("rmsnorm"), N_("layernorm")};
constexpr const char* kNormPlacementNames[] = {N_("pre"), N_("post")};
constexpr const char* kPositionTypeNames[] = {N_("none"), N_("learned"), N_("sinusoidal"), N_("rope"), N_("alibi")};
constexpr const char* kActivationKindNames[] = {N_("relu"), N_("gelu"), N_("swiglu"), N_("geglu")};
constexpr const char* kAttentionPatternNames[] = {N_("full"), N_("sliding")};
constexpr const char* kFamilyNames[] = {"llama", "gpt2", "qwen3", "gemma3", "phi3"};
// The Hugging Face class of each family; Llama's other classes (same layout) follow in kLlamaClasses.
constexpr const char* kFamilyClasses[] = {"LlamaForCausalLM", "GPT2LMHeadModel", "Qwen3ForCausalLM",
                                          "Gemma3ForCausalLM", "Phi3ForCausalLM"};
constexpr const char* kLlamaClasses[] = {"MistralForCausalLM", "Qwen2ForCausalLM"};
// model_type values of older configs that name no class, with the class each stands for.
struct ModelType {
  const char* type;
  Family family;
  const char* hf_class;
};
constexpr ModelType kModelTypes[] = {
    {"llama", Family::Llama, "LlamaForCausalLM"}, {"mistral", Family::Llama, "MistralForCausalLM"},
    {"qwen2", Family::Llama, "Qwen2ForCausalLM"}, {"gpt2", Family::GPT2, "GPT2LMHeadModel"},
    {"qwen3", Family::Qwen3, "Qwen3ForCausalLM"}, {"gemma3_text", Family::Gemma3, "Gemma3ForCausalLM"},
    {"phi3", Family::Phi3, "Phi3ForCausalLM"}};
static_assert(names_every(kFamilyNames, Family::Phi3));
static_assert(names_every(kFamilyClasses, Family::Phi3));
static_assert(names_every(kNormTypeNames, NormType::LayerNorm));
static_assert(names_every(kNormPlacementNames, NormPlacement::Post));
static_assert(names_every(kPositionTypeNames, PositionType::ALiBi));
static_assert(names_every(kActivationKindNames, ActivationKind::GeGLU));
static_assert(names_every(kAttentionPatternNames, AttentionPattern::Sliding));
}  // namespace

const char* to_string(NormType v) { return enum_name(kNormTypeNames, v); }
const char* to_string(NormPlacement v) { return enum_name(kNormPlacementNames, v); }
const char* to_string(PositionType v) { return enum_name(kPositionTypeNames, v); }
const char* to_string(ActivationKind v) { return enum_name(kActivationKindNames, v); }
const char* to_string(AttentionPattern v) { return enum_name(kAttentionPatternNames, v); }
const char* to_string(Family v) { return enum_name(kFamilyNames, v); }
const char* hf_architecture(Family v) { return enum_name(kFamilyClasses, v); }

const char* supported_architectures() {
  return "LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, GPT2LMHeadModel, Qwen3ForCausalLM, "
         "Gemma3ForCausalLM, Phi3ForCausalLM";
}

bool family_from_architecture(const std::string& name, Family* out) {
  for (size_t i = 0; i < std::size(kFamilyClasses); ++i)
    if (name == kFamilyClasses[i]) return *out = static_cast<Family>(i), true;
  for (const char* a : kLlamaClasses)
    if (name == a) return *out = Family::Llama, true;
  for (const ModelType& t : kModelTypes)
    if (name == t.type) return *out = t.family, true;
  return false;
}

std::string hf_class_name(const std::string& name) {
  for (const ModelType& t : kModelTypes)
    if (name == t.type) return t.hf_class;
  return name;
}

std::string training_unsupported(const ModelConfig& c) {
  // Every family's ops have a backward (core/train/model_train.cpp); the sandwich norms only inside the serial pre-norm
  // block Gemma 3 uses.
  const char* missing = c.sandwich_norm && (c.placement != NormPlacement::Pre || c.parallel_block)
                            ? N_("the sandwich norms outside a serial pre-norm block")
                            : nullptr;
  if (!missing) return "";
  return subst(tr("training is not available for {0}: {1} has no backward pass yet"),
               {hf_architecture(c.family), tr(missing)});
}

void apply_family(ModelConfig& c, Family f) {
  c.family = f;
  if (f == Family::Llama) {  // the families' own details off: a config that was GPT-2 before keeps no c_proj bias
    const ModelConfig d;
    c.head_dim_override = d.head_dim_override;
    c.linear_bias = d.linear_bias;
    c.gelu_tanh = d.gelu_tanh;
    c.qk_norm_before_rope = d.qk_norm_before_rope;
    c.norm_plus_one = d.norm_plus_one;
    c.sandwich_norm = d.sandwich_norm;
    c.embed_scale = d.embed_scale;
    c.query_scale = d.query_scale;
    c.final_softcap = d.final_softcap;
    c.rope_local_base = d.rope_local_base;
    c.rotary_fraction = d.rotary_fraction;
  } else if (f == Family::GPT2) {
    c.norm = NormType::LayerNorm;
    c.placement = NormPlacement::Pre;
    c.parallel_block = false;
    c.positions = PositionType::Learned;
    c.activation = ActivationKind::GELU;
    c.gelu_tanh = c.attn_bias = c.linear_bias = c.tie_embeddings = true;
    c.n_kv_heads = c.n_heads;
    c.qk_norm = c.qk_norm_before_rope = false;
  } else if (f == Family::Qwen3) {
    c.norm = NormType::RMSNorm;
    c.placement = NormPlacement::Pre;
    c.parallel_block = false;
    c.positions = PositionType::RoPE;
    c.activation = ActivationKind::SwiGLU;
    c.gelu_tanh = c.attn_bias = c.linear_bias = false;
    c.qk_norm = c.qk_norm_before_rope = true;
  } else if (f == Family::Gemma3) {
    c.norm = NormType::RMSNorm;
    c.placement = NormPlacement::Pre;
    c.parallel_block = false;
    c.positions = PositionType::RoPE;
    c.activation = ActivationKind::GeGLU;
    c.attn_bias = c.linear_bias = false;
    c.gelu_tanh = c.qk_norm = c.qk_norm_before_rope = c.norm_plus_one = c.sandwich_norm = c.tie_embeddings = true;
    c.embed_scale = std::sqrt(static_cast<float>(c.dim));  // √C in float32, as a float32 checkpoint loads it
    c.eps = 1e-6f;
  }
}

// [SECTION] config.json

namespace {

using nlohmann::json;

// Hugging Face's hidden_act names the function inside the (always gated) LLaMA MLP.
const char* hf_hidden_act(ActivationKind a) {
  switch (a) {
    case ActivationKind::ReLU: return "relu";
    case ActivationKind::GELU: return "gelu";
    case ActivationKind::SwiGLU: return "silu";
    case ActivationKind::GeGLU: return "gelu";
  }
  return "silu";
}

template <class Enum, size_t N>
bool parse_enum(const json& j, const char* key, const char* const (&names)[N], Enum* out, std::string* error) {
  if (!j.contains(key)) return true;
  const json& v = j[key];
  std::string choices;
  for (const char* name : names) choices += std::string(choices.empty() ? "" : ", ") + name;
  if (!v.is_string()) {
    *error = subst(tr("config.json: '{0}' must be a string, one of: {1}"), {key, choices});
    return false;
  }
  if (enum_from_name(names, v.get<std::string>(), out)) return true;
  *error = subst(tr("config.json: '{0}' is '{1}', expected one of: {2}"), {key, v.get<std::string>(), choices});
  return false;
}

bool parse_int(const json& j, const char* key, int* out, std::string* error) {
  if (!j.contains(key)) return true;
  const json& v = j[key];
  if (!v.is_number_integer()) {
    *error = subst(tr("config.json: '{0}' must be an integer"), {key});
    return false;
  }
  const int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())
                        ? std::numeric_limits<int64_t>::max()
                        : v.get<int64_t>();
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
    *error = subst(tr("config.json: '{0}' is out of range"), {key});
    return false;
  }
  *out = static_cast<int>(x);
  return true;
}

template <class Float>
bool parse_number(const json& j, const char* key, Float* out, std::string* error) {
  if (!j.contains(key)) return true;
  const json& v = j[key];
  if (!v.is_number()) {
    *error = subst(tr("config.json: '{0}' must be a number"), {key});
    return false;
  }
  *out = static_cast<Float>(v.get<double>());
  return true;
}

bool parse_bool(const json& j, const char* key, bool* out, std::string* error) {
  if (!j.contains(key)) return true;
  if (!j[key].is_boolean()) {
    *error = subst(tr("config.json: '{0}' must be true or false"), {key});
    return false;
  }
  *out = j[key].get<bool>();
  return true;
}

// attention_bias / Qwen2's q/k/v biases and rope_scaling (keys of the Hugging Face configs).
bool parse_hf_extras(const json& j, ModelConfig* c, std::string* error) {
  if (c->family != Family::Llama) {  // apply_family_keys has read the family's biases already
    if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return true;
  }
  bool qwen2 = false;
  if (j.contains("architectures") && j["architectures"].is_array())
    for (const json& a : j["architectures"])
      qwen2 = qwen2 || (a.is_string() && a.get<std::string>() == "Qwen2ForCausalLM");
  if (qwen2) {
    c->attn_bias = true;  // Qwen2Attention always has q/k/v biases (and no o_proj bias)
  } else {
    bool bias = false;
    if (!parse_bool(j, "attention_bias", &bias, error)) return false;
    if (bias) {
      *error =
          tr("config.json: attention_bias with an o_proj bias (LLaMA style) is not supported; only Qwen2's "
             "q_proj/k_proj/v_proj biases are");
      return false;
    }
  }
  if (!j.contains("rope_scaling") || j["rope_scaling"].is_null()) return true;
  const json& r = j["rope_scaling"];
  if (!r.is_object()) {
    *error = tr("config.json: 'rope_scaling' must be an object or null");
    return false;
  }
  const json& kind = r.contains("rope_type") ? r["rope_type"] : r.contains("type") ? r["type"] : json();
  const std::string name = kind.is_string() ? kind.get<std::string>() : "";
  if (name == "default") return true;
  if (name == "linear")
    c->rope_scaling = RopeScaling::Linear;
  else if (name == "dynamic")
    c->rope_scaling = RopeScaling::DynamicNtk;
  else if (name == "llama3")
    c->rope_scaling = RopeScaling::Llama3;
  else {
    *error = subst(tr("config.json: rope_scaling type '{0}' is not supported (linear, dynamic or llama3)"), {name});
    return false;
  }
  // HF's dynamic scaling measures against max_position_embeddings; llama3 names its own original length.
  c->rope_original_context = c->max_seq;
  return parse_number(r, "factor", &c->rope_factor, error) &&
         parse_int(r, "original_max_position_embeddings", &c->rope_original_context, error) &&
         parse_number(r, "low_freq_factor", &c->rope_low_freq, error) &&
         parse_number(r, "high_freq_factor", &c->rope_high_freq, error);
}

// A float rounded to what a tensor of the checkpoint's torch_dtype holds (Gemma's embedding scale is cast so).
float round_to_dtype(float v, const json& j) {
  const std::string dtype = j.contains("torch_dtype") && j["torch_dtype"].is_string()
                                ? j["torch_dtype"].get<std::string>()
                            : j.contains("dtype") && j["dtype"].is_string() ? j["dtype"].get<std::string>()
                                                                            : "";
  if (dtype == "bfloat16") return round_to_storage(v, StorageType::BF16);
  if (dtype == "float16") return round_to_storage(v, StorageType::F16);
  return v;
}

// layer_types ("sliding_attention" / "full_attention" per layer) → c->sliding_layers; absent: nothing changes.
bool parse_layer_types(const json& j, ModelConfig* c, std::string* error) {
  if (!j.contains("layer_types") || j["layer_types"].is_null()) return true;
  const json& t = j["layer_types"];
  if (!t.is_array()) return *error = tr("config.json: 'layer_types' must be a list"), false;
  c->sliding_layers.clear();
  for (const json& v : t) {
    const std::string name = v.is_string() ? v.get<std::string>() : "";
    if (name != "sliding_attention" && name != "full_attention") {
      *error = subst(tr("config.json: layer_types entry '{0}' is not supported (sliding_attention or "
                        "full_attention)"),
                     {name});
      return false;
    }
    c->sliding_layers.push_back(name == "sliding_attention" ? 1 : 0);
  }
  return true;
}

void rename_key(json& j, const char* from, const char* to) {
  if (j.contains(from) && !j[from].is_null()) j[to] = j[from];
}

bool key_flag(const json& j, const char* key) { return j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); }

// One line refusing a value the workbench cannot run exactly; always false.
bool refuse_family_value(Family f, const std::string& what, std::string* error) {
  *error = subst(tr("config.json: {0} is not supported for {1}"), {what, hf_architecture(f)});
  return false;
}

// GPT2Config: n_embd, n_layer, n_head, n_positions, n_inner (null = 4·n_embd), layer_norm_epsilon.
bool gpt2_keys(json& j, ModelConfig* c, std::string* error) {
  const auto refuse = [&](const std::string& what) { return refuse_family_value(Family::GPT2, what, error); };
  rename_key(j, "n_embd", "hidden_size");
  rename_key(j, "n_layer", "num_hidden_layers");
  rename_key(j, "n_head", "num_attention_heads");
  rename_key(j, "n_positions", "max_position_embeddings");
  rename_key(j, "layer_norm_epsilon", "rms_norm_eps");
  if (!j.contains("hidden_size")) j["hidden_size"] = 768;
  if (!j.contains("num_hidden_layers")) j["num_hidden_layers"] = 12;
  if (!j.contains("num_attention_heads")) j["num_attention_heads"] = 12;
  if (!j.contains("max_position_embeddings")) j["max_position_embeddings"] = 1024;
  if (!j.contains("vocab_size")) j["vocab_size"] = 50257;
  if (!j.contains("rms_norm_eps")) j["rms_norm_eps"] = 1e-5;
  if (j.contains("n_inner") && !j["n_inner"].is_null())
    j["intermediate_size"] = j["n_inner"];
  else if (j["hidden_size"].is_number_integer())
    j["intermediate_size"] = 4 * j["hidden_size"].get<int64_t>();
  j.erase("num_key_value_heads");
  const std::string act = j.contains("activation_function") && j["activation_function"].is_string()
                              ? j["activation_function"].get<std::string>()
                              : "gelu_new";
  if (act == "gelu_new" || act == "gelu_pytorch_tanh" || act == "gelu_fast")
    c->gelu_tanh = true;
  else if (act != "gelu" && act != "relu")
    return refuse("activation_function '" + act + "'");
  j["tw_activation"] = act == "relu" ? "relu" : "gelu";
  if (key_flag(j, "scale_attn_by_inverse_layer_idx")) return refuse("scale_attn_by_inverse_layer_idx");
  if (key_flag(j, "add_cross_attention")) return refuse("add_cross_attention");
  if (j.contains("scale_attn_weights") && j["scale_attn_weights"].is_boolean() && !j["scale_attn_weights"].get<bool>())
    j["tw_attn_scale"] = "none";
  j["tw_norm"] = "layernorm";
  j["tw_positions"] = "learned";
  j.erase("sliding_window");
  j.erase("rope_scaling");
  if (!j.contains("tie_word_embeddings")) j["tie_word_embeddings"] = true;
  c->attn_bias = true;
  c->linear_bias = true;
  return true;
}

// Qwen3 and Gemma 3: per-head q/k norms before RoPE, and a head_dim of their own (the classes' defaults otherwise).
void qk_norm_keys(json& j, Family f, ModelConfig* c) {
  c->qk_norm = true;
  c->qk_norm_before_rope = true;
  if (j.contains("head_dim") && j["head_dim"].is_number_integer() && j["head_dim"].get<int64_t>() > 0 &&
      j["head_dim"].get<int64_t>() < (1 << 20))
    c->head_dim_override = static_cast<int>(j["head_dim"].get<int64_t>());
  else if (!j.contains("head_dim"))
    c->head_dim_override = f == Family::Gemma3 ? 256 : 128;
  j.erase("head_dim");
}

// Qwen3Config: sliding layers are those from max_window_layers on, when use_sliding_window (or layer_types).
bool qwen3_keys(json& j, ModelConfig* c, std::string* error) {
  const bool use = key_flag(j, "use_sliding_window");
  if (!use) j.erase("sliding_window");
  if (!parse_layer_types(j, c, error)) return false;
  if (use && c->sliding_layers.empty() && j.contains("num_hidden_layers") &&
      j["num_hidden_layers"].is_number_integer()) {
    int from = 28;
    if (!parse_int(j, "max_window_layers", &from, error)) return false;
    const int64_t L = std::clamp<int64_t>(j["num_hidden_layers"].get<int64_t>(), 0, 1 << 16);
    for (int64_t l = 0; l < L; ++l) c->sliding_layers.push_back(l >= from ? 1 : 0);
  }
  j.erase("use_sliding_window");
  return true;
}

// Gemma3TextConfig: hidden_activation, query_pre_attn_scalar, sliding_window_pattern / layer_types,
// rope_local_base_freq, the two soft-caps; the embeddings are scaled by √hidden_size in the weights' dtype.
bool gemma3_keys(json& j, ModelConfig* c, std::string* error) {
  const auto refuse = [&](const std::string& what) { return refuse_family_value(Family::Gemma3, what, error); };
  const std::string act = j.contains("hidden_activation") && j["hidden_activation"].is_string()
                              ? j["hidden_activation"].get<std::string>()
                          : j.contains("hidden_act") && j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>()
                                                                                    : "gelu_pytorch_tanh";
  if (act == "gelu_pytorch_tanh" || act == "gelu_new")
    c->gelu_tanh = true;
  else if (act != "gelu")
    return refuse("hidden_activation '" + act + "'");
  j["tw_activation"] = "geglu";
  c->norm_plus_one = true;
  c->sandwich_norm = true;
  if (!j.contains("tie_word_embeddings")) j["tie_word_embeddings"] = true;
  if (!j.contains("rope_theta")) j["rope_theta"] = 1e6;
  if (!j.contains("sliding_window") || j["sliding_window"].is_null()) j["sliding_window"] = 4096;
  if (!parse_layer_types(j, c, error)) return false;
  if (c->sliding_layers.empty()) {
    int pattern = 6;
    if (!parse_int(j, "sliding_window_pattern", &pattern, error)) return false;
    j["tw_full_every"] = std::max(pattern, 0);
  }
  double scalar = 256;
  if (!parse_number(j, "query_pre_attn_scalar", &scalar, error)) return false;
  if (!(scalar > 0)) return refuse("query_pre_attn_scalar " + std::to_string(scalar));
  c->query_scale = static_cast<float>(1.0 / std::sqrt(scalar));
  c->rope_local_base = 10000.0f;
  if (!parse_number(j, "rope_local_base_freq", &c->rope_local_base, error)) return false;
  if (j.contains("final_logit_softcapping") && !j["final_logit_softcapping"].is_null() &&
      !parse_number(j, "final_logit_softcapping", &c->final_softcap, error))
    return false;
  int hidden = 2304;
  if (!parse_int(j, "hidden_size", &hidden, error)) return false;
  c->embed_scale = round_to_dtype(std::sqrt(static_cast<float>(std::max(hidden, 0))), j);
  return true;
}

// Phi3Config: fused qkv_proj and gate_up_proj (a layout on disk), partial_rotary_factor; longrope is refused.
bool phi3_keys(json& j, ModelConfig* c, std::string* error) {
  if (!parse_number(j, "partial_rotary_factor", &c->rotary_fraction, error)) return false;
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) {
    const json& r = j["rope_scaling"];
    const json& kind = r.contains("rope_type") ? r["rope_type"] : r.contains("type") ? r["type"] : json();
    if (kind.is_string() && (kind == "longrope" || kind == "su" || kind == "yarn"))
      return refuse_family_value(
          Family::Phi3, "rope_scaling '" + kind.get<std::string>() + "' (longrope; use a 4k-context Phi-3)", error);
  }
  return true;
}

// The keys of a family's config.json (Hugging Face's GPT2Config, Qwen3Config, Gemma3TextConfig, Phi3Config) become
// the LLaMA keys and tw_* choices the rest of config_from_json reads; the details only a family has are set on *c.
// Values the workbench cannot run exactly are refused in one line.
bool apply_family_keys(json& j, Family f, ModelConfig* c, std::string* error) {
  c->family = f;
  if (f == Family::Llama) return true;
  if (key_flag(j, "attention_bias") || key_flag(j, "mlp_bias"))
    return refuse_family_value(f, "attention_bias / mlp_bias", error);
  j.erase("attention_bias");
  j.erase("mlp_bias");
  if (f == Family::GPT2) return gpt2_keys(j, c, error);
  j["tw_positions"] = "rope";
  if (!j.contains("rms_norm_eps")) j["rms_norm_eps"] = f == Family::Phi3 ? 1e-5 : 1e-6;
  if (f == Family::Qwen3 || f == Family::Gemma3) qk_norm_keys(j, f, c);
  if (f == Family::Qwen3 && !qwen3_keys(j, c, error)) return false;
  if (f == Family::Gemma3 && !gemma3_keys(j, c, error)) return false;
  if (f == Family::Phi3 && !phi3_keys(j, c, error)) return false;
  if (!j.contains("tw_activation")) {
    const std::string act =
        j.contains("hidden_act") && j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "silu";
    if (act != "silu" && act != "swish") return refuse_family_value(f, "hidden_act '" + act + "'", error);
    j["tw_activation"] = "swiglu";
  }
  return true;
}

// A family's own class and keys, so Hugging Face and config_from_json read the same model back (the LLaMA keys
// written before stay: GPT2Config maps hidden_size and friends onto its n_* names itself).
void family_keys_to_json(json& j, const ModelConfig& c) {
  if (c.family == Family::Llama) return;
  static const char* types[] = {"llama", "gpt2", "qwen3", "gemma3_text", "phi3"};
  j["architectures"] = {hf_architecture(c.family)};
  j["model_type"] = types[static_cast<int>(c.family)];
  for (const char* k : {"tw_norm", "tw_norm_placement", "tw_positions", "tw_activation", "tw_attention",
                        "tw_full_every", "tw_qk_norm", "attention_bias", "mlp_bias"})
    j.erase(k);
  if (c.family == Family::GPT2) {
    j["n_embd"] = c.dim;
    j["n_layer"] = c.n_layers;
    j["n_head"] = c.n_heads;
    j["n_positions"] = c.max_seq;
    j["n_inner"] = c.hidden;
    j["layer_norm_epsilon"] = c.eps;
    j["activation_function"] = c.gelu_tanh ? "gelu_new" : to_string(c.activation);
    j["scale_attn_weights"] = c.attn_scale != ScaleMode::None;
    for (const char* k : {"hidden_act", "rope_theta", "rope_scaling", "sliding_window", "num_key_value_heads",
                          "head_dim", "rms_norm_eps"})
      j.erase(k);
    return;
  }
  j["head_dim"] = c.head_dim();
  if (c.family == Family::Qwen3) {
    j["use_sliding_window"] = c.attention == AttentionPattern::Sliding;
    j["max_window_layers"] = c.n_layers;
  }
  if (c.attention == AttentionPattern::Sliding && (c.family == Family::Gemma3 || c.family == Family::Qwen3)) {
    json types_list = json::array();
    for (int l = 0; l < c.n_layers; ++l)
      types_list.push_back(c.layer_is_sliding(l) ? "sliding_attention" : "full_attention");
    j["layer_types"] = types_list;
  }
  if (c.family == Family::Gemma3) {
    j["hidden_activation"] = c.gelu_tanh ? "gelu_pytorch_tanh" : "gelu";
    j.erase("hidden_act");
    j["query_pre_attn_scalar"] = c.query_scale > 0 ? 1.0 / (double(c.query_scale) * c.query_scale) : c.head_dim();
    j["rope_local_base_freq"] = c.rope_local_base;
    j["final_logit_softcapping"] = c.final_softcap > 0 ? json(c.final_softcap) : json(nullptr);
  }
  if (c.family == Family::Phi3) j["partial_rotary_factor"] = c.rotary_fraction;
}

}  // namespace

std::string config_to_json(const ModelConfig& c) {
  json j;
  // Hugging Face LlamaConfig keys.
  j["architectures"] = {"LlamaForCausalLM"};
  j["model_type"] = "llama";
  j["hidden_size"] = c.dim;
  j["intermediate_size"] = c.hidden;
  j["num_hidden_layers"] = c.n_layers;
  j["num_attention_heads"] = c.n_heads;
  j["num_key_value_heads"] = c.n_kv_heads;
  j["head_dim"] = c.head_dim();
  j["vocab_size"] = c.vocab;
  j["max_position_embeddings"] = c.max_seq;
  j["rms_norm_eps"] = c.eps;
  j["rope_theta"] = c.rope_base;
  j["tie_word_embeddings"] = c.tie_embeddings;
  j["hidden_act"] = hf_hidden_act(c.activation);
  j["attention_bias"] = c.attn_bias;
  if (c.attn_bias) {  // q/k/v biases without an o_proj bias are Qwen2's layout
    j["architectures"] = {"Qwen2ForCausalLM"};
    j["model_type"] = "qwen2";
  }
  if (c.rope_scaling != RopeScaling::None) {
    json r;
    r["rope_type"] = c.rope_scaling == RopeScaling::Linear       ? "linear"
                     : c.rope_scaling == RopeScaling::DynamicNtk ? "dynamic"
                     : c.rope_scaling == RopeScaling::Llama3     ? "llama3"
                                                                 : "ntk";
    r["factor"] = c.rope_factor;
    r["original_max_position_embeddings"] = rope_config(c).original_context;
    if (c.rope_scaling == RopeScaling::Llama3) {
      r["low_freq_factor"] = c.rope_low_freq;
      r["high_freq_factor"] = c.rope_high_freq;
    }
    j["rope_scaling"] = r;
  } else {
    j["rope_scaling"] = nullptr;
  }
  j["mlp_bias"] = false;
  j["torch_dtype"] = "float32";
  j["sliding_window"] = c.attention == AttentionPattern::Sliding ? json(c.window) : json(nullptr);
  // Choices a LLaMA does not have; a plain LlamaConfig ignores these keys.
  j["tw_norm"] = to_string(c.norm);
  j["tw_norm_placement"] = to_string(c.placement);
  j["tw_positions"] = to_string(c.positions);
  j["tw_activation"] = to_string(c.activation);
  j["tw_attention"] = to_string(c.attention);
  j["tw_full_every"] = c.full_every;
  j["tw_attn_scale"] = scale_mode_name(c.attn_scale);
  j["tw_qk_norm"] = c.qk_norm;
  if (c.parallel_block) j["use_parallel_residual"] = true;  // GPT-NeoX's key; serial configs stay as they were
  if (c.memory_cap_mb != ModelConfig{}.memory_cap_mb) j["tw_memory_cap_mb"] = c.memory_cap_mb;  // real checkpoints
  // Gemma 2's key for the same c·tanh(S/c); null when off, as in its config.json.
  j["attn_logit_softcapping"] = c.attn_softcap > 0 ? json(c.attn_softcap) : json(nullptr);
  j["tw_memory_cap_mb"] = c.memory_cap_mb;
  if (c.moe()) {  // Mixtral's keys; written only for MoE so dense config.json files stay as they were
    j["num_local_experts"] = c.experts;
    j["num_experts_per_tok"] = c.top_k;
    j["router_aux_loss_coef"] = c.aux_loss_coef;
    j["tw_capacity_factor"] = c.capacity_factor;
  }
  family_keys_to_json(j, c);
  return j.dump(2) + "\n";
}

bool config_from_json(const std::string& text, ModelConfig* out, std::string* error) {
  json j;
  if (std::string why; !parse_json(text, &j, &why)) {
    *error = "config.json: " + why.substr(0, 200);
    return false;
  }
  if (!j.is_object()) {
    *error = tr("config.json: expected a JSON object at the top level");
    return false;
  }
  ModelConfig c;
  // The architecture decides the layout: a class (or model_type) the workbench does not run is refused here, so
  // a GPT-2 or Gemma config never runs as a LLaMA. A config naming neither is the workbench's own LLaMA-style one.
  std::string arch;
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty())
    arch = j["architectures"][0].is_string() ? j["architectures"][0].get<std::string>() : "?";
  else if (j.contains("model_type") && j["model_type"].is_string())
    arch = j["model_type"].get<std::string>();
  Family family = Family::Llama;
  if (!arch.empty() && !family_from_architecture(arch, &family)) {
    *error = subst(tr("config.json: architecture '{0}' is not supported (supported: {1})"),
                   {arch, supported_architectures()});
    return false;
  }
  if (!apply_family_keys(j, family, &c, error)) return false;
  // A plain LLaMA config has no tw_activation: its MLP is gated, hidden_act names the gate's function.
  if (j.contains("hidden_act") && !j.contains("tw_activation")) {
    const json& act = j["hidden_act"];
    const std::string name = act.is_string() ? act.get<std::string>() : "";
    if (name == "silu" || name == "swish")
      c.activation = ActivationKind::SwiGLU;
    else if (name == "gelu")
      c.activation = ActivationKind::GeGLU;  // exact GELU; the tanh forms are not offered
    else {
      *error = subst(tr("config.json: hidden_act '{0}' is not supported (silu or gelu, or set tw_activation)"), {name});
      return false;
    }
  }
  // Qwen2 configs name a window but switch it off with use_sliding_window: false.
  const bool window_off =
      j.contains("use_sliding_window") && j["use_sliding_window"].is_boolean() && !j["use_sliding_window"].get<bool>();
  if (j.contains("sliding_window") && !j["sliding_window"].is_null() && !window_off) {
    c.attention = AttentionPattern::Sliding;
    if (!parse_int(j, "sliding_window", &c.window, error)) return false;
  }
  const bool ok =
      parse_int(j, "hidden_size", &c.dim, error) && parse_int(j, "intermediate_size", &c.hidden, error) &&
      parse_int(j, "num_hidden_layers", &c.n_layers, error) && parse_int(j, "num_attention_heads", &c.n_heads, error) &&
      parse_int(j, "vocab_size", &c.vocab, error) && parse_int(j, "max_position_embeddings", &c.max_seq, error) &&
      parse_number(j, "rms_norm_eps", &c.eps, error) && parse_number(j, "rope_theta", &c.rope_base, error) &&
      parse_bool(j, "tie_word_embeddings", &c.tie_embeddings, error) &&
      parse_enum(j, "tw_norm", kNormTypeNames, &c.norm, error) &&
      parse_enum(j, "tw_norm_placement", kNormPlacementNames, &c.placement, error) &&
      parse_enum(j, "tw_positions", kPositionTypeNames, &c.positions, error) &&
      parse_enum(j, "tw_activation", kActivationKindNames, &c.activation, error) &&
      parse_enum(j, "tw_attention", kAttentionPatternNames, &c.attention, error) &&
      parse_int(j, "tw_full_every", &c.full_every, error) && parse_bool(j, "tw_qk_norm", &c.qk_norm, error) &&
      parse_bool(j, "use_parallel_residual", &c.parallel_block, error) &&
      parse_number(j, "tw_memory_cap_mb", &c.memory_cap_mb, error) &&
      parse_int(j, "num_local_experts", &c.experts, error) && parse_int(j, "num_experts_per_tok", &c.top_k, error) &&
      parse_number(j, "router_aux_loss_coef", &c.aux_loss_coef, error) &&
      parse_number(j, "tw_capacity_factor", &c.capacity_factor, error);
  if (!ok) return false;
  if (j.contains("tw_attn_scale")) {
    const json& v = j["tw_attn_scale"];
    const std::string name = v.is_string() ? v.get<std::string>() : "";
    bool found = false;
    for (ScaleMode m : {ScaleMode::InvSqrtDk, ScaleMode::None, ScaleMode::InvDk})
      if (name == scale_mode_name(m)) c.attn_scale = m, found = true;
    if (!found) {
      *error = tr("config.json: 'tw_attn_scale' must be one of 1/sqrt(d_k), none, 1/d_k");
      return false;
    }
  }
  if (j.contains("attn_logit_softcapping") && !j["attn_logit_softcapping"].is_null() &&
      !parse_number(j, "attn_logit_softcapping", &c.attn_softcap, error))
    return false;
  if (!parse_hf_extras(j, &c, error)) return false;
  // Hugging Face defaults num_key_value_heads to num_attention_heads (plain MHA) when the key is absent.
  c.n_kv_heads = c.n_heads;
  if (!parse_int(j, "num_key_value_heads", &c.n_kv_heads, error)) return false;
  if (family == Family::Llama && j.contains("head_dim") && !j["head_dim"].is_null()) {
    int head_dim = 0;
    if (!parse_int(j, "head_dim", &head_dim, error)) return false;
    if (c.n_heads > 0 && head_dim != c.dim / c.n_heads) {
      *error = subst(tr("config.json: head_dim {0} differs from hidden_size / num_attention_heads ({1}); only "
                        "head_dim = hidden_size / num_attention_heads is supported"),
                     {std::to_string(head_dim), std::to_string(c.n_heads > 0 ? c.dim / c.n_heads : 0)});
      return false;
    }
  }
  const std::vector<ConfigProblem> problems = config_problems(c, config_json_key);
  if (!problems.empty()) {
    *error = "config.json: " + problems.front().message;
    return false;
  }
  *out = c;
  return true;
}

bool load_config(const std::string& path, ModelConfig* out, std::string* error) {
  std::string text;
  if (!read_file_bounded(path, kMaxConfigBytes, &text, error)) {
    // A Hugging Face model is a directory; its config is the config.json inside.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) && std::filesystem::is_regular_file(path + "/config.json", ec))
      *error += subst(tr(" (did you mean {0}/config.json?)"), {path});
    return false;
  }
  if (!config_from_json(text, out, error)) {
    // Every message of config_from_json starts "config.json: " in every language (po/zh.po keeps the prefix).
    *error = path + ": " + error->substr(error->find(':') + 2);
    return false;
  }
  return true;
}

bool save_config(const std::string& path, const ModelConfig& config, std::string* error) {
  return write_file_atomic(path, config_to_json(config), error);
}

}  // namespace tw
