#include "core/experiments/roofline.h"

#include <algorithm>

#include "core/enum_names.h"

namespace tw {

const std::vector<Device>& device_presets() {
  static const std::vector<Device> devices = {
      {"NVIDIA H100 SXM (bf16)", 989e12, 3.35e12,
       "NVIDIA H100 Tensor Core GPU datasheet: 989 TFLOPS bf16 dense, 3.35 TB/s"},
      {"NVIDIA A100 SXM 80GB (bf16)", 312e12, 2.039e12,
       "NVIDIA A100 Tensor Core GPU datasheet: 312 TFLOPS bf16 dense, 2,039 GB/s"},
      {"NVIDIA RTX 4090 (fp16, fp32 accumulate)", 165.2e12, 1.008e12,
       "NVIDIA Ada Lovelace architecture whitepaper: 165.2 TFLOPS fp16 tensor (fp32 accumulate), 1,008 GB/s"},
  };
  return devices;
}

namespace {

ModelConfig llama_like(int dim, int layers, int heads, int kv_heads, int hidden, int vocab, int max_seq, bool tied) {
  return {.dim = dim,
          .n_layers = layers,
          .n_heads = heads,
          .n_kv_heads = kv_heads,
          .vocab = vocab,
          .hidden = hidden,
          .max_seq = max_seq,
          .tie_embeddings = tied};
}

}  // namespace

const std::vector<InferenceModel>& inference_model_presets() {
  static const std::vector<InferenceModel> models = {
      {"Llama-3-8B", llama_like(4096, 32, 32, 8, 14336, 128256, 8192, false), "meta-llama/Meta-Llama-3-8B config.json"},
      {"Mistral-7B-v0.1", llama_like(4096, 32, 32, 8, 14336, 32000, 32768, false),
       "mistralai/Mistral-7B-v0.1 config.json"},
      {"Llama-2-7B", llama_like(4096, 32, 32, 32, 11008, 32000, 4096, false), "meta-llama/Llama-2-7b-hf config.json"},
      {"Qwen2.5-0.5B", llama_like(896, 24, 14, 2, 4864, 151936, 32768, true), "Qwen/Qwen2.5-0.5B config.json"},
      {"Small (this app)", small_config(), "the app's Small preset (core/model/config.h)"},
      {"Tiny (this app)", tiny_config(), "the app's Tiny preset (core/model/config.h)"},
  };
  return models;
}

namespace {
constexpr const char* kWeightFormatNames[] = {"fp32", "bf16", "int8", "int4"};
static_assert(names_every(kWeightFormatNames, WeightFormat::Int4));
constexpr const char* kKvFormatNames[] = {"bf16", "fp8", "fp32"};
static_assert(names_every(kKvFormatNames, KvFormat::FP32));
}  // namespace

const char* to_string(WeightFormat f) { return enum_name(kWeightFormatNames, f); }

double bytes_per_weight(WeightFormat f) {
  switch (f) {
    case WeightFormat::F32: return 4.0;
    case WeightFormat::BF16: return 2.0;
    case WeightFormat::Int8: return 1.0;
    case WeightFormat::Int4: return 0.5;
  }
  return 4.0;
}

const char* to_string(KvFormat f) { return enum_name(kKvFormatNames, f); }
double bytes_per_value(KvFormat f) { return f == KvFormat::FP8 ? 1.0 : f == KvFormat::FP32 ? 4.0 : 2.0; }

double matmul_parameters(const ModelConfig& c) {
  const double C = c.dim, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim(), F = c.hidden, V = c.vocab;
  const double per_layer = C * H * D + 2.0 * C * KV * D + H * D * C + (c.gated() ? 3.0 : 2.0) * C * F;
  return c.n_layers * per_layer + V * C;  // + the LM head (tied or not, it is a V×C product)
}

double gemm_intensity(double M, double K, double N, double bytes) {
  return 2.0 * M * K * N / (bytes * (M * K + K * N + M * N));
}

double ridge_point(const Device& d) { return d.peak_flops / d.bandwidth; }
double attainable_flops(const Device& d, double intensity) { return std::min(d.peak_flops, intensity * d.bandwidth); }

double kv_cache_bytes(const InferenceShape& s, int tokens) {
  const ModelConfig& c = s.model;
  return 2.0 * c.n_layers * c.n_kv_heads * c.head_dim() * double(tokens) * s.batch * s.kv_bytes;
}

namespace {

PhaseCost finish(PhaseCost p, double tokens, const Device& d) {
  p.bytes = p.weight_bytes + p.kv_bytes;
  p.intensity = p.flops / p.bytes;
  const double compute = p.flops / d.peak_flops, memory = p.bytes / d.bandwidth;
  p.seconds = std::max(compute, memory);
  p.memory_bound = memory >= compute;
  p.tokens_per_s = tokens / p.seconds;
  return p;
}

// Attention FLOPs of one layer for Q queries each reading `keys` keys: q·k and p·v, 2·D each per head.
double attention_flops(const ModelConfig& c, double queries, double keys) {
  return 4.0 * c.n_heads * c.head_dim() * queries * keys;
}

}  // namespace

PhaseCost prefill_cost(const InferenceShape& s, const Device& d) {
  const ModelConfig& c = s.model;
  const double tokens = double(s.batch) * s.prompt;
  PhaseCost p;
  p.flops = 2.0 * matmul_parameters(c) * tokens + c.n_layers * attention_flops(c, tokens, (s.prompt + 1) / 2.0);
  p.weight_bytes = matmul_parameters(c) * bytes_per_weight(s.weights);
  p.kv_bytes = kv_cache_bytes(s, s.prompt);  // written once
  return finish(p, tokens, d);
}

PhaseCost decode_cost(const InferenceShape& s, const Device& d) {
  const ModelConfig& c = s.model;
  PhaseCost p;
  p.flops = 2.0 * matmul_parameters(c) * s.batch + c.n_layers * attention_flops(c, s.batch, s.context + 1.0);
  p.weight_bytes = matmul_parameters(c) * bytes_per_weight(s.weights);
  p.kv_bytes = kv_cache_bytes(s, s.context + 1);  // read every cached K and V, write the new ones
  return finish(p, s.batch, d);
}

}  // namespace tw
