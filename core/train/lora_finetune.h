#pragma once
// LoRA fine-tuning of a whole model on top of the training pass (core/train/model_train.h), as the peft library does
// it for a Hugging Face causal LM.
//
// Every targeted projection W (q, k, v, o, gate, up, down of every layer) gets an adapter (A, B) (core/ops/lora.h)
// and the model runs with the effective weight W_eff = W + s·B A, s = α/r (α/√r with rsLoRA). The training backward
// already gives G = ∂L/∂W_eff, and W_eff is linear in B A, so the chain rule is exact:
//   ∂L/∂B = s · G Aᵀ      (d_out, r)
//   ∂L/∂A = s · Bᵀ G      (r, d_in)
// A LoRA step is: merge the adapters into the effective weights, run the unchanged forward + backward, map G to
// ∂L/∂A and ∂L/∂B, clip and AdamW on A and B only (the base stays frozen). With B = 0 (peft's init, A Kaiming-
// uniform with a = √5) the effective weights are the base weights bit for bit, so step 0 is the base model.
//
// Adapters are saved in peft's layout (huggingface/peft, src/peft/utils/save_and_load.py: get_peft_model_state_dict
// keeps the module path under PeftModel.base_model.model and drops the adapter name "default"):
//   adapter_config.json          {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r", "lora_alpha", "use_rslora",
//                                 "lora_dropout": 0.0, "target_modules", "base_model_name_or_path", ...}
//   adapter_model.safetensors    base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight  (r, d_in)
//                                base_model.model.model.layers.{i}.self_attn.q_proj.lora_B.weight  (d_out, r)
//                                … k_proj, v_proj, o_proj; mlp.gate_proj, mlp.up_proj, mlp.down_proj

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/ops/lora.h"
#include "core/train/optimizer.h"

namespace tw {

// [SECTION] targets
enum class LoraModule { Q, K, V, O, Gate, Up, Down };
inline constexpr int kLoraModules = 7;
const char* peft_module_name(LoraModule m);  // "q_proj", "k_proj", …, "down_proj" (peft's target_modules)
// Bit (1 << int(m)) set = adapt module m.
inline constexpr uint32_t kAllLoraTargets = (1u << kLoraModules) - 1;
inline uint32_t lora_target_bit(LoraModule m) { return 1u << static_cast<int>(m); }

struct LoraSpec {
  int r = 8;                           // rank
  float alpha = 16.0f;                 // lora_alpha
  bool rslora = false;                 // s = α/√r instead of α/r
  uint32_t targets = kAllLoraTargets;  // modules to adapt (gate is skipped in a non-gated MLP)
  uint64_t seed = 1;                   // A's init
};

// "" when the spec can adapt this model; else one line (MoE models, r outside 1 … the smallest target dimension,
// no target present in this architecture, α not positive).
std::string check_lora_spec(const LoraSpec& spec, const ModelConfig& config);

// The projection an adapter sits on, (d_out, d_in) as HF stores it.
const Mat& lora_base_matrix(const ModelWeights& w, int layer, LoraModule m);
Mat& lora_base_matrix(ModelWeights& w, int layer, LoraModule m);

struct LoraSlot {
  int layer = 0;
  LoraModule module = LoraModule::Q;
  LoraAdapter adapter;  // A (r, d_in), B (d_out, r)
};
struct LoraModel {
  LoraSpec spec;
  std::vector<LoraSlot> slots;  // layer-major, modules in enum order
  int64_t trainable() const;    // Σ r·(d_in + d_out)
};

// One adapter per (layer, targeted module), peft init from spec.seed. False + one line when check_lora_spec fails.
bool lora_create(const ModelConfig& config, const LoraSpec& spec, LoraModel* out, std::string* error);

// For every slot: weights' matrix = base's matrix + s·B A (other tensors untouched). `weights` has base's shapes.
void lora_apply(ModelWeights& weights, const ModelWeights& base, const LoraModel& lora);
// The same starting from a copy of base: the merged model (what "merge into the base" saves).
ModelWeights lora_merged(const ModelWeights& base, const LoraModel& lora);

// [SECTION] gradients and the optimizer step
struct LoraGrads {
  std::vector<Mat> A, B;  // per slot, shaped like the adapter
};
// ∂L/∂A = s·Bᵀ G, ∂L/∂B = s·G Aᵀ with G = weight_grads' matrix of each slot (the training backward's ∂L/∂W_eff).
void lora_gradients(LoraGrads& out, const ModelWeights& weight_grads, const LoraModel& lora);
// torch.nn.utils.clip_grad_norm_ over every A and B gradient; returns the norm before clipping.
double lora_clip_grad_norm(LoraGrads& g, double max_norm);

struct LoraOptimizerState {
  LoraGrads m, v;  // AdamW moments
  int64_t t = 0;
};
// AdamW (core/train/optimizer.h's update; A and B are matrices: decayed when weight_decay > 0). SGD settings are
// treated as AdamW: peft fine-tuning is AdamW.
void lora_adamw_step(LoraModel& lora, const LoraGrads& g, LoraOptimizerState& state, const OptimizerConfig& opt,
                     double lr);

// [SECTION] peft files
// "base_model.model.model.layers.3.mlp.up_proj.lora_A.weight" (a = true) or "….lora_B.weight".
std::string peft_tensor_name(int layer, LoraModule m, bool a);
// Writes adapter_config.json and adapter_model.safetensors into dir (created if missing).
bool save_peft_adapter(const std::string& dir, const LoraModel& lora, const std::string& base_model,
                       std::string* error);
// Reads an adapter saved by peft (or by save_peft_adapter) for a model of `config`: every tensor must belong to a
// layer and module of the config with the shapes r × d_in and d_out × r; refused with one line otherwise (*out
// untouched). *base_model gets base_model_name_or_path when not null.
bool load_peft_adapter(const std::string& dir, const ModelConfig& config, LoraModel* out, std::string* base_model,
                       std::string* error);

}  // namespace tw
