// LoRA fine-tuning of a model: adapters on its projections, the chain rule from the training backward, AdamW on the
// adapters, and peft's files.
#include "core/fail.h"
#include "core/train/lora_finetune.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "core/io/atomic_file.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/io/safetensors.h"
#include "core/base/i18n.h"

namespace tw {

namespace {

// Module path under model.layers.{i}, as in Hugging Face LLaMA checkpoints (core/model/weights.cpp).
const char* module_path(LoraModule m) {
  switch (m) {
    case LoraModule::Q: return "self_attn.q_proj";
    case LoraModule::K: return "self_attn.k_proj";
    case LoraModule::V: return "self_attn.v_proj";
    case LoraModule::O: return "self_attn.o_proj";
    case LoraModule::Gate: return "mlp.gate_proj";
    case LoraModule::Up: return "mlp.up_proj";
    case LoraModule::Down: return "mlp.down_proj";
  }
  return "";
}

// Modules of `targets` this architecture has (a non-gated MLP has no gate_proj).
std::vector<LoraModule> present_targets(uint32_t targets, const ModelConfig& c) {
  std::vector<LoraModule> out;
  for (int i = 0; i < kLoraModules; ++i) {
    const auto m = static_cast<LoraModule>(i);
    if ((targets & lora_target_bit(m)) && (m != LoraModule::Gate || c.gated())) out.push_back(m);
  }
  return out;
}

// (d_out, d_in) of module m in a model of config c.
std::pair<int, int> module_shape(const ModelConfig& c, LoraModule m) {
  const int C = c.dim, HD = c.n_heads * c.head_dim(), KVD = c.n_kv_heads * c.head_dim(), F = c.hidden;
  switch (m) {
    case LoraModule::Q: return {HD, C};
    case LoraModule::K:
    case LoraModule::V: return {KVD, C};
    case LoraModule::O: return {C, HD};
    case LoraModule::Gate:
    case LoraModule::Up: return {F, C};
    case LoraModule::Down: return {C, F};
  }
  return {0, 0};
}

}  // namespace

const char* peft_module_name(LoraModule m) {
  const char* p = module_path(m);
  return std::strchr(p, '.') + 1;
}

// [SECTION] targets

std::string check_lora_spec(const LoraSpec& s, const ModelConfig& c) {
  if (c.moe()) return tr("LoRA here adapts dense models only: this model's MLP is a mixture of experts");
  if (std::string why = training_unsupported(c); !why.empty()) return why;
  if (!(s.alpha > 0.0f) || !std::isfinite(s.alpha)) return tr("LoRA alpha must be a positive number");
  const std::vector<LoraModule> mods = present_targets(s.targets, c);
  if (mods.empty()) return tr("choose at least one LoRA target module this model has");
  for (LoraModule m : mods) {
    const auto [d_out, d_in] = module_shape(c, m);
    if (std::string e = check_lora(d_in, d_out, s.r); !e.empty())
      return subst(tr("{0}: {1}"), {peft_module_name(m), e});
  }
  return "";
}

const Mat& lora_base_matrix(const ModelWeights& w, int layer, LoraModule m) {
  const LayerWeights& l = w.layers[static_cast<size_t>(layer)];
  switch (m) {
    case LoraModule::Q: return l.wq;
    case LoraModule::K: return l.wk;
    case LoraModule::V: return l.wv;
    case LoraModule::O: return l.wo;
    case LoraModule::Gate: return l.mlp.gate;
    case LoraModule::Up: return l.mlp.up;
    case LoraModule::Down: return l.mlp.down;
  }
  return l.wq;
}

Mat& lora_base_matrix(ModelWeights& w, int layer, LoraModule m) {
  return const_cast<Mat&>(lora_base_matrix(static_cast<const ModelWeights&>(w), layer, m));
}

int64_t LoraModel::trainable() const {
  int64_t n = 0;
  for (const LoraSlot& s : slots) n += s.adapter.A.size() + s.adapter.B.size();
  return n;
}

bool lora_create(const ModelConfig& c, const LoraSpec& spec, LoraModel* out, std::string* error) {
  if (std::string e = check_lora_spec(spec, c); !e.empty()) return fail(error, e);
  LoraModel m;
  m.spec = spec;
  std::mt19937_64 rng(spec.seed);
  const std::vector<LoraModule> mods = present_targets(spec.targets, c);
  for (int l = 0; l < c.n_layers; ++l)
    for (LoraModule mod : mods) {
      LoraSlot s;
      s.layer = l;
      s.module = mod;
      const auto [d_out, d_in] = module_shape(c, mod);
      lora_init(s.adapter, d_in, d_out, spec.r, spec.alpha, spec.rslora, rng);
      m.slots.push_back(std::move(s));
    }
  *out = std::move(m);
  return true;
}

void lora_apply(ModelWeights& weights, const ModelWeights& base, const LoraModel& lora) {
  for (const LoraSlot& s : lora.slots) {
    Mat& w = lora_base_matrix(weights, s.layer, s.module);
    w = lora_base_matrix(base, s.layer, s.module);
    lora_merge(w, s.adapter);  // W + s·B A  (exactly W while B = 0)
  }
}

ModelWeights lora_merged(const ModelWeights& base, const LoraModel& lora) {
  ModelWeights w = base;
  lora_apply(w, base, lora);
  return w;
}

// [SECTION] gradients and the optimizer step

void lora_gradients(LoraGrads& out, const ModelWeights& weight_grads, const LoraModel& lora) {
  out.A.resize(lora.slots.size());
  out.B.resize(lora.slots.size());
  for (size_t i = 0; i < lora.slots.size(); ++i) {
    const LoraSlot& s = lora.slots[i];
    const Mat& G = lora_base_matrix(weight_grads, s.layer, s.module);  // (d_out, d_in)
    const float sc = s.adapter.scale();
    out.A[i].noalias() = sc * (s.adapter.B.transpose() * G);  // (r, d_in)
    out.B[i].noalias() = sc * (G * s.adapter.A.transpose());  // (d_out, r)
  }
}

double lora_clip_grad_norm(LoraGrads& g, double max_norm) {
  double sum = 0;
  for (const std::vector<Mat>* v : {&g.A, &g.B})
    for (const Mat& m : *v)
      for (Eigen::Index i = 0; i < m.size(); ++i) sum += double(m.data()[i]) * double(m.data()[i]);
  const double norm = std::sqrt(sum);
  if (max_norm <= 0 || !std::isfinite(norm)) return norm;
  const double coef = max_norm / (norm + 1e-6);  // torch's clip_coef, applied in float when < 1
  if (coef < 1.0)
    for (std::vector<Mat>* v : {&g.A, &g.B})
      for (Mat& m : *v) m *= static_cast<float>(coef);
  return norm;
}

void lora_adamw_step(LoraModel& lora, const LoraGrads& g, LoraOptimizerState& st, const OptimizerConfig& opt,
                     double lr) {
  if (st.m.A.size() != lora.slots.size()) {
    st = LoraOptimizerState{};
    for (const LoraSlot& s : lora.slots) {
      st.m.A.push_back(Mat::Zero(s.adapter.A.rows(), s.adapter.A.cols()));
      st.m.B.push_back(Mat::Zero(s.adapter.B.rows(), s.adapter.B.cols()));
    }
    st.v = st.m;
  }
  st.t += 1;
  for (size_t i = 0; i < lora.slots.size(); ++i) {
    LoraAdapter& a = lora.slots[i].adapter;
    adamw_update(a.A.data(), g.A[i].data(), st.m.A[i].data(), st.v.A[i].data(), a.A.size(), opt, lr, st.t, true);
    adamw_update(a.B.data(), g.B[i].data(), st.m.B[i].data(), st.v.B[i].data(), a.B.size(), opt, lr, st.t, true);
  }
}

// [SECTION] peft files

std::string peft_tensor_name(int layer, LoraModule m, bool a) {
  return "base_model.model.model.layers." + std::to_string(layer) + "." + module_path(m) +
         (a ? ".lora_A.weight" : ".lora_B.weight");
}

bool save_peft_adapter(const std::string& dir, const LoraModel& lora, const std::string& base_model,
                       std::string* error) {
  if (lora.slots.empty()) return fail(error, tr("no LoRA adapter to save"));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail(error, subst(tr("cannot create directory {0}: {1}"), {dir, ec.message()}));
  nlohmann::json cfg;
  std::vector<std::string> targets;
  for (const LoraSlot& s : lora.slots)
    if (std::find(targets.begin(), targets.end(), peft_module_name(s.module)) == targets.end())
      targets.push_back(peft_module_name(s.module));
  cfg["peft_type"] = "LORA";
  cfg["task_type"] = "CAUSAL_LM";
  cfg["r"] = lora.spec.r;
  cfg["lora_alpha"] = lora.spec.alpha;
  cfg["use_rslora"] = lora.spec.rslora;
  cfg["lora_dropout"] = 0.0;
  cfg["bias"] = "none";
  cfg["fan_in_fan_out"] = false;
  cfg["init_lora_weights"] = true;
  cfg["inference_mode"] = true;
  cfg["target_modules"] = targets;
  cfg["base_model_name_or_path"] = base_model;
  std::vector<TensorView> views;
  for (const LoraSlot& s : lora.slots) {
    const LoraAdapter& a = s.adapter;
    views.push_back({peft_tensor_name(s.layer, s.module, true),
                     {a.A.rows(), a.A.cols()},
                     a.A.data(),
                     static_cast<size_t>(a.A.size())});
    views.push_back({peft_tensor_name(s.layer, s.module, false),
                     {a.B.rows(), a.B.cols()},
                     a.B.data(),
                     static_cast<size_t>(a.B.size())});
  }
  const std::filesystem::path d(dir);
  return write_file_atomic((d / "adapter_config.json").string(), cfg.dump(2) + "\n", error) &&
         write_safetensors((d / "adapter_model.safetensors").string(), views, {{"format", "pt"}}, error);
}

bool load_peft_adapter(const std::string& dir, const ModelConfig& c, LoraModel* out, std::string* base_model,
                       std::string* error) {
  const std::filesystem::path d(dir);
  std::string text;
  if (!read_file_bounded((d / "adapter_config.json").string(), size_t{1} << 20, &text, error)) return false;
  nlohmann::json cfg;
  if (!parse_json_object(text, &cfg, error)) return fail(error, "adapter_config.json: " + *error);
  auto number = [&](const char* key, double* v) {
    const auto it = cfg.find(key);
    if (it == cfg.end() || !it->is_number()) return false;
    *v = it->get<double>();
    return true;
  };
  if (cfg.value("peft_type", std::string()) != "LORA")
    return fail(error, tr("adapter_config.json: peft_type is not LORA"));
  double r = 0, alpha = 0;
  if (!number("r", &r) || r < 1 || r > 65536 || r != std::floor(r))
    return fail(error, tr("adapter_config.json: $r$ must be a positive integer"));
  if (!number("lora_alpha", &alpha) || !(alpha > 0))
    return fail(error, tr("adapter_config.json: lora_alpha must be a positive number"));
  for (const char* key : {"rank_pattern", "alpha_pattern"})
    if (const auto it = cfg.find(key); it != cfg.end() && it->is_object() && !it->empty())
      return fail(error, subst(tr("adapter_config.json: per-module {0} is not supported"), {key}));
  LoraSpec spec;
  spec.r = static_cast<int>(r);
  spec.alpha = static_cast<float>(alpha);
  spec.rslora = cfg.value("use_rslora", false);
  spec.targets = 0;
  SafeTensors st;
  if (!read_safetensors((d / "adapter_model.safetensors").string(), &st, error)) return false;
  for (const NamedTensor& t : st.tensors) {
    bool known = false;
    for (int l = 0; l < c.n_layers && !known; ++l)
      for (int i = 0; i < kLoraModules && !known; ++i)
        for (bool a : {true, false})
          if (t.name == peft_tensor_name(l, static_cast<LoraModule>(i), a)) {
            known = true;
            spec.targets |= lora_target_bit(static_cast<LoraModule>(i));
          }
    if (!known) return fail(error, subst(tr("adapter tensor {0} does not belong to this model"), {t.name}));
  }
  LoraModel m;
  if (!lora_create(c, spec, &m, error)) return false;
  for (LoraSlot& s : m.slots) {
    const auto [d_out, d_in] = module_shape(c, s.module);
    for (bool a : {true, false}) {
      const std::string name = peft_tensor_name(s.layer, s.module, a);
      const NamedTensor* t = st.find(name);
      if (!t) return fail(error, subst(tr("adapter lacks tensor {0}"), {name}));
      const std::vector<int64_t> want = a ? std::vector<int64_t>{spec.r, d_in} : std::vector<int64_t>{d_out, spec.r};
      if (t->shape != want)
        return fail(error, subst(tr("adapter tensor {0} has shape {1} × {2}, expected {3} × {4}"),
                                 {name, t->shape.size() == 2 ? std::to_string(t->shape[0]) : "?",
                                  t->shape.size() == 2 ? std::to_string(t->shape[1]) : "?", std::to_string(want[0]),
                                  std::to_string(want[1])}));
      Mat& dst = a ? s.adapter.A : s.adapter.B;
      std::copy(t->data.begin(), t->data.end(), dst.data());
    }
  }
  if (base_model) *base_model = cfg.value("base_model_name_or_path", std::string());
  *out = std::move(m);
  return true;
}

}  // namespace tw
