// Lesson 2, the parts of a LLaMA-style model: quantities its exercises check, each computed by the core function
// the panel itself calls (norms, RoPE, GQA, masks, architectures).
#include <algorithm>
#include <numbers>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiments/architecture_settings.h"
#include "core/experiments/architectures.h"
#include "core/experiments/gqa_analysis.h"
#include "core/experiments/gqa_settings.h"
#include "core/experiments/mask_analysis.h"
#include "core/experiments/mask_settings.h"
#include "core/experiments/norm_analysis.h"
#include "core/lessons/lesson_quantity.h"
#include "core/lessons/quantity_values.h"
#include "core/lessons/scene_settings.h"
#include "core/number_list.h"
#include "core/ops/rope.h"

namespace tw {

namespace {

namespace lv = lesson_values;
using Json = nlohmann::json;

// Mean square of the norms panel's vector: mean x², what RMSNorm takes the root of (ε aside).
std::optional<double> norms_mean_square(const Json& v) {
  const auto text = lv::text(v, "norms.vector");
  const auto batch = lv::integer(v, "norms.batch");
  const auto eps = lv::number(v, "norms.eps");
  const auto seed = lv::integer(v, "norms.seed");
  if (!text || !batch || !eps || !seed) return std::nullopt;
  std::vector<double> x;
  if (!parse_number_list(*text, &x, 2, 64).empty() || !check_norm_input(x, *batch, *eps).empty()) return std::nullopt;
  const double rms = compare_norms(x, *batch, *eps, static_cast<uint64_t>(*seed)).rms;
  return rms * rms;
}

// The gated MLP's hidden width for the first model width in norms.dims: 8C/3 rounded up to multiple_of.
std::optional<double> norms_llama_hidden(const Json& v) {
  const auto dims = lv::int_list(v, "norms.dims");
  const auto multiple = lv::integer(v, "norms.multiple_of");
  if (!dims || dims->empty() || !multiple || *multiple < 1) return std::nullopt;
  const std::vector<HiddenSizeRow> rows = hidden_size_table({dims->front()}, *multiple);
  if (rows.empty()) return std::nullopt;
  return rows.front().llama_hidden;
}

// The wavelength 2π/θ_k (tokens) of the selected RoPE pair k: how many positions one full turn takes (no context
// scaling).
std::optional<double> rope_pair_wavelength(const Json& v) {
  const auto dim = lv::integer(v, "rope.head_dim");
  const auto base = lv::number(v, "rope.base");
  const auto pair = lv::integer(v, "rope.pair");
  const auto scaling = lv::text(v, "rope.scaling");
  if (!dim || !base || !pair || !scaling || *scaling != "none") return std::nullopt;
  RopeConfig cfg;
  cfg.head_dim = std::max(2, *dim - *dim % 2);  // the panel rounds an odd head_dim down
  cfg.base = *base;
  if (!validate(cfg).empty()) return std::nullopt;
  const std::vector<double> theta = rope_frequencies(cfg.head_dim, cfg.base);
  const int k = std::clamp(*pair, 0, static_cast<int>(theta.size()) - 1);
  return 2 * std::numbers::pi / theta[static_cast<size_t>(k)];
}

// The GQA panel's KV cache at its sequence length as a fraction of the multi-head (KV = H) cache.
std::optional<double> gqa_cache_ratio(const Json& v) {
  const std::optional<GqaParams> p = scene_params<GqaSettings>(v);
  if (!p) return std::nullopt;
  const GqaAnalysis r = analyze_gqa(*p);
  if (r.bytes_mha_at <= 0) return std::nullopt;
  return static_cast<double>(r.bytes_gqa_at) / static_cast<double>(r.bytes_mha_at);
}

// Visible (query, key) cells of the masks panel's mask: what attention actually computes.
std::optional<double> masks_visible_cells(const Json& v) {
  const std::optional<MasksSettings> m = read_scene_settings<MasksSettings>(v);
  if (!m) return std::nullopt;
  const MaskAnalysis a = analyze_mask(terms_of(*m), m->T);
  if (!a.error.empty()) return std::nullopt;
  return static_cast<double>(a.visible_cells);
}

// Total parameters of the architectures panel's own model (count_parameters, as the panel shows it).
std::optional<double> architectures_total(const Json& v) {
  const std::optional<ArchitectureConfig> c = scene_params<ArchitectureSettings>(v);
  if (!c) return std::nullopt;
  return static_cast<double>(count_parameters(*c).total);
}

// The share of those parameters in the MLPs.
std::optional<double> architectures_mlp_share(const Json& v) {
  const std::optional<ArchitectureConfig> c = scene_params<ArchitectureSettings>(v);
  if (!c) return std::nullopt;
  const ParameterBreakdown b = count_parameters(*c);
  if (b.total <= 0) return std::nullopt;
  return static_cast<double>(b.mlp) / static_cast<double>(b.total);
}

}  // namespace

std::vector<LessonQuantity> lesson_2_quantities() {
  return {
      {"norms.mean_square", norms_mean_square, "mean of the squares of the norms panel's vector (RMS squared)"},
      {"norms.gated_hidden", norms_llama_hidden,
       "gated MLP hidden width for the first entry of norms.dims (8C/3 rounded up to multiple_of)"},
      {"rope.pair_wavelength", rope_pair_wavelength, "wavelength 2*pi/theta_k of the selected pair, tokens"},
      {"gqa.cache_ratio", gqa_cache_ratio, "KV-cache bytes of the current grouping divided by the MHA cache"},
      {"masks.visible_cells", masks_visible_cells, "number of visible (query, key) cells of the masks panel's mask"},
      {"architectures.total_params", architectures_total, "total parameters of your model in the architectures panel"},
      {"architectures.mlp_share", architectures_mlp_share, "share of your model's parameters that sit in the MLPs"},
  };
}

}  // namespace tw
