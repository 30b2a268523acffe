#pragma once
// Test helpers: shape-first tensor comparison that prints the worst difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "core/compare.h"
#include "core/model/config.h"

// A test that only measures a shipped model's quality (its samples, a fine-tune of it) runs in the Release stage and
// skips itself under the sanitizers: its code paths are covered there by small-model tests, and under ASan the same
// minutes of sampling would add nothing but CI time.
#ifdef TW_SANITIZED
#define TW_RELEASE_STAGE_ONLY() GTEST_SKIP() << "measured in the Release stage; its code paths run here in small tests"
#else
#define TW_RELEASE_STAGE_ONLY() (void)0
#endif

namespace tw::testing {

// `tol` is absolute for results of magnitude up to 1 and relative beyond: the same computation summed in another
// order (another CPU's BLAS kernel, another blocking, another thread count) agrees to a few ulps of the result's
// magnitude, so a fixed absolute bound that holds for values near 1 fails on values near 100 on some machine.
// tol = 0 stays an exact comparison (for results that must be bit-identical).
inline ::testing::AssertionResult MatNear(const Mat& actual, const Mat& expected, float tol) {
  if (actual.rows() != expected.rows() || actual.cols() != expected.cols()) {
    return ::testing::AssertionFailure() << "shape (" << actual.rows() << ", " << actual.cols() << ") != expected ("
                                         << expected.rows() << ", " << expected.cols() << ")";
  }
  const float d = max_abs_diff(actual, expected);
  const float magnitude = expected.size() ? expected.cwiseAbs().maxCoeff() : 0.0f;
  const float bound = tol * std::max(1.0f, magnitude);
  if (d <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max |actual - expected| = " << d << " > tol " << tol << " × max(1, "
                                       << magnitude << ") = " << bound;
}

// A rows × cols matrix of standard normal entries; the same seed gives the same matrix.
inline Mat random_mat(int rows, int cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}

// tiny_config() with every non-default choice of the other kind: LayerNorm (γ and β), ReLU (no gate), learned
// positions, post-norm (no final norm), tied embeddings. 99,008 parameters (counted in test_weights.cpp).
inline ModelConfig layernorm_learned_tied_config() {
  ModelConfig c = tiny_config();
  c.norm = NormType::LayerNorm;
  c.activation = ActivationKind::ReLU;
  c.positions = PositionType::Learned;
  c.placement = NormPlacement::Post;
  c.tie_embeddings = true;
  return c;
}

// tiny_config() as GPT-2 and BLOOM differ from LLaMA: ALiBi, post-norm LayerNorm, plain GELU MLP, and MQA
// (4 query heads over 1 KV head).
inline ModelConfig alibi_post_mqa_config() {
  ModelConfig c = tiny_config();
  c.n_kv_heads = 1;
  c.positions = PositionType::ALiBi;
  c.placement = NormPlacement::Post;
  c.norm = NormType::LayerNorm;
  c.activation = ActivationKind::GELU;
  return c;
}

}  // namespace tw::testing

#define EXPECT_MAT_NEAR(a, b, tol) EXPECT_TRUE(::tw::testing::MatNear((a), (b), (tol)))
#define ASSERT_MAT_NEAR(a, b, tol) ASSERT_TRUE(::tw::testing::MatNear((a), (b), (tol)))
