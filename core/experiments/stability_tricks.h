#pragma once
// The math behind the stability panel: three tricks that keep large logits from breaking training.
//
//   soft-capping  s ↦ c·tanh(s/c) (Gemma 2: attention c = 50, final logits c = 30): near 0 it is the identity,
//                 large scores saturate at ±c; its derivative 1 − tanh²(s/c) fades to 0 there.
//   QK-norm       RMS-normalise each head's q and k before q·k: the score is then bounded by D·γ² however large
//                 the projection weights grow, so attention cannot collapse onto one key.
//   z-loss        add coef·log²Z to the loss (core/ops/z_loss.h): keeps the softmax normaliser near 1.
// Each also runs as a training comparison: the same tiny model, seed and high learning rate, with and without the
// trick (core/train/trainer.h).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/train/trainer.h"

namespace tw {

// [SECTION] soft-capping
struct SoftcapCurve {
  double cap = 0;                  // c
  std::vector<double> x;           // (n) raw scores
  std::vector<double> capped;      // (n) c·tanh(x/c)
  std::vector<double> derivative;  // (n) d capped / dx = 1 − tanh²(x/c)
};
// c > 0, lo < hi, n ≥ 2 (the panel validates).
SoftcapCurve softcap_curve(double cap, double lo, double hi, int n);

// [SECTION] QK-norm
// q and k of one head drawn N(0, s²) (s = how far the weights have grown), the scores of one query over n keys
// with 1/√D scaling, without and with QK-norm (γ = 1).
struct QkNormPoint {
  double scale = 0;                                  // s
  double max_score_plain = 0, max_score_normed = 0;  // max_j |q·k_j| / √D
  double max_prob_plain = 0, max_prob_normed = 0;    // the largest attention probability
};
std::vector<QkNormPoint> qk_norm_sweep(int head_dim, int n_keys, const std::vector<double>& scales, uint64_t seed);

// [SECTION] z-loss
// One row of V logits shifted by s, so log Z = s + log(V·…): the z-loss term and the gradient it adds to each
// logit, through the op itself (core/ops/z_loss.h). The gradient pushes every logit down when log Z > 0.
struct ZLossCurve {
  double coef = 0;
  std::vector<double> log_z;     // (n)
  std::vector<double> term;      // (n) coef · log² Z
  std::vector<double> grad_sum;  // (n) Σ_v ∂term/∂logit_v = 2 · coef · log Z (the shift's gradient)
};
// coef > 0, lo < hi, n ≥ 2.
ZLossCurve z_loss_curve(double coef, double lo, double hi, int n);

// [SECTION] training comparison
enum class StabilityTrick { Softcap, QkNorm, ZLoss };
const char* to_string(StabilityTrick t);  // "soft-cap", "QK-norm", "z-loss"

struct ComparisonParams {
  StabilityTrick trick = StabilityTrick::QkNorm;
  float lr = 0.03f;  // high on purpose: the baseline is meant to struggle
  int steps = 200;   // optimizer steps of each run
  int layers = 2, dim = 32, heads = 4;
  float softcap = 5.0f;  // c for the soft-cap run (attention scores)
  double z_loss = 1e-4;  // coef for the z-loss run
  int warmup = 0;        // warmup steps (0: none, the harder case)
  uint64_t seed = 1;
};
// "" when usable, else one sentence naming the field.
std::string validate(const ComparisonParams& p);
// The settings of one run (exposed for tests): sort task, the same seed for both; with_trick turns the trick on.
TrainSettings comparison_settings(const ComparisonParams& p, bool with_trick);

struct RunCurve {
  std::vector<double> loss;  // (steps done) training loss of each step (NaN-free: a diverged run stops early)
  std::vector<double> grad_norm;
  double final_val_loss = 0, final_accuracy = 0;
  std::string stop_message;  // "" unless the run diverged
};
struct TrainingComparison {
  RunCurve without, with;
};
// Runs both, step by step; keep_going(fraction) false stops both early (what is done so far is returned).
TrainingComparison compare_training(const ComparisonParams& p, const std::function<bool(float)>& keep_going = {});

}  // namespace tw
