// AdamW, SGD, schedule and clipping against torch.optim. The expected weights come from
// bench/pytorch_optimizer_ref.py (Debian's python3-torch), which runs the same 116 parameters, gradients and
// learning rates through torch.optim.AdamW / SGD and torch.nn.utils.clip_grad_norm_.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/train/optimizer.h"

namespace tw {
namespace {

// dim 4, 1 layer, 1 head, vocab 3, hidden 2, ReLU, RMSNorm, no positions, untied head: 116 parameters.
ModelConfig tiny() {
  ModelConfig c{.dim = 4, .n_layers = 1, .n_heads = 1, .n_kv_heads = 1, .vocab = 3, .hidden = 2, .max_seq = 4};
  c.activation = ActivationKind::ReLU;
  c.positions = PositionType::None;
  return c;
}

std::vector<float*> flat(ModelWeights& w, const ModelConfig& c) {
  std::vector<float*> out;
  visit_parameters(w, c, [&](const std::string&, float* d, int64_t n, ParamKind) {
    for (int64_t i = 0; i < n; ++i) out.push_back(d + i);
  });
  return out;
}

const int kProbes[] = {0, 5, 13, 20, 47, 81, 99, 101, 115};
const double kLrs[] = {0.01, 0.02, 0.015};

// Runs the script's three steps; returns the probed weights and the pre-clip norms.
std::vector<double> run(const OptimizerConfig& opt, std::vector<double>* norms = nullptr) {
  const ModelConfig c = tiny();
  ModelWeights w = zero_weights(c), g = zero_weights(c);
  std::vector<float*> pw = flat(w, c), pg = flat(g, c);
  EXPECT_EQ(pw.size(), 116u);
  for (size_t i = 0; i < pw.size(); ++i) *pw[i] = static_cast<float>(0.5 * std::sin(0.7 * double(i) + 0.3));
  OptimizerState state = make_optimizer_state(opt, c);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < pg.size(); ++i)
      *pg[i] = static_cast<float>(std::cos(1.3 * double(i) + 0.9 * s) * (1 + 0.1 * s));
    const double n = clip_grad_norm(g, c, opt.clip_norm);
    if (norms) norms->push_back(n);
    optimizer_step(w, g, state, opt, c, kLrs[s]);
  }
  std::vector<double> out;
  for (int i : kProbes) out.push_back(*pw[static_cast<size_t>(i)]);
  return out;
}

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::max(1.0, std::abs(want[i]))) << "probe " << i;
}

OptimizerConfig adamw(float wd) {
  OptimizerConfig o;
  o.kind = OptimizerKind::AdamW;
  o.weight_decay = wd;
  o.clip_norm = 0;
  return o;
}

TEST(Optimizer, AdamWMatchesTorchDecayingMatricesOnly) {
  expect_close(run(adamw(0.1f)),
               {0.109393552, -0.340162873, 0.00780834351, 0.47876361, 0.473017305, 0.179233611, 0.27191034, 0.431428999,
                -0.42594403},
               2e-6);
}

TEST(Optimizer, AdamWMatchesTorchDecayingEverything) {
  OptimizerConfig o = adamw(0.1f);
  o.decay_norms = o.decay_embeddings = true;
  expect_close(run(o),
               {0.108793758, -0.338725299, 0.00772497151, 0.47876361, 0.473017305, 0.178312182, 0.27191034, 0.429357111,
                -0.42594403},
               2e-6);
}

TEST(Optimizer, SgdMomentumMatchesTorch) {
  OptimizerConfig o;
  o.kind = OptimizerKind::SGD;
  o.momentum = 0.9f;
  o.weight_decay = 0.05f;
  o.clip_norm = 0;
  expect_close(run(o),
               {0.0887934119, -0.353534609, -0.00891485158, 0.488453627, 0.45017311, 0.168423504, 0.295521945,
                0.400511622, -0.444718421},
               2e-6);
}

TEST(Optimizer, ClippingMatchesTorch) {
  OptimizerConfig o = adamw(0.1f);
  o.clip_norm = 1.0f;
  std::vector<double> norms;
  expect_close(run(o, &norms),
               {0.109385565, -0.340519875, 0.00908430386, 0.477333069, 0.47344929, 0.179084644, 0.271796823,
                0.431533426, -0.426267982},
               2e-6);
  expect_close(norms, {7.6158061, 8.37746716, 9.13883114}, 1e-6);
}

TEST(Optimizer, ClippingLeavesSmallGradientsAloneAndScalesLargeToMaxNorm) {
  const ModelConfig c = tiny();
  ModelWeights g = zero_weights(c);
  std::vector<float*> pg = flat(g, c);
  *pg[0] = 3.0f;
  *pg[50] = 4.0f;  // ‖g‖ = 5
  EXPECT_DOUBLE_EQ(clip_grad_norm(g, c, 10.0), 5.0);
  EXPECT_EQ(*pg[0], 3.0f);
  EXPECT_NEAR(clip_grad_norm(g, c, 1.0), 5.0, 1e-6);
  EXPECT_NEAR(global_grad_norm(g, c), 1.0, 1e-6);  // 5 · 1/(5 + 1e-6)
  EXPECT_NEAR(*pg[0] / *pg[50], 0.75, 1e-6);       // direction kept
}

TEST(Optimizer, GradNormOfEveryElementEqualsALongDoubleSum) {
  // The norm sums in lanes (vectorised); every element of every tensor, whatever its length modulo the lane count,
  // must count once: against a serial sum in long double over values spread over six orders of magnitude.
  ModelConfig c = tiny();
  c.dim = 36;  // tensors of 36, 72·36, 37·36 … elements: none a multiple of 32
  c.hidden = 72;
  c.vocab = 37;
  ModelWeights g = zero_weights(c);
  std::vector<float*> pg = flat(g, c);
  long double ref = 0;
  uint32_t x = 3;
  for (size_t i = 0; i < pg.size(); ++i) {
    x = x * 1664525u + 1013904223u;
    const float v = std::ldexp(static_cast<float>(x >> 8) / 16777216.0f - 0.5f, static_cast<int>(i % 20) - 10);
    *pg[i] = v;
    ref += static_cast<long double>(v) * v;
  }
  EXPECT_NEAR(global_grad_norm(g, c) / std::sqrt(static_cast<double>(ref)), 1.0, 1e-12);
}

TEST(Optimizer, WarmupThenCosineByHand) {
  OptimizerConfig o{.lr = 1.0f, .warmup_steps = 4, .total_steps = 10, .min_lr_ratio = 0.1f};
  EXPECT_NEAR(scheduled_lr(o, 0), 0.25, 1e-12);
  EXPECT_NEAR(scheduled_lr(o, 3), 1.0, 1e-12);
  EXPECT_NEAR(scheduled_lr(o, 4), 1.0, 1e-7);         // cosine starts at the peak
  EXPECT_NEAR(scheduled_lr(o, 7), 0.1 + 0.45, 1e-7);  // halfway: the mean of peak and floor
  EXPECT_NEAR(scheduled_lr(o, 10), 0.1, 1e-7);        // the floor from total_steps on
  EXPECT_NEAR(scheduled_lr(o, 1000), 0.1, 1e-7);
  for (int s = 4; s < 10; ++s) EXPECT_GT(scheduled_lr(o, s), scheduled_lr(o, s + 1));  // decreasing
  o.total_steps = 0;
  EXPECT_NEAR(scheduled_lr(o, 500), 1.0, 1e-12);  // constant after warmup
}

TEST(Optimizer, RejectsBadSettingsWithAMessage) {
  OptimizerConfig o;
  EXPECT_EQ(check_optimizer(o), "");
  o.lr = std::nanf("");
  EXPECT_NE(check_optimizer(o), "");
  o.lr = 1e-3f;
  o.beta2 = 1.0f;
  EXPECT_NE(check_optimizer(o), "");
}

}  // namespace
}  // namespace tw
