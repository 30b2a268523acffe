// Pre- vs post-norm gradients per layer: the float experiment against the double-precision backward of the same
// model and batch, and the shape of the result.
#include "core/experiments/norm_placement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/model/weights.h"
#include "core/train/model_train.h"

namespace tw {
namespace {

TEST(NormPlacement, PerLayerNormsMatchTheDoubleBackward) {
  PlacementParams p;
  p.depths = {3};
  p.dim = 16;
  p.seq = 6;
  p.batch = 2;
  ASSERT_EQ(validate(p), "");
  const auto r = placement_gradients(p);
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].pre.size(), 3u);
  ASSERT_EQ(r[0].post.size(), 3u);
  // The same model and batch (rebuilt by the experiment's documented rule), backward in double precision.
  for (NormPlacement place : {NormPlacement::Pre, NormPlacement::Post}) {
    const ModelConfig c = placement_config(p, 3, place);
    const ModelWeightsD w = to_double(init_weights(c, p.seed));
    Batch b;
    b.B = p.batch;
    b.T = p.seq;
    std::mt19937_64 rng(p.seed * 0x9E3779B97F4A7C15ull + 17);
    for (int i = 0; i < p.batch * p.seq; ++i) b.tokens.push_back(static_cast<int>(rng() % 64u));
    for (int s = 0; s < p.batch; ++s)
      for (int t = 0; t < p.seq; ++t) b.targets.push_back(t + 1 < p.seq ? b.tokens[s * p.seq + t + 1] : -1);
    ModelWeightsD g;
    double loss = 0;
    std::string error;
    ASSERT_TRUE(train_forward_backward_double(&g, w, c, b, &loss, &error)) << error;
    std::vector<double> sq(3, 0.0);
    visit_parameters(g, c, [&](const std::string& name, double* data, int64_t size) {
      if (name.rfind("model.layers.", 0) != 0) return;
      const int l = std::stoi(name.substr(13));
      for (int64_t i = 0; i < size; ++i) sq[l] += data[i] * data[i];
    });
    const auto& got = place == NormPlacement::Pre ? r[0].pre : r[0].post;
    for (int l = 0; l < 3; ++l) EXPECT_NEAR(got[l], std::sqrt(sq[l]), 1e-3 * std::sqrt(sq[l])) << l;
    EXPECT_NEAR(place == NormPlacement::Pre ? r[0].pre_loss : r[0].post_loss, loss, 1e-4 * loss);
  }
}

TEST(NormPlacement, CancelStopsEarlyAndValidationNamesTheField) {
  PlacementParams p;
  p.depths = {2, 4};
  int calls = 0;
  const auto r = placement_gradients(p, [&](float) { return ++calls < 1; });
  EXPECT_LT(r.size(), 2u);
  p.depths = {0};
  EXPECT_NE(validate(p).find("depth"), std::string::npos);
}

}  // namespace
}  // namespace tw
