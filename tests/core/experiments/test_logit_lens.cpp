#include "core/experiments/logit_lens.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/compare.h"
#include "core/model/forward.h"

namespace tw {
namespace {

ModelConfig lens_config(NormPlacement placement, bool tied) {
  ModelConfig c{.dim = 32, .n_layers = 3, .n_heads = 4, .n_kv_heads = 2, .vocab = 50, .hidden = 64};
  c.placement = placement;
  c.tie_embeddings = tied;
  return c;
}

TEST(LogitLens, LastRowIsTheModelsOwnPrediction) {
  for (NormPlacement placement : {NormPlacement::Pre, NormPlacement::Post}) {
    const ModelConfig c = lens_config(placement, placement == NormPlacement::Pre);
    const ModelWeights w = init_weights(c, 11);
    Trace trace;
    Mat logits;
    std::string error;
    const std::vector<int> tokens = {4, 8, 15, 16, 23, 42};
    ASSERT_TRUE(forward(logits, &trace, w, c, tokens, &error)) << error;
    LogitLens lens;
    ASSERT_TRUE(logit_lens(&lens, trace, w, c, &error)) << error;
    ASSERT_EQ(lens.rows.size(), 4u);  // embed + 3 layers
    ASSERT_EQ(lens.T, 6);
    for (int t = 0; t < 6; ++t) {
      Eigen::Index best = 0;
      logits.row(t).maxCoeff(&best);
      EXPECT_EQ(lens.final_token[size_t(t)], best);
      EXPECT_EQ(lens.top(3, t), best);
      EXPECT_EQ(lens.final_prob(3, t), lens.top_prob(3, t));
      // Probabilities: each row's top token has at least 1/V, and no row gives the final token more than its top.
      for (int r = 0; r < 4; ++r) {
        EXPECT_GE(lens.top_prob(r, t), 1.0 / c.vocab - 1e-7);
        EXPECT_LE(lens.final_prob(r, t), lens.top_prob(r, t) + 1e-12);
      }
    }
  }
}

TEST(LogitLens, MiddleLayerMatchesAnIndependentDoubleComputation) {
  const ModelConfig c = lens_config(NormPlacement::Pre, false);
  const ModelWeights w = init_weights(c, 12);
  Trace trace;
  Mat logits;
  std::string error;
  ASSERT_TRUE(forward(logits, &trace, w, c, {1, 2, 3, 4, 5}, &error)) << error;
  LogitLens lens;
  ASSERT_TRUE(logit_lens(&lens, trace, w, c, &error)) << error;
  // Row 2 reads the stream after layer 1: RMSNorm with the final γ, the untied head, softmax, all in double.
  const MatD x = trace.find("layers.1.mlp.residual")->value.cast<double>();
  for (int t = 0; t < 5; ++t) {
    const double rms = std::sqrt(x.row(t).squaredNorm() / c.dim + c.eps);
    const Eigen::RowVectorXd xn = (x.row(t) / rms).cwiseProduct(w.final_norm.weight.cast<double>().transpose());
    const Eigen::RowVectorXd z = xn * w.lm_head.cast<double>().transpose();
    const Eigen::RowVectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
    const Eigen::RowVectorXd p = e / e.sum();
    Eigen::Index best = 0;
    const double top = p.maxCoeff(&best);
    EXPECT_EQ(lens.top(2, t), best) << t;
    EXPECT_NEAR(lens.top_prob(2, t), top, 1e-5 * top);
    const double want = p(lens.final_token[size_t(t)]);
    EXPECT_NEAR(lens.final_prob(2, t), want, 1e-5 * want + 1e-9);
  }
}

TEST(LogitLens, UntracedPassIsRefused) {
  const ModelConfig c = lens_config(NormPlacement::Pre, true);
  Trace empty;
  LogitLens lens;
  std::string error;
  EXPECT_FALSE(logit_lens(&lens, empty, init_weights(c, 1), c, &error));
  EXPECT_EQ(error, "the trace has no step 'embed' (run a traced forward pass first)");
}

}  // namespace
}  // namespace tw
