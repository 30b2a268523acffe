#include "core/ops/mlp.h"

#include <gtest/gtest.h>

#include "reference_ops.h"
#include "test_util.h"

#include <cmath>
#include <vector>

namespace tw {
namespace {

using testing::mlp_forward;
using testing::MlpActivations;

// Reference values from /tmp/ops-pos/mlp_ref.py (numpy 1.24 + math.erf, float64):
//   gelu_exact = 0.5*x*(1+erf(x/sqrt(2)));  gelu_tanh = 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x**3)))
//   silu = x/(1+exp(-x))
const float kXs[] = {-3.0f, -1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 2.0f, 3.0f};
const float kGeluExact[] = {-0.00404969409489031f, -0.15865525393145707f, -0.15426876936299344f, 0.0f,
                            0.34573123063700656f,  0.8413447460685429f,   1.9544997361036416f,   2.99595030590511f};
const float kGeluTanh[] = {-0.0036373920817729943f, -0.15880800939172324f, -0.15428599017485606f, 0.0f,
                           0.34571400982514394f,    0.8411919906082768f,   1.954597694087775f,    2.996362607918227f};
const float kSilu[] = {-0.14227761953270035f, -0.2689414213699951f, -0.1887703343990727f, 0.0f,
                       0.3112296656009273f,   0.7310585786300049f,  1.761594155955765f,   2.8577223804672998f};

TEST(Activations, MatchReferenceValues) {
  for (int i = 0; i < 8; ++i) {
    EXPECT_NEAR(activate(Activation::GeluExact, kXs[i]), kGeluExact[i], 1e-6f) << kXs[i];
    EXPECT_NEAR(activate(Activation::GeluTanh, kXs[i]), kGeluTanh[i], 1e-6f) << kXs[i];
    EXPECT_NEAR(activate(Activation::SiLU, kXs[i]), kSilu[i], 1e-6f) << kXs[i];
    EXPECT_EQ(activate(Activation::ReLU, kXs[i]), kXs[i] > 0 ? kXs[i] : 0.0f);
  }
}

TEST(Activations, GeluTanhIsCloseButNotEqualToExact) {
  // The approximation's largest gap on these points is at x = −3 (4.1e-4); it is never exactly equal off 0.
  EXPECT_NEAR(activate(Activation::GeluExact, -3.0f) - activate(Activation::GeluTanh, -3.0f),
              -0.00404969409489031f + 0.0036373920817729943f, 1e-6f);
  EXPECT_NE(activate(Activation::GeluExact, 1.0f), activate(Activation::GeluTanh, 1.0f));
}

TEST(Activations, ForwardAppliesElementwiseInPlace) {
  Mat x(2, 4);
  x << -3, -1, -0.5f, 0, 0.5f, 1, 2, 3;
  Mat y = x;
  activation_forward(y, y, Activation::SiLU);
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(y.data()[i], kSilu[i], 1e-6f);
}

// Small MLP from mlp_ref.py: T = 2, C = 3, F = 4, weights stored (out, in).
struct SmallMlp {
  Mat x{2, 3}, wg{4, 3}, wu{4, 3}, wd{3, 4};
  SmallMlp() {
    x << 0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f;
    wg << -0.5f, -0.4f, -0.3f, -0.2f, -0.1f, 0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f;
    wu << -0.625f, 0.25f, -0.25f, 0.625f, 0.125f, -0.375f, 0.5f, 0.0f, -0.5f, 0.375f, -0.125f, -0.625f;
    const float s = 1.0f / 6.0f;
    wd << -4 * s, 1 * s, -3 * s, 2 * s, -2 * s, 3 * s, -1 * s, 4 * s, 0, -4 * s, 1 * s, -3 * s;
  }
  Mat run(MlpKind kind, Activation act, MlpActivations* keep = nullptr) const {
    MlpWeights w{wg, wu, wd};
    if (kind == MlpKind::Plain) w.gate.resize(0, 0);
    MlpActivations acts;
    Mat out;
    mlp_forward(out, acts, x, w, kind, act, 2, 3, 4);
    if (keep) *keep = acts;
    return out;
  }
};

Mat rows2x3(double a, double b, double c, double d, double e, double f) {
  Mat m(2, 3);
  m << static_cast<float>(a), static_cast<float>(b), static_cast<float>(c), static_cast<float>(d),
      static_cast<float>(e), static_cast<float>(f);
  return m;
}

TEST(Mlp, PlainMatchesNumpy) {
  SmallMlp m;
  EXPECT_MAT_NEAR(m.run(MlpKind::Plain, Activation::GeluExact),
                  rows2x3(0.10563928942643458, -0.11026389111755185, 0.1609344903280327, 0.09025864315599419,
                          1.0131439931792054, -1.0028944502750436),
                  1e-6f);
  EXPECT_MAT_NEAR(m.run(MlpKind::Plain, Activation::ReLU),
                  rows2x3(0.0, 0.0, 0.0, -0.02083333333333337, 1.1041666666666665, -1.1458333333333333), 1e-6f);
}

TEST(Mlp, SwiGLUMatchesNumpy) {
  SmallMlp m;
  MlpActivations acts;
  EXPECT_MAT_NEAR(m.run(MlpKind::SwiGLU, Activation::ReLU /* ignored */, &acts),
                  rows2x3(-0.22101792106303658, -0.4276150104062636, 0.26558336451027975, -0.06923372339911434,
                          -0.02863204490777607, 0.033144673398695326),
                  1e-6f);
  // The kept intermediates are the named steps: hidden = silu(gate) ⊙ up.
  ASSERT_EQ(acts.hidden.rows(), 2);
  ASSERT_EQ(acts.hidden.cols(), 4);
  EXPECT_NEAR(acts.hidden(1, 2), activate(Activation::SiLU, acts.gate(1, 2)) * acts.up(1, 2), 1e-7f);
}

// SwiGLU's vectorised pass against silu(g)·u computed in double, for gates far beyond the softmax range: identity
// gate and up projections make hidden = silu(x) ⊙ x. Large negative gates give ≈ −0 (no overflow, no NaN), large
// positive ones g·u; the relative error stays at float rounding (σ from e^−|g|, never a positive exponent).
// Reference: silu(g)·g = g²/(1 + e^−g) in double.
TEST(Mlp, SwiGLUHiddenMatchesDoubleReferenceAtExtremeGates) {
  const std::vector<float> xs = {-1e4f, -200.0f, -88.0f, -40.0f, -3.0f, -1e-3f, -0.0f, 0.0f,  1e-3f,
                                 0.5f,  7.0f,    30.0f,  88.0f,  1e4f,  -17.5f, 2.25f, -0.75f};
  const int C = static_cast<int>(xs.size());
  Mat x(1, C);
  for (int c = 0; c < C; ++c) x(0, c) = xs[size_t(c)];
  const Mat I = Mat::Identity(C, C);
  MlpActivations acts;
  Mat out;
  mlp_forward(out, acts, x, MlpWeights{I, I, I}, MlpKind::SwiGLU, Activation::SiLU, 1, C, C);
  for (int c = 0; c < C; ++c) {
    const double g = xs[size_t(c)];
    const double want = g / (1.0 + std::exp(-g)) * g;
    const float got = acts.hidden(0, c);
    ASSERT_TRUE(std::isfinite(got)) << "gate " << g;
    // Below −87 σ is clamped to e^−87 ≈ 1.6e-38 (exp_nonpositive), so the result is at most 1.6e-38·g·u there.
    EXPECT_LE(std::abs(got - want), 4e-7 * std::abs(want) + 2e-38 * g * g) << "gate " << g;
    EXPECT_EQ(out(0, c), got);  // the identity down projection
  }
}

TEST(Mlp, GeGLUAndReGLUMatchNumpy) {
  SmallMlp m;
  EXPECT_MAT_NEAR(m.run(MlpKind::GeGLU, Activation::GeluExact),
                  rows2x3(-0.21983125963658487, -0.47308652386703043, 0.30633211576053127, -0.03876557166623139,
                          4.70103778968975e-05, 0.01496592435447977),
                  1e-6f);
  EXPECT_MAT_NEAR(m.run(MlpKind::ReGLU, Activation::SiLU /* ignored */),
                  rows2x3(-0.11249999999999996, -0.5062499999999999, 0.365625, 0.0916666666666667, 0.1833333333333334,
                          -0.13750000000000007),
                  1e-6f);
}

TEST(LlamaHiddenSize, FollowsTwoThirdsRule) {
  // int(2*4*dim/3) rounded up to multiple_of; values checked with mlp_ref.py.
  EXPECT_EQ(llama_hidden_size(4096, 256), 11008);        // LLaMA-7B intermediate_size
  EXPECT_EQ(llama_hidden_size(256, 256), 768);           // 682 → 768 (the "Small" config of the notes)
  EXPECT_EQ(llama_hidden_size(8192, 4096, 1.3), 28672);  // LLaMA-2-70B
  EXPECT_EQ(llama_hidden_size(4096, 1024, 1.3), 14336);  // Llama-3-8B
  EXPECT_EQ(llama_hidden_size(288, 32), 768);            // 768 is already a multiple of 32
}

}  // namespace
}  // namespace tw
