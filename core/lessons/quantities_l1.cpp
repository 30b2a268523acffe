// Lesson 1's quantities (high-dimensional intuition): softmax saturation, LoRA's parameter share, the roofline.
// Each calls the core function its panel calls (core/experiments/...), with the panel's own settings.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/experiments/lora_experiment.h"
#include "core/experiments/roofline.h"
#include "core/experiments/softmax_saturation.h"
#include "core/lessons/lesson_quantity.h"

namespace tw {

namespace {

// [SECTION] softmax: the panel's sweep evaluated at the chosen d_k

std::optional<ScaleMode> scale_mode_of(const nlohmann::json& v) {
  const auto name = lesson_text(v, "softmax.scale_mode");
  if (!name) return std::nullopt;
  for (ScaleMode m : {ScaleMode::InvSqrtDk, ScaleMode::None, ScaleMode::InvDk, ScaleMode::Custom})
    if (*name == scale_mode_name(m)) return m;
  return std::nullopt;
}

// The mean over queries of the top probability (and entropy, gradient) at the panel's d_k, with the panel's number
// of keys, queries per point (samples / 4, as its sweep), scale, temperature and seed.
std::optional<SaturationPoint> saturation_here(const nlohmann::json& v) {
  const auto d_k = lesson_int(v, "softmax.d_k"), n_keys = lesson_int(v, "softmax.n_keys"),
             samples = lesson_int(v, "softmax.samples"), seed = lesson_int(v, "softmax.seed");
  const auto custom = lesson_number(v, "softmax.custom_scale"), tau = lesson_number(v, "softmax.temperature");
  const auto mode = scale_mode_of(v);
  if (!d_k || !n_keys || !samples || !seed || !custom || !tau || !mode) return std::nullopt;
  if (*d_k < 1 || *d_k > 4096 || *n_keys < 2 || *n_keys > 256 || *tau <= 0 || *custom <= 0) return std::nullopt;
  const int queries = std::clamp(*samples / 4, 50, 5000);
  const auto sweep = saturation_sweep({*d_k}, *n_keys, queries, *mode, float(*custom), float(*tau),
                                      static_cast<std::uint64_t>(std::max(0, *seed)) + 2);
  if (sweep.empty()) return std::nullopt;
  return sweep.front();
}

std::optional<double> unscaled_top_prob(const nlohmann::json& v) {
  const auto p = saturation_here(v);
  return p ? std::optional<double>(p->max_p_unscaled) : std::nullopt;
}
std::optional<double> scaled_top_prob(const nlohmann::json& v) {
  const auto p = saturation_here(v);
  return p ? std::optional<double>(p->max_p_scaled) : std::nullopt;
}
std::optional<double> unscaled_top_gradient(const nlohmann::json& v) {
  const auto p = saturation_here(v);
  return p ? std::optional<double>(p->grad_unscaled) : std::nullopt;
}

// Empirical variance of q·k in the histogram the panel draws (its samples and seed).
std::optional<double> score_variance(const nlohmann::json& v) {
  const auto d_k = lesson_int(v, "softmax.d_k"), samples = lesson_int(v, "softmax.samples"),
             seed = lesson_int(v, "softmax.seed");
  if (!d_k || !samples || !seed || *d_k < 1 || *d_k > 4096 || *samples < 2 || *samples > 200000) return std::nullopt;
  return score_histogram(*d_k, *samples, 48, static_cast<std::uint64_t>(std::max(0, *seed))).variance;
}

// Its square root: the typical size of a raw score.
std::optional<double> score_std(const nlohmann::json& v) {
  const auto var = score_variance(v);
  if (!var || *var < 0) return std::nullopt;
  return std::sqrt(*var);
}

// The top key's gradient S(1 - S) in the worked example's first row (the panel's logits A and temperature).
std::optional<double> worked_a_top_gradient(const nlohmann::json& v) {
  const auto text = lesson_text(v, "softmax.logits_a");
  const auto tau = lesson_number(v, "softmax.temperature");
  if (!text || !tau || *tau <= 0) return std::nullopt;
  std::vector<float> logits;
  if (!parse_logits(*text, &logits).empty()) return std::nullopt;
  return worked_softmax(logits, float(*tau)).top_grad;
}

// [SECTION] LoRA: the trainable share of a d_out × d_in update

std::optional<double> lora_percent(const nlohmann::json& v) {
  const auto d_in = lesson_int(v, "lora.d_in"), d_out = lesson_int(v, "lora.d_out"), r = lesson_int(v, "lora.rank");
  if (!d_in || !d_out || !r || *d_in < 1 || *d_out < 1 || *r < 1) return std::nullopt;
  return lora_param_percent(*d_in, *d_out, *r);
}

std::optional<double> lora_params(const nlohmann::json& v) {
  const auto d_in = lesson_int(v, "lora.d_in"), d_out = lesson_int(v, "lora.d_out"), r = lesson_int(v, "lora.rank");
  if (!d_in || !d_out || !r || *d_in < 1 || *d_out < 1 || *r < 1) return std::nullopt;
  return static_cast<double>(lora_trainable_params(*d_in, *d_out, *r));
}

// [SECTION] roofline: a decode step of the chosen model on a datasheet device (the measured machine is not a
// pure function of the settings, so quantities refuse it)

std::optional<InferenceShape> shape_of(const nlohmann::json& v, const Device** device) {
  const auto model = lesson_text(v, "roofline.model"), dev = lesson_text(v, "roofline.device"),
             weights = lesson_text(v, "roofline.weights"), kv = lesson_text(v, "roofline.kv_format");
  const auto batch = lesson_int(v, "roofline.batch"), prompt = lesson_int(v, "roofline.prompt"),
             context = lesson_int(v, "roofline.context");
  if (!model || !dev || !weights || !kv || !batch || !prompt || !context) return std::nullopt;
  if (*batch < 1 || *prompt < 1 || *context < 1) return std::nullopt;
  InferenceShape sh;
  const InferenceModel* m = nullptr;
  for (const InferenceModel& im : inference_model_presets())
    if (im.name == *model) m = &im;
  *device = nullptr;
  for (const Device& d : device_presets())
    if (d.name == *dev) *device = &d;
  if (!m || !*device) return std::nullopt;
  bool found_w = false, found_kv = false;
  for (WeightFormat f : {WeightFormat::F32, WeightFormat::BF16, WeightFormat::Int8, WeightFormat::Int4})
    if (*weights == to_string(f)) sh.weights = f, found_w = true;
  for (KvFormat f : {KvFormat::BF16, KvFormat::FP8, KvFormat::FP32})
    if (*kv == to_string(f)) sh.kv_bytes = bytes_per_value(f), found_kv = true;
  if (!found_w || !found_kv) return std::nullopt;
  sh.model = m->config;
  sh.batch = *batch;
  sh.prompt = *prompt;
  sh.context = *context;
  return sh;
}

std::optional<double> decode_intensity(const nlohmann::json& v) {
  const Device* dev = nullptr;
  const auto sh = shape_of(v, &dev);
  if (!sh) return std::nullopt;
  return decode_cost(*sh, *dev).intensity;
}

std::optional<double> decode_compute_bound(const nlohmann::json& v) {
  const Device* dev = nullptr;
  const auto sh = shape_of(v, &dev);
  if (!sh) return std::nullopt;
  return decode_cost(*sh, *dev).memory_bound ? 0.0 : 1.0;
}

// Decode intensity over the ridge point: 1 and above is compute-bound (decode_cost's memory_bound is I < P / W).
std::optional<double> decode_over_ridge(const nlohmann::json& v) {
  const Device* dev = nullptr;
  const auto sh = shape_of(v, &dev);
  if (!sh) return std::nullopt;
  return decode_cost(*sh, *dev).intensity / ridge_point(*dev);
}

std::optional<double> ridge(const nlohmann::json& v) {
  const Device* dev = nullptr;
  if (!shape_of(v, &dev)) return std::nullopt;
  return ridge_point(*dev);
}

}  // namespace

std::vector<LessonQuantity> lesson_1_quantities() {
  return {
      {"softmax.unscaled_top_prob", unscaled_top_prob,
       "mean top probability of the unscaled softmax at the chosen d_k (the sweep's queries, keys, seed)"},
      {"softmax.scaled_top_prob", scaled_top_prob,
       "mean top probability of the scaled softmax (the chosen scale mode) at the chosen d_k"},
      {"softmax.unscaled_top_gradient", unscaled_top_gradient,
       "mean top-key gradient S(1 - S) of the unscaled softmax at the chosen d_k"},
      {"softmax.score_variance", score_variance, "empirical variance of q.k in the histogram at the chosen d_k"},
      {"softmax.score_std", score_std, "empirical standard deviation of q.k in the histogram at the chosen d_k"},
      {"softmax.worked_a_top_gradient", worked_a_top_gradient,
       "top-key gradient S(1 - S) of the worked example's first row (logits A)"},
      {"lora.param_percent", lora_percent, "LoRA's trainable parameters as a percentage of the full update"},
      {"lora.trainable_params", lora_params, "LoRA's trainable parameters r (d_in + d_out)"},
      {"roofline.decode_intensity", decode_intensity, "arithmetic intensity of one decode step, FLOP per byte"},
      {"roofline.decode_compute_bound", decode_compute_bound,
       "1 when one decode step is compute-bound on the chosen datasheet device, 0 when memory-bound"},
      {"roofline.decode_over_ridge", decode_over_ridge,
       "one decode step's arithmetic intensity divided by the device's ridge point (>= 1: compute-bound)"},
      {"roofline.ridge_point", ridge, "the chosen device's ridge point P / W, FLOP per byte"},
  };
}

}  // namespace tw
