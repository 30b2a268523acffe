#include "core/model/hf_layout.h"

#include <algorithm>
#include <cstdlib>

namespace tw {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// GPT-2's name of a model tensor and the part it is of the fused or transposed checkpoint tensor.
HfSource gpt2_source(const ModelConfig& c, const std::string& name, const std::vector<int64_t>& shape,
                     const std::string& P) {
  const int64_t C = c.dim, F = c.hidden;
  if (name == "model.embed_tokens.weight") return {P + "wte.weight", shape};
  if (name == "model.embed_positions.weight") return {P + "wpe.weight", shape};  // rows may be more: see below
  if (name == "model.norm.weight") return {P + "ln_f.weight", shape};
  if (name == "model.norm.bias") return {P + "ln_f.bias", shape};
  if (name == "lm_head.weight") return {name, shape};
  const std::string layers = "model.layers.";
  if (name.compare(0, layers.size(), layers) != 0) return {name, shape};
  const size_t dot = name.find('.', layers.size());
  const std::string i = name.substr(layers.size(), dot - layers.size()), rest = name.substr(dot + 1);
  const std::string h = P + "h." + i + ".";
  const bool bias = ends_with(rest, ".bias");
  struct Row {
    const char* ours;
    const char* theirs;
    int64_t part;  // index of the C-wide block inside c_attn (q 0, k 1, v 2); -1 = the whole tensor
  };
  static const Row rows[] = {
      {"input_layernorm", "ln_1", -1},         {"self_attn.q_proj", "attn.c_attn", 0},
      {"self_attn.k_proj", "attn.c_attn", 1},  {"self_attn.v_proj", "attn.c_attn", 2},
      {"self_attn.o_proj", "attn.c_proj", -1}, {"post_attention_layernorm", "ln_2", -1},
      {"mlp.up_proj", "mlp.c_fc", -1},         {"mlp.down_proj", "mlp.c_proj", -1},
  };
  const std::string base = rest.substr(0, rest.rfind('.'));
  for (const Row& r : rows) {
    if (base != r.ours) continue;
    const std::string file = h + r.theirs + (bias ? ".bias" : ".weight");
    const bool norm = base == "input_layernorm" || base == "post_attention_layernorm";
    if (norm) return {file, shape};
    const int64_t out = r.part >= 0 ? 3 * C : base == "mlp.up_proj" ? F : C;  // columns of the Conv1D weight
    const int64_t in = base == "mlp.down_proj" ? F : C;
    const int64_t offset = r.part >= 0 ? r.part * C : 0;
    if (bias) return {file, {out}, offset, false};
    return {file, {in, out}, offset, true};
  }
  return {name, shape};
}

// Phi-3's fused qkv_proj (rows q | k | v) and gate_up_proj (rows gate | up).
HfSource phi3_source(const ModelConfig& c, const std::string& name, const std::vector<int64_t>& shape) {
  const int64_t C = c.dim, F = c.hidden, HD = int64_t(c.n_heads) * c.head_dim(),
                KVD = int64_t(c.n_kv_heads) * c.head_dim();
  const size_t at = name.rfind(".self_attn.");
  const size_t mlp = name.rfind(".mlp.");
  if (at != std::string::npos) {
    const std::string p = name.substr(0, at) + ".self_attn.qkv_proj.weight";
    const std::string part = name.substr(at + 11);
    if (part == "q_proj.weight") return {p, {HD + 2 * KVD, C}, 0, false};
    if (part == "k_proj.weight") return {p, {HD + 2 * KVD, C}, HD, false};
    if (part == "v_proj.weight") return {p, {HD + 2 * KVD, C}, HD + KVD, false};
  }
  if (mlp != std::string::npos) {
    const std::string p = name.substr(0, mlp) + ".mlp.gate_up_proj.weight";
    const std::string part = name.substr(mlp + 5);
    if (part == "gate_proj.weight") return {p, {2 * F, C}, 0, false};
    if (part == "up_proj.weight") return {p, {2 * F, C}, F, false};
  }
  return {name, shape};
}

}  // namespace

HfSource hf_source(const ModelConfig& c, const std::string& name, const std::vector<int64_t>& shape,
                   const std::string& prefix) {
  if (c.family == Family::GPT2) return gpt2_source(c, name, shape, prefix);
  if (c.family == Family::Phi3) return phi3_source(c, name, shape);
  return {name, shape};
}

void take_part(float* dst, const std::vector<int64_t>& shape, const float* src, const HfSource& s) {
  // dst: (out, in) or (n); src: s.shape
  if (shape.size() == 1) {
    for (int64_t e = 0; e < shape[0]; ++e) dst[e] = src[s.offset + e];
    return;
  }
  const int64_t rows = shape[0], cols = shape[1];
  if (!s.transposed) {  // a block of whole rows (also GPT-2's wpe: the first max_seq of its n_positions rows)
    const float* from = src + s.offset * cols;
    for (int64_t e = 0; e < rows * cols; ++e) dst[e] = from[e];
    return;
  }
  // Conv1D: src is (in, out_total); model row r (an output) is src column offset + r.
  const int64_t out_total = s.shape[1];
  // In 32 x 32 tiles, so both the rows read and the rows written stay in cache (a plain column walk missed it on
  // every element of a 768 x 2304 c_attn).
  constexpr int64_t kTile = 32;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile)  // one work item per tile of output rows
    for (int64_t k0 = 0; k0 < cols; k0 += kTile)
      for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
        for (int64_t k = k0; k < std::min(cols, k0 + kTile); ++k) dst[r * cols + k] = src[k * out_total + s.offset + r];
}

void put_part(float* dst, const float* src, const std::vector<int64_t>& shape, const HfSource& s) {
  // dst: s.shape; src: the model tensor, shape
  if (shape.size() == 1) {
    for (int64_t e = 0; e < shape[0]; ++e) dst[s.offset + e] = src[e];
    return;
  }
  const int64_t rows = shape[0], cols = shape[1];
  if (!s.transposed) {
    for (int64_t e = 0; e < rows * cols; ++e) dst[s.offset * cols + e] = src[e];
    return;
  }
  const int64_t out_total = s.shape[1];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < cols; ++k) dst[k * out_total + s.offset + r] = src[r * cols + k];
}

std::vector<TensorView> hf_tensor_views(const std::vector<TensorView>& model_views, const ModelConfig& c,
                                        std::vector<std::vector<float>>* storage) {
  std::vector<TensorView> out;
  std::vector<size_t> built;  // index in `out` of each tensor assembled in storage, by storage index
  storage->clear();
  storage->reserve(model_views.size());  // no reallocation: views point into these buffers
  for (const TensorView& v : model_views) {
    const HfSource s = hf_source(c, v.name, v.shape, "transformer.");
    const bool same = !s.transposed && s.offset == 0 && s.shape == v.shape;
    if (same) {
      out.push_back({s.name, v.shape, v.data, v.count});
      continue;
    }
    size_t k = 0;
    while (k < built.size() && out[built[k]].name != s.name) ++k;
    if (k == built.size()) {
      int64_t count = 1;
      for (const int64_t d : s.shape) count *= d;
      storage->emplace_back(static_cast<size_t>(count), 0.0f);
      built.push_back(out.size());
      out.push_back({s.name, s.shape, storage->back().data(), static_cast<size_t>(count)});
    }
    put_part((*storage)[k].data(), v.data, v.shape, s);
  }
  return out;
}

bool hf_ignored_tensor(const ModelConfig& c, const std::string& name) {
  if (name.find("rotary_emb.inv_freq") != std::string::npos) return true;
  return c.family == Family::GPT2 && (ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias"));
}

}  // namespace tw
