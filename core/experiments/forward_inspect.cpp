#include "core/experiments/forward_inspect.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/base/i18n.h"
#include "core/model/weights.h"

namespace tw {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The layer number of "layers.<L>.<rest>", or -1; *rest receives "<rest>".
int parse_layer(const std::string& name, std::string* rest) {
  if (!starts_with(name, "layers.")) return -1;
  const size_t dot = name.find('.', 7);
  if (dot == std::string::npos || dot == 7) return -1;
  int layer = 0;
  for (size_t i = 7; i < dot; ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    layer = layer * 10 + (name[i] - '0');
    if (layer > 1000000) return -1;
  }
  if (rest) *rest = name.substr(dot + 1);
  return layer;
}

}  // namespace

// [SECTION] step tree

std::vector<StepGroup> step_groups(const Trace& trace) {
  std::vector<StepGroup> groups;
  const auto& steps = trace.steps();
  bool seen_layer = false;
  for (size_t i = 0; i < steps.size(); ++i) {
    const int layer = parse_layer(steps[i].name, nullptr);
    std::string label;
    if (layer >= 0) {
      label = subst(tr("layer {0}"), {std::to_string(layer)});
      seen_layer = true;
    } else {
      label = seen_layer ? tr("output") : tr("input");
    }
    if (groups.empty() || groups.back().label != label) groups.push_back({label, layer, {}});
    groups.back().steps.push_back(static_cast<int>(i));
  }
  return groups;
}

std::string sub_step_name(const std::string& name) {
  std::string rest;
  return parse_layer(name, &rest) >= 0 ? rest : name;
}

// [SECTION] block diagram

std::vector<BlockStage> block_order(NormPlacement placement) {
  using S = BlockStage;
  if (placement == NormPlacement::Pre) return {S::Norm1, S::Attention, S::Residual1, S::Norm2, S::Mlp, S::Residual2};
  return {S::Attention, S::Residual1, S::Norm1, S::Mlp, S::Residual2, S::Norm2};
}

int block_stage(const std::string& step_name) {
  std::string rest;
  if (parse_layer(step_name, &rest) < 0) return -1;
  if (rest == "attn_norm") return static_cast<int>(BlockStage::Norm1);
  if (rest == "mlp_norm") return static_cast<int>(BlockStage::Norm2);
  if (rest == "attn.residual") return static_cast<int>(BlockStage::Residual1);
  if (rest == "mlp.residual") return static_cast<int>(BlockStage::Residual2);
  if (starts_with(rest, "attn.")) return static_cast<int>(BlockStage::Attention);
  if (starts_with(rest, "mlp.")) return static_cast<int>(BlockStage::Mlp);
  return -1;
}

// [SECTION] residual stream

bool is_residual_stream_step(const std::string& name, NormPlacement placement) {
  if (name == "embed" || name == "pos_embed") return true;
  std::string rest;
  if (parse_layer(name, &rest) < 0) return false;
  if (placement == NormPlacement::Pre) return rest == "attn.residual" || rest == "mlp.residual";
  return rest == "attn_norm" || rest == "mlp_norm";
}

ResidualNorms residual_norms(const Trace& trace, NormPlacement placement) {
  ResidualNorms out;
  const auto& steps = trace.steps();
  for (size_t i = 0; i < steps.size(); ++i)
    if (is_residual_stream_step(steps[i].name, placement)) out.steps.push_back(static_cast<int>(i));
  if (out.steps.empty()) return out;

  const Eigen::Index T = steps[static_cast<size_t>(out.steps.front())].value.rows();
  out.norms = MatD::Zero(static_cast<Eigen::Index>(out.steps.size()), T);
  for (size_t r = 0; r < out.steps.size(); ++r) {
    const TraceStep& s = steps[static_cast<size_t>(out.steps[r])];
    std::string rest;
    const int layer = parse_layer(s.name, &rest);
    if (layer < 0) {
      out.labels.push_back(s.name == "embed" ? "embed" : "embed+pos");
    } else {
      std::string label = "L";
      label += std::to_string(layer);
      label += rest == "attn.residual"  ? " attn+"
               : rest == "mlp.residual" ? " mlp+"
               : rest == "attn_norm"    ? " norm1"
                                        : " norm2";
      out.labels.push_back(std::move(label));
    }
    // Accumulate in double: the point of the plot is the growth of the stream, so rounding must not blur it.
    const Eigen::Index rows = std::min<Eigen::Index>(T, s.value.rows());
    for (Eigen::Index t = 0; t < rows; ++t) {
      double sum = 0;
      for (Eigen::Index c = 0; c < s.value.cols(); ++c) sum += double(s.value(t, c)) * double(s.value(t, c));
      out.norms(static_cast<Eigen::Index>(r), t) = std::sqrt(sum);
    }
  }
  return out;
}

// [SECTION] attention maps

bool is_attention_map(const TraceStep& step) {
  return ends_with(step.name, "attn.scores") || ends_with(step.name, "attn.probs");
}

std::vector<std::vector<int>> heads_by_kv_head(int n_heads, int n_kv_heads) {
  std::vector<std::vector<int>> groups;
  if (n_heads <= 0 || n_kv_heads <= 0 || n_heads % n_kv_heads != 0) return groups;
  const int n_rep = n_heads / n_kv_heads;
  groups.resize(static_cast<size_t>(n_kv_heads));
  // Query head h reads KV head h / n_rep: contiguous groups, as repeat_interleave builds them.
  for (int h = 0; h < n_heads; ++h) groups[static_cast<size_t>(h / n_rep)].push_back(h);
  return groups;
}

// [SECTION] parameter table vs a commonly quoted table of the Small config

NotesParamCheck check_notes_small_table() {
  // The Small config as a commonly quoted table gives it.
  const int64_t C = 256, L = 4, H = 8, KV = 4, V = 8192, D = C / H;
  NotesParamCheck out;
  // The table's MLP code: hidden_dim = 4 · dim, then int(2 · hidden_dim / 3); no rounding to a multiple.
  out.notes_hidden = static_cast<int>((2 * 4 * C) / 3);
  const int64_t F = out.notes_hidden;

  auto add = [&](std::string component, std::string formula, std::string text, double value, int64_t computed) {
    NotesParamRow r;
    r.component = std::move(component);
    r.formula = std::move(formula);
    r.notes_text = std::move(text);
    r.notes_value = value;
    r.computed = computed;
    r.agrees = std::abs(value - double(computed)) <= 0.02 * double(computed);
    out.rows.push_back(std::move(r));
    return out.rows.size() - 1;
  };

  const int64_t embed = V * C, norms = 2 * C, q = C * H * D, k = C * KV * D, v = C * KV * D, o = H * D * C;
  const int64_t w1 = C * F, w2 = F * C, w3 = C * F;
  const int64_t block = norms + q + k + v + o + w1 + w2 + w3;
  const int64_t head = C * V;
  add(tr("Token embedding"), "V · C", "2.1M", 2.1e6, embed);
  add(tr("RMSNorm (×2)"), "2 · C", "512", 512, norms);
  add(tr("Attention $Q$"), "C · H·D", "65K", 65e3, q);
  add(tr("Attention $K$"), "C · KV·D", "33K", 33e3, k);
  add(tr("Attention $V$"), "C · KV·D", "33K", 33e3, v);
  add(tr("Attention Out"), "H·D · C", "65K", 65e3, o);
  const size_t r_w1 = add(tr("MLP W1 (gate)"), "C · F", "87K", 87e3, w1);
  const size_t r_w2 = add(tr("MLP W2 (down)"), "F · C", "87K", 87e3, w2);
  const size_t r_w3 = add(tr("MLP W3 (up)"), "C · F", "87K", 87e3, w3);
  const size_t r_block = add(tr("Block total"), tr("sum of rows"), "458K", 458e3, block);
  const size_t r_blocks = add(tr("4 blocks"), "L · block", "1.83M", 1.83e6, L * block);
  add(tr("Output layer"), "C · V", "2.1M", 2.1e6, head);
  // The table's total leaves out the final RMSNorm (C parameters); the model has it, so the computed total does.
  out.computed_total = embed + L * block + C + head;
  const size_t r_total = add(tr("Total"), "embed + L·block + norm + head", "~2.08M", 2.08e6, out.computed_total);
  out.notes_rows_sum = 2.1e6 + 1.83e6 + 2.1e6;

  const std::string mlp_remark =
      subst(tr("$C \\cdot F$ = 256 · {0} = {1}; 87K is 256 · 341, half of the table's own $F$ = {0}"),
            {std::to_string(F), std::to_string(C * F)});
  for (size_t r : {r_w1, r_w2, r_w3}) out.rows[r].remark = mlp_remark;
  out.rows[r_block].remark = subst(tr("follows from the table's MLP rows (512 + 2·65K + 2·33K + 3·87K ≈ 458K), so it "
                                      "inherits their slip; with $F$ = {0} the block has {1}"),
                                   {std::to_string(F), std::to_string(block)});
  out.rows[r_blocks].remark =
      subst(tr("4 · 458K as printed; 4 · {0} = {1}"), {std::to_string(block), std::to_string(L * block)});
  out.rows[r_total].remark = subst(tr("does not follow even from the table's own rows (2.1M + 1.83M + 2.1M = 6.03M); "
                                      "the exact total is {0}"),
                                   {std::to_string(out.computed_total)});
  for (const NotesParamRow& r : out.rows) out.disagreements += r.agrees ? 0 : 1;
  return out;
}

// [SECTION] custom config editor

namespace {
// The fields the config editor shows messages beside: ModelConfig fields, and gqa_ratio, the editor's control
// that sets n_kv_heads.
constexpr const char* kConfigFields[] = {"dim",       "n_layers",      "n_heads",  "n_kv_heads", "vocab",
                                         "hidden",    "max_seq",       "window",   "full_every", "eps",
                                         "rope_base", "memory_cap_mb", "gqa_ratio"};
}  // namespace

std::vector<std::string> messages_for_field(const std::vector<ConfigProblem>& problems, const std::string& field) {
  auto has_control = [](const std::string& f) {
    return std::find(std::begin(kConfigFields), std::end(kConfigFields), f) != std::end(kConfigFields);
  };
  std::vector<std::string> out;
  for (const ConfigProblem& p : problems)
    if (field.empty() ? !has_control(p.field) : p.field == field) out.push_back(p.message);
  return out;
}

}  // namespace tw
