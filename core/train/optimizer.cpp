// AdamW, SGD with momentum, the warmup + cosine schedule and global-norm clipping, written in the order of
// torch.optim's single-tensor (CPU) code so every float operation happens as PyTorch does it.
#include "core/train/optimizer.h"

#include <cmath>

#include "core/base/i18n.h"

namespace tw {

namespace {

// One tensor as the visitor hands it out.
struct Span {
  float* data = nullptr;
  int64_t size = 0;
  ParamKind kind = ParamKind::Matrix;
};

std::vector<Span> spans_of(ModelWeights& w, const ModelConfig& config) {
  std::vector<Span> out;
  visit_parameters(w, config, [&](const std::string&, float* data, int64_t size, ParamKind kind) {
    out.push_back({data, size, kind});
  });
  return out;
}

bool decays(const OptimizerConfig& o, ParamKind kind) {
  switch (kind) {
    case ParamKind::Matrix: return true;
    case ParamKind::Norm: return o.decay_norms;
    case ParamKind::Embedding: return o.decay_embeddings;
  }
  return false;
}

}  // namespace

std::string check_optimizer(const OptimizerConfig& o) {
  auto bad = [](float v) { return !std::isfinite(v); };
  if (bad(o.lr) || o.lr <= 0) return tr("learning rate must be a positive number");
  if (bad(o.beta1) || o.beta1 < 0 || o.beta1 >= 1) return tr("beta1 must be in [0, 1)");
  if (bad(o.beta2) || o.beta2 < 0 || o.beta2 >= 1) return tr("beta2 must be in [0, 1)");
  if (bad(o.eps) || o.eps < 0) return tr("epsilon must be ≥ 0");
  if (bad(o.weight_decay) || o.weight_decay < 0) return tr("weight decay must be ≥ 0");
  if (bad(o.momentum) || o.momentum < 0 || o.momentum >= 1) return tr("momentum must be in [0, 1)");
  if (bad(o.clip_norm) || o.clip_norm < 0) return tr("gradient clip norm must be ≥ 0 (0 = off)");
  if (o.warmup_steps < 0) return tr("warmup steps must be ≥ 0");
  if (o.total_steps < 0) return tr("total steps must be ≥ 0");
  if (bad(o.min_lr_ratio) || o.min_lr_ratio < 0 || o.min_lr_ratio > 1) return tr("minimum lr ratio must be in [0, 1]");
  return "";
}

// [SECTION] schedule

double scheduled_lr(const OptimizerConfig& o, int step) {
  const double peak = o.lr;
  if (step < o.warmup_steps) return peak * (step + 1) / o.warmup_steps;
  if (o.total_steps <= 0) return peak;
  const double floor_lr = peak * o.min_lr_ratio;
  if (step >= o.total_steps || o.total_steps <= o.warmup_steps) return floor_lr;
  const double progress = double(step - o.warmup_steps) / double(o.total_steps - o.warmup_steps);
  return floor_lr + 0.5 * (1.0 + std::cos(M_PI * progress)) * (peak - floor_lr);
}

// [SECTION] gradient norm and clipping

namespace {
// Σ x² of one tensor in double, in 32 lanes added in a fixed order: the same number on every instruction set the
// clones run on (each square of a float is exact in double, so a fused multiply-add rounds as the separate add
// does). One serial sum was a dependency chain of n additions, 7% of a small model's step.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
double
sum_squares(const float* __restrict x, int64_t n) {
  constexpr int kLanes = 32;
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) acc[j] += double(x[i + j]) * double(x[i + j]);
  for (int j = 0; i < n; ++i, ++j) acc[j] += double(x[i]) * double(x[i]);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}
}  // namespace

double global_grad_norm(ModelWeights& grads, const ModelConfig& config) {
  double sum = 0;
  for (const Span& s : spans_of(grads, config)) sum += sum_squares(s.data, s.size);
  return std::sqrt(sum);
}

double clip_grad_norm(ModelWeights& grads, const ModelConfig& config, double max_norm) {
  const double norm = global_grad_norm(grads, config);
  if (max_norm <= 0 || !std::isfinite(norm)) return norm;
  // torch: clip_coef = max_norm / (norm + 1e-6), clamped to ≤ 1, multiplied in float.
  const double coef = max_norm / (norm + 1e-6);
  if (coef < 1.0) {
    const float c = static_cast<float>(coef);
    for (const Span& s : spans_of(grads, config))
      for (int64_t i = 0; i < s.size; ++i) s.data[i] *= c;
  }
  return norm;
}

// [SECTION] optimizer state and step

namespace {

// The element loop of adamw_update, also compiled for AVX-512 and AVX2 (chosen at run time): this file is built
// without contraction into fused multiply-adds (CMakeLists.txt), so every lane rounds as the baseline build does and
// the result is the same bit for bit; only the vectors are wider (square root and division are exact IEEE
// operations at every width). This file is compiled with -fno-math-errno (CMakeLists.txt): sqrt's errno (v ≥ 0 here)
// kept the loop scalar; the values are the same.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void adamw_elements(float* __restrict pw, const float* __restrict pg, float* __restrict pm, float* __restrict pv,
                    int64_t n, float shrink, float one_minus_b1, float b2, float one_minus_b2, float bc2_sqrt, float eps,
                    float step_size) {
  for (int64_t i = 0; i < n; ++i) {
    pw[i] *= shrink;                                        // decoupled decay uses the weight before this step
    pm[i] += one_minus_b1 * (pg[i] - pm[i]);                // m ← β₁m + (1−β₁)g  (torch: lerp)
    pv[i] = pv[i] * b2 + one_minus_b2 * pg[i] * pg[i];      // v ← β₂v + (1−β₂)g²
    const float denom = std::sqrt(pv[i]) / bc2_sqrt + eps;  // √v̂ + ε
    pw[i] += -step_size * (pm[i] / denom);                  // w ← w − lr · m̂ / (√v̂ + ε)
  }
}

}  // namespace

void adamw_update(float* pw, const float* pg, float* pm, float* pv, int64_t n, const OptimizerConfig& o, double lr,
                  int64_t t, bool decay) {
  // Scalars computed in double as Python does, then used as float by the float32 kernels.
  const double bc1 = 1.0 - std::pow(double(o.beta1), double(t));
  const double bc2 = 1.0 - std::pow(double(o.beta2), double(t));
  const float step_size = static_cast<float>(lr / bc1);
  const float bc2_sqrt = static_cast<float>(std::sqrt(bc2));
  const float one_minus_b1 = static_cast<float>(1.0 - double(o.beta1));
  const float one_minus_b2 = static_cast<float>(1.0 - double(o.beta2));
  const float b2 = o.beta2, eps = o.eps;
  const float shrink = decay ? static_cast<float>(1.0 - lr * double(o.weight_decay)) : 1.0f;
  adamw_elements(pw, pg, pm, pv, n, shrink, one_minus_b1, b2, one_minus_b2, bc2_sqrt, eps, step_size);
}

OptimizerState make_optimizer_state(const OptimizerConfig& opt, const ModelConfig& config) {
  OptimizerState s;
  s.m = zero_weights(config);
  if (opt.kind == OptimizerKind::AdamW) s.v = zero_weights(config);
  return s;
}

void optimizer_step(ModelWeights& weights, ModelWeights& grads, OptimizerState& state, const OptimizerConfig& o,
                    const ModelConfig& config, double lr) {
  const std::vector<Span> w = spans_of(weights, config), g = spans_of(grads, config), m = spans_of(state.m, config);
  const bool first = state.t == 0;
  state.t += 1;
  if (o.kind == OptimizerKind::AdamW) {
    const std::vector<Span> v = spans_of(state.v, config);
    for (size_t k = 0; k < w.size(); ++k)
      adamw_update(w[k].data, g[k].data, m[k].data, v[k].data, w[k].size, o, lr, state.t, decays(o, w[k].kind));
  } else {
    const float mu = o.momentum, wd = o.weight_decay, flr = static_cast<float>(lr);
    for (size_t k = 0; k < w.size(); ++k) {
      const bool decay = wd > 0 && decays(o, w[k].kind);
      float *pw = w[k].data, *pb = m[k].data;
      const float* pg = g[k].data;
      for (int64_t i = 0; i < w[k].size; ++i) {
        float d = decay ? pg[i] + wd * pw[i] : pg[i];  // torch SGD: weight decay is L2 added to the gradient
        if (mu > 0) {
          pb[i] = first ? d : pb[i] * mu + d;  // the first step starts the buffer at the gradient itself
          d = pb[i];
        }
        pw[i] += -flr * d;
      }
    }
  }
}

}  // namespace tw
