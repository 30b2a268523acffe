#include "core/model/config.h"
#include "core/io/json_parse.h"
#include "core/machine_memory.h"
#include "core/text/i18n.h"  // N_: names translated where shown

#include "core/enum_names.h"
#include "core/io/atomic_file.h"
#include "core/io/read_file.h"

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
  r.head_dim = c.head_dim();
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
  const double D = c.n_heads > 0 ? C / H : 0;
  const double HD = H * D, KVD = KV * D;
  // The parameter_table formulas again, in double: int64 products of hostile sizes could overflow.
  const double norm = c.norm == NormType::LayerNorm ? 2 * C : C;
  const double E = c.moe() ? c.experts : 1;  // MoE: E expert MLPs and a router (E, C) per block
  const double per_block = 2 * norm + C * (HD + 2 * KVD) + HD * C + E * (c.gated() ? 3 : 2) * C * F +
                           (c.moe() ? E * C : 0) + (c.qk_norm ? 2 * D : 0) + (c.attn_bias ? HD + 2 * KVD : 0);
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

  if (dims_ok && heads_ok && c.dim % c.n_heads != 0)
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
  if (c.positions == PositionType::RoPE && dims_ok && heads_ok && c.dim % c.n_heads == 0 && c.head_dim() % 2 != 0)
    add("dim", subst(tr("RoPE rotates pairs of dimensions, so head_dim must be even (got {0} = {1} {2} / {3} {4})"),
                     {std::to_string(c.head_dim()), n("dim"), std::to_string(c.dim), n("n_heads"),
                      std::to_string(c.n_heads)}));
  if (c.positions == PositionType::RoPE && !(c.rope_base > 1.0f && std::isfinite(c.rope_base)))
    add("rope_base", subst(tr("{0} must be a finite number greater than 1 (got {1})"),
                           {n("rope_base"), std::to_string(c.rope_base)}));
  if (c.positions == PositionType::RoPE && c.rope_scaling != RopeScaling::None && dims_ok && heads_ok &&
      c.dim % c.n_heads == 0 && c.head_dim() % 2 == 0) {
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
  if (j.contains("head_dim") && !j["head_dim"].is_null()) {
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
    // Every message of config_from_json starts "config.json: " in every language (po/fragments keep the prefix).
    *error = path + ": " + error->substr(error->find(':') + 2);
    return false;
  }
  return true;
}

bool save_config(const std::string& path, const ModelConfig& config, std::string* error) {
  return write_file_atomic(path, config_to_json(config), error);
}

}  // namespace tw
