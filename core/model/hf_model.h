#pragma once
// A Hugging Face model folder: config.json + model.safetensors (or model.safetensors.index.json and its shards)
// + tokenizer.json, as `save_pretrained` writes it for LlamaForCausalLM, MistralForCausalLM and
// Qwen2ForCausalLM. Loading checks everything a user's folder can get wrong (unknown architecture, quantized
// dtypes, missing tensors, shape mismatches, a shard that is not there) and reports one line; the caller's
// previous model is only replaced on success.
//
// Tensors are streamed shard by shard and tensor by tensor into the float32 weights (F16/BF16 converted on the
// way), so peak memory is the float32 model plus a few MB of buffer.

#include <cstdint>
#include <functional>
#include <string>

#include "core/io/safetensors.h"
#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/text/tokenizer.h"

namespace tw {

struct HfLoadOptions {
  // Longest sequence the workbench runs: a traced pass keeps (H, T, T) maps per layer, so the checkpoint's
  // max_position_embeddings (often 8192+) is capped here. RoPE scaling still measures against the original.
  int max_seq = 512;
  double memory_cap_mb = 16384;  // refuse models whose weights + traced activations exceed this
  // Called after each tensor with the fraction of bytes read; return false to cancel (the load then fails with
  // "loading cancelled" and nothing is replaced).
  std::function<bool(double fraction)> progress;
};

struct HfModel {
  std::string dir;
  std::string architecture;  // "LlamaForCausalLM", "MistralForCausalLM" or "Qwen2ForCausalLM"
  ModelConfig config;
  ModelWeights weights;
  StorageType stored_dtype = StorageType::F32;  // dtype of the checkpoint's tensors (the first one's)
  int64_t stored_bytes = 0;                     // tensor bytes read from disk
  int shards = 0;                               // safetensors files read
  bool has_tokenizer = false;                   // tokenizer.json was found and understood
  std::string tokenizer_warning;                // why not, when a tokenizer.json was present but refused
  Tokenizer tokenizer;                       // BOS per the tokenizer's template / tokenizer_config.json
};

// config.json of a Hugging Face checkpoint → ModelConfig (max_seq capped, see HfLoadOptions). *architecture
// gets the class name. One-line message on failure.
bool hf_config_from_json(const std::string& text, const HfLoadOptions& options, ModelConfig* out,
                         std::string* architecture, std::string* error);

// Loads config.json, the weights and (when present) tokenizer.json from `dir`.
bool load_hf_model(const std::string& dir, const HfLoadOptions& options, HfModel* out, std::string* error);

struct HfSaveOptions {
  StorageType dtype = StorageType::F32;  // F32, F16 or BF16 tensors
  int64_t shard_bytes = 0;  // > 0: split into model-0000i-of-0000n.safetensors of at most this size (one tensor
                            // larger than the limit gets a shard of its own) plus model.safetensors.index.json
};
// Writes config.json and the weights in Hugging Face layout. Returns the file names written in *files.
bool save_hf_checkpoint(const std::string& dir, const ModelWeights& weights, const ModelConfig& config,
                        const HfSaveOptions& options, std::vector<std::string>* files, std::string* error);

}  // namespace tw
