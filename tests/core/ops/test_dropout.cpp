// Dropout: the mask's statistics and determinism, its backward, and the whole model's gradient with dropout on
// (each block layout) against central finite differences of its loss under the same masks.
#include "core/ops/dropout.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/model/weights.h"
#include "core/train/model_train.h"
#include "sampled_entries.h"

namespace tw {
namespace {

TEST(Dropout, ZeroProbabilityKeepsEverything) {
  MatD mask;
  dropout_mask<double>(mask, 7, 9, 0.0, 3);
  EXPECT_EQ(mask, MatD::Ones(7, 9));
}

TEST(Dropout, DropsAboutPAndScalesTheRestByOneOverOneMinusP) {
  const double p = 0.3;
  Mat mask;
  dropout_mask<float>(mask, 400, 250, p, 11);
  const double n = static_cast<double>(mask.size());
  int zeros = 0;
  for (Eigen::Index i = 0; i < mask.size(); ++i) {
    const float m = mask.data()[i];
    if (m == 0.0f) {
      ++zeros;
    } else {
      ASSERT_EQ(m, static_cast<float>(1.0 / (1.0 - p))) << i;
    }
  }
  // A Bernoulli(p) count over n elements: 5 standard deviations is sqrt(p(1−p)/n)·5 = 0.0072.
  EXPECT_NEAR(zeros / n, p, 5 * std::sqrt(p * (1 - p) / n));
  // Inverted dropout keeps the expectation: mean(mask) ≈ 1 (its standard deviation is sqrt(p/((1−p)n))).
  EXPECT_NEAR(mask.cast<double>().mean(), 1.0, 5 * std::sqrt(p / ((1 - p) * n)));
}

TEST(Dropout, TheMaskIsAFunctionOfTheSeedAlone) {
  Mat a, b, c;
  dropout_mask<float>(a, 64, 32, 0.5, 42);
  dropout_mask<float>(b, 64, 32, 0.5, 42);
  dropout_mask<float>(c, 64, 32, 0.5, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Neighbouring sites of one step draw different masks, and so do neighbouring steps of one site.
  EXPECT_NE(dropout_site_seed(5, 0), dropout_site_seed(5, 1));
  EXPECT_NE(dropout_site_seed(5, 0), dropout_site_seed(6, 0));
  // Rows are not copies of each other (the hash runs over the element index, not the column).
  EXPECT_NE(a.row(0), a.row(1));
}

TEST(Dropout, ForwardAndBackwardMultiplyByTheMask) {
  MatD mask;
  dropout_mask<double>(mask, 3, 4, 0.5, 9);
  MatD x(3, 4);
  x << 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12;
  MatD y = x;
  dropout_forward<double>(y, mask);
  MatD dx;
  dropout_backward<double>(dx, x, mask);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(y(i, j), mask(i, j) == 0 ? 0.0 : 2.0 * x(i, j));
      EXPECT_EQ(dx(i, j), y(i, j));  // ∂(Σ g ⊙ y)/∂x = g ⊙ mask with g = x
    }
}

struct Layout {
  const char* name;
  NormPlacement placement;
  bool parallel;
};

class DropoutModel : public ::testing::TestWithParam<Layout> {};

TEST_P(DropoutModel, GradientMatchesFiniteDifferencesUnderTheSameMasks) {
  ModelConfig c{.dim = 16, .n_layers = 2, .n_heads = 2, .n_kv_heads = 2, .vocab = 11, .hidden = 32, .max_seq = 6};
  c.placement = GetParam().placement;
  c.parallel_block = GetParam().parallel;
  ModelWeightsD w = to_double(init_weights(c, 4));
  Batch b;
  b.B = 2;
  b.T = 6;
  b.tokens = {1, 5, 2, 9, 3, 0, 4, 4, 7, 1, 10, 6};
  b.targets = {5, 2, 9, 3, 0, -1, 4, 7, 1, 10, 6, -1};
  const Dropout drop{0.4, 77};
  ModelWeightsD g;
  double loss = 0, plain = 0, again = 0;
  std::string error;
  ASSERT_TRUE(train_forward_backward_double(&g, w, c, b, &loss, &error, 0.0, drop)) << error;
  ASSERT_TRUE(train_forward_backward_double(nullptr, w, c, b, &plain, &error));
  ASSERT_TRUE(train_forward_backward_double(nullptr, w, c, b, &again, &error, 0.0, Dropout{0.0, 77}));
  EXPECT_NE(loss, plain);   // something was dropped
  EXPECT_EQ(again, plain);  // p = 0 is the plain pass, bit for bit
  const std::vector<double*> params = testing::sampled_entries(w, c), grads = testing::sampled_entries(g, c);
  ASSERT_EQ(params.size(), grads.size());
  const double h = 1e-5;
  for (size_t k = 0; k < params.size(); ++k) {
    const double keep = *params[k];
    double up = 0, down = 0;
    *params[k] = keep + h;
    train_forward_backward_double(nullptr, w, c, b, &up, &error, 0.0, drop);
    *params[k] = keep - h;
    train_forward_backward_double(nullptr, w, c, b, &down, &error, 0.0, drop);
    *params[k] = keep;
    const double fd = (up - down) / (2 * h);
    EXPECT_NEAR(*grads[k], fd, 1e-6 + 1e-5 * std::abs(fd)) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, DropoutModel,
                         ::testing::Values(Layout{"pre", NormPlacement::Pre, false},
                                           Layout{"post", NormPlacement::Post, false},
                                           Layout{"parallel", NormPlacement::Pre, true}),
                         [](const ::testing::TestParamInfo<Layout>& i) { return std::string(i.param.name); });

// Evaluation never drops: train_forward after a dropped step gives the plain loss.
TEST(DropoutModel, EvaluationDoesNotDrop) {
  const ModelConfig c{.dim = 16, .n_layers = 1, .n_heads = 2, .n_kv_heads = 2, .vocab = 11, .hidden = 32, .max_seq = 6};
  const ModelWeights w = init_weights(c, 4);
  Batch b;
  b.B = 1;
  b.T = 6;
  b.tokens = {1, 5, 2, 9, 3, 0};
  b.targets = {5, 2, 9, 3, 0, -1};
  TrainState fresh, used;
  ModelWeights grads;
  double plain = 0, dropped = 0, after = 0;
  std::string error;
  ASSERT_TRUE(train_forward(fresh, w, c, b, &plain, &error)) << error;
  ASSERT_TRUE(train_forward_backward(&grads, used, w, c, b, &dropped, &error, 0.0, Dropout{0.5, 3})) << error;
  ASSERT_TRUE(train_forward(used, w, c, b, &after, &error)) << error;
  EXPECT_NE(dropped, plain);
  EXPECT_EQ(after, plain);
}

}  // namespace
}  // namespace tw
