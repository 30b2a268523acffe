#pragma once
// The roofline of LLM inference: why prefill is compute-bound and decoding is memory-bound.
//
// A kernel doing F floating-point operations while moving Q bytes to and from memory has arithmetic intensity
// I = F / Q (FLOP per byte). On a device with peak compute P (FLOP/s) and memory bandwidth W (bytes/s) it can run
// at most at min(P, I · W): the roofline. Below the ridge point I* = P / W a kernel is memory-bound.
//   GEMM (M×K)·(K×N): F = 2MKN, Q = b(MK + KN + MN) — prefill multiplies T tokens at once, I grows with T.
//   GEMV (decode, one token per sequence): every weight is read once per step for only B tokens, so
//   I ≈ 2B / (bytes per weight): about 1 FLOP/byte at batch 1 in bf16, far below any GPU's ridge point.
// Time of a phase on the roofline: t = max(F / P, Q / W); decoding makes B tokens per step.
// Quantizing weights to int8 / int4 shrinks Q (the weights dominate it at short contexts), so a memory-bound
// decode step gets up to 2× / 4× faster than bf16; the KV cache (2 · L · KV · D values per token) grows with
// context and batch and eventually dominates Q.

#include <string>
#include <vector>

#include "core/model/config.h"

namespace tw {

struct Device {
  std::string name;
  double peak_flops = 0;  // FLOP/s (dense matrix math at the precision named)
  double bandwidth = 0;   // bytes/s of main (HBM / DRAM) memory
  std::string source;     // where the figures come from
};
// Typical accelerators, from their vendors' datasheets (dense bf16/fp16 tensor math, no sparsity).
const std::vector<Device>& device_presets();

// Model shapes to put on the roofline: real checkpoints (their Hugging Face config.json) and our own presets.
struct InferenceModel {
  std::string name;
  ModelConfig config;  // the sizes the cost formulas read (dim, layers, heads, KV heads, F, V)
  std::string source;
};
const std::vector<InferenceModel>& inference_model_presets();

enum class WeightFormat { F32, BF16, Int8, Int4 };
const char* to_string(WeightFormat f);
double bytes_per_weight(WeightFormat f);  // 4, 2, 1, 0.5

// Storage of each cached key and value number.
enum class KvFormat { BF16, FP8, FP32 };
const char* to_string(KvFormat f);   // "bf16", "fp8", "fp32"
double bytes_per_value(KvFormat f);  // 2, 1, 4

struct InferenceShape {
  ModelConfig model;                          // sizes of the model (parameter counts, KV heads, head dim)
  int batch = 1;                              // B sequences decoded together
  int prompt = 512;                           // T tokens per sequence in the prefill
  int context = 1024;                         // tokens already cached when a decode step runs
  WeightFormat weights = WeightFormat::BF16;  // storage of the weight matrices
  double kv_bytes = 2;                        // bytes per cached K or V value (2 = bf16)
};

struct PhaseCost {
  double flops = 0;         // floating-point operations of the phase
  double bytes = 0;         // bytes moved: weights read once + KV cache read/written
  double weight_bytes = 0;  // the weights' share of bytes
  double kv_bytes = 0;      // the KV cache's share of bytes
  double intensity = 0;     // flops / bytes
  double seconds = 0;       // max(flops / peak, bytes / bandwidth) on the device
  double tokens_per_s = 0;  // tokens produced (prefill: B·T processed; decode: B per step) per second
  bool memory_bound = false;
};

// Weights multiplied per token: every projection and MLP matrix plus the LM head (an untied embedding is only
// a row lookup, norms and learned positions are element-wise).
double matmul_parameters(const ModelConfig& config);
// Intensity of an (M×K)·(K×N) product with b-byte operands: 2MKN / (b(MK + KN + MN)).
double gemm_intensity(double M, double K, double N, double bytes);
double ridge_point(const Device& device);                         // P / W, FLOP per byte
double attainable_flops(const Device& device, double intensity);  // min(P, I·W)

// Whole prefill of B·T tokens (causal attention: each query reads on average (T+1)/2 keys).
PhaseCost prefill_cost(const InferenceShape& shape, const Device& device);
// One decode step: B new tokens, each attending over `context` cached keys plus itself.
PhaseCost decode_cost(const InferenceShape& shape, const Device& device);
// Bytes of the KV cache for B sequences of `tokens` tokens.
double kv_cache_bytes(const InferenceShape& shape, int tokens);

}  // namespace tw
