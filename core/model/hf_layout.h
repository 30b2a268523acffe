#pragma once
// Where each weight of a model lives in its Hugging Face checkpoint. The model's own tensors (core/model/weights.h)
// are LLaMA-shaped, one matrix per projection; GPT-2 and Phi-3 store some of them differently on disk:
//   GPT-2   Conv1D weights stored (in, out), transposed; q, k and v fused column-wise in attn.c_attn (and its
//           bias); the names are wte, wpe, h.{i}.ln_1, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj, ln_f, with or
//           without the "transformer." prefix; wpe holds n_positions rows, of which the model uses max_seq;
//   Phi-3   q, k and v fused row-wise in self_attn.qkv_proj; gate and up fused row-wise in mlp.gate_up_proj
//           (gate first, as Phi3MLP's chunk(2)).
// LLaMA, Qwen3 and Gemma 3 checkpoints name the model's tensors exactly (hf_source returns them unchanged).

#include <cstdint>
#include <string>
#include <vector>

#include "core/io/safetensors.h"
#include "core/model/config.h"

namespace tw {

struct HfSource {
  std::string name;            // tensor name in the checkpoint
  std::vector<int64_t> shape;  // its shape there
  int64_t offset = 0;          // first row (1-D: element; transposed: column) of the part the model's tensor takes
  bool transposed = false;     // GPT-2 Conv1D: the model's (out, in) tensor is a column block of the (in, out) one
};

// The checkpoint tensor holding the model tensor `name` of shape `shape` (names as tensor_specs gives them).
// `prefix` is GPT-2's "transformer." when the checkpoint uses it, else "".
HfSource hf_source(const ModelConfig& config, const std::string& name, const std::vector<int64_t>& shape,
                   const std::string& prefix);

// Copies the model tensor's part out of the checkpoint tensor's values.
//   dst: product(shape) floats, the model tensor (out, in) or (n)
//   src: product(source.shape) floats, the checkpoint tensor
void take_part(float* dst, const std::vector<int64_t>& shape, const float* src, const HfSource& source);

// The inverse of take_part: writes the model tensor into its part of the checkpoint tensor's values.
void put_part(float* dst, const float* src, const std::vector<int64_t>& shape, const HfSource& source);

// The model's tensors (views from tensor_views) as the family's checkpoint stores them, in forward order: the same
// views where the names match, and for GPT-2 and Phi-3 the fused and transposed tensors built into *storage (valid
// while it and the weights live). GPT-2 is written with GPT2LMHeadModel's "transformer." names.
std::vector<TensorView> hf_tensor_views(const std::vector<TensorView>& model_views, const ModelConfig& config,
                                        std::vector<std::vector<float>>* storage);

// Checkpoint tensors a family carries that the model does not use: GPT-2's attention-mask buffers (attn.bias,
// attn.masked_bias) and rotary inv_freq buffers.
bool hf_ignored_tensor(const ModelConfig& config, const std::string& name);

}  // namespace tw
