#include "core/lessons/lesson_scene_params.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "core/lessons/quantity_values.h"
#include "core/number_list.h"

namespace tw {

namespace {

namespace lv = lesson_values;
using Json = nlohmann::json;

// A float slider holds the value as float: round the same way so a lesson computes what the panel shows.
std::optional<double> slider(const Json& v, const char* key) {
  const std::optional<double> d = lv::number(v, key);
  if (!d) return std::nullopt;
  return static_cast<double>(static_cast<float>(*d));
}

}  // namespace

std::optional<ArchitectureConfig> architecture_of(const Json& v) {
  const auto d = lv::integer(v, "architectures.d_model");
  const auto layers = lv::integer(v, "architectures.layers");
  const auto heads = lv::integer(v, "architectures.heads");
  const auto kv = lv::integer(v, "architectures.kv_heads");
  const auto ff = lv::integer(v, "architectures.d_ff");
  const auto vocab = lv::integer(v, "architectures.vocab");
  const auto gated = lv::boolean(v, "architectures.gated");
  const auto tied = lv::boolean(v, "architectures.tied");
  if (!d || !layers || !heads || !kv || !ff || !vocab || !gated || !tied) return std::nullopt;
  ArchitectureConfig c;
  c.name = "your model";
  c.d_model = *d, c.layers = *layers, c.heads = *heads, c.kv_heads = *kv;
  c.head_dim = *heads > 0 ? *d / *heads : 0;
  c.d_ff = *ff, c.gated = *gated, c.tied = *tied, c.vocab = *vocab, c.context = 4096;
  return c;
}

std::optional<DecodingScene> decoding_scene_of(const Json& v) {
  const auto lp = lv::text(v, "decoding.logits_p");
  const auto lq = lv::text(v, "decoding.logits_q");
  const auto tp = slider(v, "decoding.temp_p");
  const auto tq = slider(v, "decoding.temp_q");
  const auto temperature = slider(v, "decoding.temperature");
  const auto top_k = lv::integer(v, "decoding.top_k");
  const auto top_p = slider(v, "decoding.top_p");
  const auto min_p = slider(v, "decoding.min_p");
  const auto min_keep = lv::integer(v, "decoding.min_keep");
  const auto loss = slider(v, "decoding.loss");
  if (!lp || !lq || !tp || !tq || !temperature || !top_k || !top_p || !min_p || !min_keep || !loss) return std::nullopt;
  DecodingScene d;
  if (!parse_number_list(*lp, &d.logits_p, 2, 32).empty() || !parse_number_list(*lq, &d.logits_q, 2, 32).empty() ||
      d.logits_p.size() != d.logits_q.size() || *tp <= 0 || *tq <= 0)
    return std::nullopt;
  for (double x : d.logits_p)
    if (std::abs(x) > 1e4) return std::nullopt;
  for (double x : d.logits_q)
    if (std::abs(x) > 1e4) return std::nullopt;
  d.temp_p = *tp, d.temp_q = *tq, d.loss = *loss;
  d.sampling.temperature = static_cast<float>(*temperature);
  d.sampling.top_k = *top_k;
  d.sampling.top_p = static_cast<float>(*top_p);
  d.sampling.min_p = static_cast<float>(*min_p);
  d.sampling.min_tokens_to_keep = *min_keep;
  if (!validate(d.sampling).empty()) return std::nullopt;
  return d;
}

}  // namespace tw
