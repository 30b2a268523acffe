#include "core/model/weights.h"
#include "core/base/i18n.h"
#include "core/model/hf_layout.h"
#include "core/model/weight_tensors.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <type_traits>

#include <sys/mman.h>

namespace tw {

namespace {

// Asks the kernel for 2 MiB pages under a large tensor about to be filled: a 270M model in 4 KiB pages took a
// quarter of a million page faults, a third of its load time. Only a hint (no effect where huge pages are off);
// the values are whatever the caller writes next.
void prefer_huge_pages(float* data, size_t count) {
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data + count)) & ~(kHuge - 1);
#ifdef MADV_HUGEPAGE
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// [SECTION] deterministic Gaussian
// std::mt19937_64 is specified bit-exactly by the standard; std::normal_distribution is not, so the Gaussian
// is formed here with Box–Muller from 53-bit uniforms.
class Gaussian {
 public:
  explicit Gaussian(uint64_t seed) : rng_(seed) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]: log never sees 0
    const double u2 = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * M_PI * u2);
    has_spare_ = true;
    return r * std::cos(2.0 * M_PI * u2);
  }
  void fill(float* data, int64_t n, double std) {
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(std * next());
  }

 private:
  std::mt19937_64 rng_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

Mat gaussian(Gaussian& g, int rows, int cols, double std) {
  Mat m(rows, cols);
  g.fill(m.data(), m.size(), std);
  return m;
}

NormWeights unit_norm(const ModelConfig& c) {
  NormWeights n;
  n.weight = c.norm_plus_one ? Vec::Zero(c.dim) : Vec::Ones(c.dim);  // Gemma's (1 + w) is 1 at w = 0
  if (c.norm == NormType::LayerNorm) n.bias = Vec::Zero(c.dim);
  return n;
}

// Why a checkpoint's tensor `name` cannot fill the config's tensor of shape `want` ("" when it can): it is missing
// (have == nullptr) or has another shape. One wording for the header check and the full load.
std::string tensor_problem(const std::string& name, const std::vector<int64_t>* have,
                           const std::vector<int64_t>& want) {
  if (!have)
    return subst(tr("checkpoint has no tensor '{0}' (shape {1}) that this config needs"), {name, shape_text(want)});
  if (*have != want)
    return subst(tr("tensor '{0}' has shape {1} but this config needs {2}"),
                 {name, shape_text(*have), shape_text(want)});
  return "";
}

// GPT-2 and Phi-3 store some tensors fused (and GPT-2's transposed) on disk. Their checkpoints are written and read
// in that Hugging Face layout, so a model the workbench trains opens in transformers as its family's class; the
// other families' layouts are the model's own.
bool stored_differently(const ModelConfig& c) { return c.family == Family::GPT2 || c.family == Family::Phi3; }

// The file's tensors under the model's names: each model tensor taken out of its part of a fused or transposed one.
// Refuses a missing tensor, a wrong shape, or a tensor the family does not use, naming it.
bool model_named(const SafeTensors& file, const ModelConfig& c, SafeTensors* out, std::string* error) {
  const std::string prefix = c.family == Family::GPT2 && file.find("transformer.wte.weight") ? "transformer." : "";
  std::set<std::string> used;
  out->tensors.clear();
  for (const TensorSpec& spec : tensor_specs(c)) {
    const HfSource s = hf_source(c, spec.name, spec.shape, prefix);
    const NamedTensor* t = file.find(s.name);
    if (std::string problem = tensor_problem(s.name, t ? &t->shape : nullptr, s.shape); !problem.empty()) {
      *error = std::move(problem);
      return false;
    }
    used.insert(s.name);
    int64_t count = 1;
    for (const int64_t d : spec.shape) count *= d;
    NamedTensor m{spec.name, spec.shape, std::vector<float>(static_cast<size_t>(count))};
    take_part(m.data.data(), spec.shape, t->data.data(), s);
    out->tensors.push_back(std::move(m));
  }
  for (const NamedTensor& t : file.tensors)
    if (!used.count(t.name) && !hf_ignored_tensor(c, t.name)) {
      *error =
          subst(tr("checkpoint has tensor '{0}' that this config does not use (written for another architecture?)"),
                {t.name});
      return false;
    }
  return true;
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + ")";
}

// [SECTION] init

ModelWeights init_weights(const ModelConfig& c, uint64_t seed) {
  Gaussian g(seed);
  const int C = c.dim, HD = c.n_heads * c.head_dim(), KVD = c.n_kv_heads * c.head_dim(), F = c.hidden;
  const double embed_std = c.tie_embeddings ? 1.0 / std::sqrt(double(C)) : 1.0;
  ModelWeights w;
  w.embed = gaussian(g, c.vocab, C, embed_std);
  if (c.positions == PositionType::Learned) w.pos_embed = gaussian(g, c.max_seq, C, embed_std);
  w.layers.resize(static_cast<size_t>(c.n_layers));
  for (LayerWeights& l : w.layers) {
    l.attn_norm = unit_norm(c);
    l.wq = gaussian(g, HD, C, 1.0 / std::sqrt(double(C)));
    l.wk = gaussian(g, KVD, C, 1.0 / std::sqrt(double(C)));
    l.wv = gaussian(g, KVD, C, 1.0 / std::sqrt(double(C)));
    l.wo = gaussian(g, C, HD, 1.0 / std::sqrt(double(HD)));
    if (c.qk_norm) l.q_norm = l.k_norm = c.norm_plus_one ? Vec::Zero(c.head_dim()) : Vec::Ones(c.head_dim());
    if (c.attn_bias) {  // not zero, so a checkpoint test sees a wrong bias; Qwen2's trained biases are O(1)
      l.bq = gaussian(g, HD, 1, 0.5);
      l.bk = gaussian(g, KVD, 1, 0.5);
      l.bv = gaussian(g, KVD, 1, 0.5);
    }
    l.mlp_norm = unit_norm(c);
    if (c.sandwich_norm) l.post_attn_norm = l.post_mlp_norm = unit_norm(c);
    if (c.linear_bias) {  // small but not zero, so a test sees a bias that is dropped
      l.bo = gaussian(g, C, 1, 0.1);
      l.b_up = gaussian(g, F, 1, 0.1);
      l.b_down = gaussian(g, C, 1, 0.1);
    }
    if (c.moe()) {  // the router and every expert drawn like the dense MLP's matrices
      l.router = gaussian(g, c.experts, C, 1.0 / std::sqrt(double(C)));
      l.experts.resize(static_cast<size_t>(c.experts));
      for (MlpWeights& x : l.experts) {
        if (c.gated()) x.gate = gaussian(g, F, C, 1.0 / std::sqrt(double(C)));
        x.up = gaussian(g, F, C, 1.0 / std::sqrt(double(C)));
        x.down = gaussian(g, C, F, 1.0 / std::sqrt(double(F)));
      }
      continue;
    }
    if (c.gated()) l.mlp.gate = gaussian(g, F, C, 1.0 / std::sqrt(double(C)));
    l.mlp.up = gaussian(g, F, C, 1.0 / std::sqrt(double(C)));
    l.mlp.down = gaussian(g, C, F, 1.0 / std::sqrt(double(F)));
  }
  if (c.has_final_norm()) w.final_norm = unit_norm(c);
  if (!c.tie_embeddings) w.lm_head = gaussian(g, c.vocab, C, 1.0 / std::sqrt(double(C)));
  return w;
}

// [SECTION] parameter counts

std::vector<ParamGroup> parameter_table(const ModelConfig& c) {
  const int64_t C = c.dim, V = c.vocab, F = c.hidden, H = c.n_heads, KV = c.n_kv_heads, D = c.head_dim();
  const int L = c.n_layers;
  const bool ln = c.norm == NormType::LayerNorm;
  const std::string norm_formula = ln ? "$2 C$ ($\\gamma$, $\\beta$)" : "$C$ ($\\gamma$)";
  const int64_t norm_count = ln ? 2 * C : C;
  auto n = [](int64_t v) { return std::to_string(v); };
  std::vector<ParamGroup> rows;
  rows.push_back({N_("Token embedding"), "$V \\cdot C = " + n(V) + " \\cdot " + n(C) + "$", V * C, 1});
  if (c.positions == PositionType::Learned)
    rows.push_back({N_("Position embedding"), "$T_{max} \\cdot C = " + n(c.max_seq) + " \\cdot " + n(C) + "$",
                    int64_t(c.max_seq) * C, 1});
  rows.push_back({N_("Attention norm"), norm_formula, norm_count, L});
  rows.push_back({"$W_q$ (q_proj)", "$C \\cdot H D = " + n(C) + " \\cdot " + n(H * D) + "$", C * H * D, L});
  rows.push_back({"$W_k$ (k_proj)", "$C \\cdot H_{kv} D = " + n(C) + " \\cdot " + n(KV * D) + "$", C * KV * D, L});
  rows.push_back({"$W_v$ (v_proj)", "$C \\cdot H_{kv} D = " + n(C) + " \\cdot " + n(KV * D) + "$", C * KV * D, L});
  rows.push_back({"$W_o$ (o_proj)", "$H D \\cdot C = " + n(H * D) + " \\cdot " + n(C) + "$", H * D * C, L});
  if (c.linear_bias)
    rows.push_back(
        {N_("biases (o_proj, up_proj, down_proj)"), "$2 C + F = 2 \\cdot " + n(C) + " + " + n(F) + "$", 2 * C + F, L});
  if (c.qk_norm) rows.push_back({"QK-norm $\\gamma$ (q_norm, k_norm)", "$2 D = 2 \\cdot " + n(D) + "$", 2 * D, L});
  if (c.attn_bias)
    rows.push_back({N_("biases (q_proj, k_proj, v_proj)"),
                    "$(H + 2 H_{kv}) D = " + n(H + 2 * KV) + " \\cdot " + n(D) + "$", (H + 2 * KV) * D, L});
  if (c.sandwich_norm) rows.push_back({N_("Post-attention norm"), norm_formula, norm_count, L});
  rows.push_back({N_("MLP norm"), norm_formula, norm_count, L});
  if (c.sandwich_norm) rows.push_back({N_("Post-MLP norm"), norm_formula, norm_count, L});
  if (c.moe()) {
    const int64_t E = c.experts;
    rows.push_back({"Router (block_sparse_moe.gate)", "$E \\cdot C = " + n(E) + " \\cdot " + n(C) + "$", E * C, L});
    if (c.gated())
      rows.push_back({"Experts' $W_{gate}$ (w1)",
                      "$E \\cdot C \\cdot F = " + n(E) + " \\cdot " + n(C) + " \\cdot " + n(F) + "$", E * C * F, L});
    rows.push_back({c.gated() ? "Experts' $W_{up}$ (w3)" : "Experts' $W_{up}$ (w1)",
                    "$E \\cdot C \\cdot F = " + n(E) + " \\cdot " + n(C) + " \\cdot " + n(F) + "$", E * C * F, L});
    rows.push_back({"Experts' $W_{down}$ (w2)",
                    "$E \\cdot F \\cdot C = " + n(E) + " \\cdot " + n(F) + " \\cdot " + n(C) + "$", E * F * C, L});
  } else {
    if (c.gated())
      rows.push_back({"$W_{gate}$ (gate_proj)", "$C \\cdot F = " + n(C) + " \\cdot " + n(F) + "$", C * F, L});
    rows.push_back({"$W_{up}$ (up_proj)", "$C \\cdot F = " + n(C) + " \\cdot " + n(F) + "$", C * F, L});
    rows.push_back({"$W_{down}$ (down_proj)", "$F \\cdot C = " + n(F) + " \\cdot " + n(C) + "$", F * C, L});
  }
  if (c.has_final_norm()) rows.push_back({N_("Final norm"), norm_formula, norm_count, 1});
  if (c.tie_embeddings)
    rows.push_back({N_("LM head"), N_("tied: reuses the token embedding"), 0, 1});
  else
    rows.push_back({N_("LM head"), "$V \\cdot C = " + n(V) + " \\cdot " + n(C) + "$", V * C, 1});
  return rows;
}

int64_t parameter_count(const ModelConfig& c) {
  int64_t total = 0;
  for (const ParamGroup& g : parameter_table(c)) total += g.total();
  return total;
}

int64_t parameter_count(const ModelWeights& w) {
  int64_t total =
      w.embed.size() + w.pos_embed.size() + w.lm_head.size() + w.final_norm.weight.size() + w.final_norm.bias.size();
  for (const LayerWeights& l : w.layers) {
    total += l.attn_norm.weight.size() + l.attn_norm.bias.size() + l.wq.size() + l.wk.size() + l.wv.size() +
             l.wo.size() + l.q_norm.size() + l.k_norm.size() + l.bq.size() + l.bk.size() + l.bv.size() +
             l.mlp_norm.weight.size() + l.mlp_norm.bias.size() + l.mlp.gate.size() + l.mlp.up.size() +
             l.mlp.down.size() + l.router.size() + l.bo.size() + l.b_up.size() + l.b_down.size() +
             l.post_attn_norm.weight.size() + l.post_attn_norm.bias.size() + l.post_mlp_norm.weight.size() +
             l.post_mlp_norm.bias.size();
    for (const MlpWeights& x : l.experts) total += x.gate.size() + x.up.size() + x.down.size();
  }
  return total;
}

int64_t active_parameter_count(const ModelConfig& c) {
  if (!c.moe()) return parameter_count(c);
  const int64_t expert = (c.gated() ? 3 : 2) * int64_t(c.dim) * c.hidden;  // one expert's matrices
  return parameter_count(c) - int64_t(c.experts - c.top_k) * expert * c.n_layers;
}

int checkpoint_experts(const std::vector<std::string>& names) {
  static const std::string kKey = ".block_sparse_moe.experts.";
  int experts = 0;
  for (const std::string& name : names) {
    const size_t at = name.find(kKey);
    if (at == std::string::npos) continue;
    const int e = std::atoi(name.c_str() + at + kKey.size());
    experts = std::max(experts, e + 1);
  }
  return experts;
}

// [SECTION] parameter visitor

void visit_parameters(ModelWeights& w, const ModelConfig& c, const ParamVisitor& visit) {
  for_each_tensor(w, c, [&](const std::string& name, auto& m, const std::vector<int64_t>&) {
    const bool embedding = name == "model.embed_tokens.weight" || name == "model.embed_positions.weight";
    constexpr bool vector = std::is_same_v<std::decay_t<decltype(m)>, Vec>;  // γ and β are the only vectors
    const ParamKind kind = embedding ? ParamKind::Embedding : vector ? ParamKind::Norm : ParamKind::Matrix;
    visit(name, m.data(), static_cast<int64_t>(m.size()), kind);
  });
}

ModelWeights zero_weights(const ModelConfig& c) {
  ModelWeights w;
  w.layers.resize(static_cast<size_t>(std::max(c.n_layers, 0)));
  for_each_tensor(w, c, [&](const std::string&, auto& m, const std::vector<int64_t>& shape) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Vec>)
      m = Vec::Zero(shape[0]);
    else
      m = Mat::Zero(shape[0], shape[1]);
  });
  return w;
}

// [SECTION] checkpoints

std::vector<TensorSpec> tensor_specs(const ModelConfig& c) {
  std::vector<TensorSpec> specs;
  ModelWeights shapes_only;  // only its layer count matters to the visitor
  shapes_only.layers.resize(static_cast<size_t>(std::max(c.n_layers, 0)));
  for_each_tensor(shapes_only, c, [&](const std::string& name, auto&, const std::vector<int64_t>& shape) {
    specs.push_back({name, shape});
  });
  return specs;
}

SafeTensors to_safetensors(const ModelWeights& w, const ModelConfig& c) {
  SafeTensors file;
  file.metadata["format"] = "pt";  // what transformers' safetensors loader expects
  file.metadata["producer"] = "transformer-workbench";
  for_each_tensor(w, c, [&](const std::string& name, const auto& m, const std::vector<int64_t>& shape) {
    // Row-major storage is exactly safetensors' C order, so the values copy straight across.
    file.tensors.push_back({name, shape, std::vector<float>(m.data(), m.data() + m.size())});
  });
  return file;
}

bool from_safetensors(const SafeTensors& file, const ModelConfig& c, ModelWeights* out, std::string* error) {
  // An expert count that differs from the config's is named as such, before any "missing tensor" message.
  std::vector<std::string> names;
  for (const NamedTensor& t : file.tensors) names.push_back(t.name);
  const int have = checkpoint_experts(names), want = c.moe() ? c.experts : 0;
  if (have != want) {
    auto say = [](int e) {
      return e == 0 ? std::string(tr("a dense MLP")) : subst(trn("{0} expert", "{0} experts", e), {std::to_string(e)});
    };
    *error = subst(tr("checkpoint has {0} per layer but this config has {1} (experts = {2})"),
                   {say(have), say(want), std::to_string(c.experts)});
    return false;
  }
  ModelWeights w;
  w.layers.resize(static_cast<size_t>(c.n_layers));
  std::vector<std::string> expected;
  bool ok = true;
  for_each_tensor(w, c, [&](const std::string& name, auto& m, const std::vector<int64_t>& shape) {
    expected.push_back(name);
    if (!ok) return;
    const NamedTensor* t = file.find(name);
    if (std::string problem = tensor_problem(name, t ? &t->shape : nullptr, shape); !problem.empty()) {
      *error = std::move(problem);
      ok = false;
      return;
    }
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Vec>)
      m.resize(shape[0]);
    else
      m.resize(shape[0], shape[1]);
    // A NaN or infinite weight would poison every activation downstream; name it at load instead.
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < t->data.size(); ++i)
      if (!std::isfinite(t->data[i]) && bad++ == 0) first = i;
    if (bad) {
      const float v = t->data[first];
      *error = subst(trn("tensor '{0}' has {1} non-finite value (first: {2} at flat index {3}); the checkpoint is "
                         "damaged or comes from a diverged training run",
                         "tensor '{0}' has {1} non-finite values (first: {2} at flat index {3}); the checkpoint is "
                         "damaged or comes from a diverged training run",
                         bad),
                     {name, std::to_string(bad),
                      std::isnan(v) ? "NaN"
                      : v > 0       ? "inf"
                                    : "-inf",
                      std::to_string(first)});
      ok = false;
      return;
    }
    std::memcpy(m.data(), t->data.data(), t->data.size() * sizeof(float));
  });
  if (!ok) return false;
  for (const NamedTensor& t : file.tensors) {
    bool known = false;
    for (const std::string& name : expected) known = known || name == t.name;
    if (!known) {
      *error =
          subst(tr("checkpoint has tensor '{0}' that this config does not use (written for another architecture?)"),
                {t.name});
      return false;
    }
  }
  *out = std::move(w);
  return true;
}

bool weights_from_reader(const ModelConfig& c, const TensorReader& read, ModelWeights* out, std::string* error) {
  ModelWeights w;
  w.layers.resize(static_cast<size_t>(std::max(c.n_layers, 0)));
  bool ok = true;
  for_each_tensor(w, c, [&](const std::string& name, auto& m, const std::vector<int64_t>& shape) {
    if (!ok) return;
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, Vec>)
      m.resize(shape[0]);
    else
      m.resize(shape[0], shape[1]);
    prefer_huge_pages(m.data(), static_cast<size_t>(m.size()));
    ok = read(name, shape, m.data(), error);
  });
  if (!ok) return false;
  *out = std::move(w);
  return true;
}

void round_weights(ModelWeights& w, const ModelConfig& c, StorageType dtype) {
  visit_parameters(w, c, [&](const std::string&, float* data, int64_t size, ParamKind) {
    for (int64_t i = 0; i < size; ++i) data[i] = round_to_storage(data[i], dtype);
  });
}

bool save_weights(const std::string& path, const ModelWeights& w, const ModelConfig& c, std::string* error) {
  // Streamed from the matrices themselves: building a SafeTensors and then a byte buffer held the weights
  // twice more, tripling the memory of a save.
  std::vector<std::vector<float>> fused;  // GPT-2's and Phi-3's fused tensors, assembled for the write
  return write_safetensors(path, hf_tensor_views(tensor_views(w, c), c, &fused),
                           {{"format", "pt"}, {"producer", "transformer-workbench"}}, error);
}

std::vector<TensorView> tensor_views(const ModelWeights& w, const ModelConfig& c) {
  std::vector<TensorView> views;
  for_each_tensor(w, c, [&](const std::string& name, const auto& m, const std::vector<int64_t>& shape) {
    views.push_back({name, shape, m.data(), static_cast<size_t>(m.size())});
  });
  return views;
}

bool load_weights(const std::string& path, const ModelConfig& c, ModelWeights* out, std::string* error) {
  // The header's names and shapes against the config first: a file of the wrong model is refused in milliseconds,
  // before gigabytes are read and converted.
  if (!stored_differently(c)) {
    SafeTensorsFile head;
    if (head.open(path, error)) {
      std::vector<std::string> names;
      for (const TensorEntry& e : head.header().entries) names.push_back(e.name);
      const int have = checkpoint_experts(names), want = c.moe() ? c.experts : 0;
      std::string problem;
      if (have == want)
        for (const TensorSpec& spec : tensor_specs(c)) {
          const TensorEntry* e = head.header().find(spec.name);
          problem = tensor_problem(spec.name, e ? &e->shape : nullptr, spec.shape);
          if (!problem.empty()) {
            *error = path + ": " + problem;
            return false;
          }
        }
    }  // an unreadable header is reported by the full read below, with its hint
  }
  SafeTensors file;
  if (!read_safetensors(path, &file, error)) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec) && std::filesystem::is_regular_file(path + "/model.safetensors", ec))
      *error += subst(tr(" (did you mean {0}?)"), {path + "/model.safetensors"});
    return false;
  }
  if (stored_differently(c)) {
    SafeTensors named;
    if (!model_named(file, c, &named, error)) {
      *error = path + ": " + *error;
      return false;
    }
    file = std::move(named);
  }
  if (!from_safetensors(file, c, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

}  // namespace tw
