// z-loss: the term against log-sum-exp written out here, the backward against central finite differences (double),
// and the whole model's gradient with z-loss against finite differences of its loss.
#include "core/ops/z_loss.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/model/weights.h"
#include "core/train/model_train.h"
#include "sampled_entries.h"

namespace tw {
namespace {

MatD random_logits(int N, int V, uint64_t seed, double scale) {
  std::mt19937_64 rng(seed);
  MatD m(N, V);
  for (int i = 0; i < N; ++i)
    for (int v = 0; v < V; ++v) m(i, v) = scale * (static_cast<double>(rng() >> 11) * 0x1.0p-53 - 0.5);
  return m;
}

double term_of(const MatD& logits, const std::vector<int>& targets, double coef) {
  double s = 0;
  int n = 0;
  for (int i = 0; i < logits.rows(); ++i) {
    if (targets[i] < 0) continue;
    double z = 0;
    for (int v = 0; v < logits.cols(); ++v) z += std::exp(logits(i, v));
    s += std::log(z) * std::log(z);
    ++n;
  }
  return coef * s / n;
}

TEST(ZLoss, ForwardIsCoefTimesMeanLogZSquared) {
  const MatD logits = random_logits(5, 7, 3, 20.0);
  const std::vector<int> targets = {1, -1, 3, 0, 6};
  VecD logz;
  const double got = z_loss_forward<double>(logz, logits, targets.data(), 5, 1e-2);
  EXPECT_NEAR(got, term_of(logits, targets, 1e-2), 1e-12 * got);
  EXPECT_EQ(logz[1], 0.0);  // ignored row
}

TEST(ZLoss, BackwardMatchesFiniteDifferences) {
  MatD logits = random_logits(4, 6, 5, 10.0);
  const std::vector<int> targets = {2, 0, -1, 5};
  const double coef = 0.3;
  VecD logz;
  z_loss_forward<double>(logz, logits, targets.data(), 4, coef);
  MatD probs(4, 6), d = MatD::Zero(4, 6);
  for (int i = 0; i < 4; ++i) {
    const double mx = logits.row(i).maxCoeff();
    probs.row(i) = (logits.row(i).array() - mx).exp().matrix();
    probs.row(i) /= probs.row(i).sum();
  }
  z_loss_backward<double>(d, probs, logz, targets.data(), 4, coef);
  const double h = 1e-6;
  for (int i = 0; i < 4; ++i)
    for (int v = 0; v < 6; ++v) {
      const double keep = logits(i, v);
      logits(i, v) = keep + h;
      const double up = term_of(logits, targets, coef);
      logits(i, v) = keep - h;
      const double down = term_of(logits, targets, coef);
      logits(i, v) = keep;
      EXPECT_NEAR(d(i, v), (up - down) / (2 * h), 1e-7) << i << "," << v;
    }
}

TEST(ZLoss, ModelGradientWithZLossMatchesFiniteDifferences) {
  const ModelConfig c{.dim = 16, .n_layers = 1, .n_heads = 2, .n_kv_heads = 2, .vocab = 11, .hidden = 32, .max_seq = 6};
  ModelWeightsD w = to_double(init_weights(c, 4));
  Batch b;
  b.B = 1;
  b.T = 6;
  b.tokens = {1, 5, 2, 9, 3, 0};
  b.targets = {5, 2, 9, 3, 0, -1};
  const double coef = 0.05;  // large, so the z-loss part is well above finite-difference noise
  ModelWeightsD g;
  double loss = 0, loss0 = 0;
  std::string error;
  ASSERT_TRUE(train_forward_backward_double(&g, w, c, b, &loss, &error, coef)) << error;
  ASSERT_TRUE(train_forward_backward_double(nullptr, w, c, b, &loss0, &error));
  EXPECT_GT(loss, loss0);  // the added term is positive
  // Finite differences on a few entries of every tensor.
  const std::vector<double*> params = testing::sampled_entries(w, c), grads = testing::sampled_entries(g, c);
  ASSERT_EQ(params.size(), grads.size());
  const double h = 1e-5;
  for (size_t k = 0; k < params.size(); ++k) {
    const double keep = *params[k];
    double up = 0, down = 0;
    *params[k] = keep + h;
    train_forward_backward_double(nullptr, w, c, b, &up, &error, coef);
    *params[k] = keep - h;
    train_forward_backward_double(nullptr, w, c, b, &down, &error, coef);
    *params[k] = keep;
    const double fd = (up - down) / (2 * h);
    EXPECT_NEAR(*grads[k], fd, 1e-6 + 1e-5 * std::abs(fd)) << k;
  }
}

}  // namespace
}  // namespace tw
