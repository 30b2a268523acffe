// Every op's backward against central finite differences (f(w+h) − f(w−h)) / 2h computed in double.
// Each check builds the scalar L = Σ R ⊙ op(inputs) with a fixed random R, so the op's backward with dout = R is
// ∂L/∂inputs; every input and parameter entry is perturbed in turn.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <string>

#include "core/compare.h"
#include "core/ops/alibi.h"
#include "core/ops/attention.h"
#include "core/ops/cross_entropy.h"
#include "core/ops/embedding.h"
#include "core/ops/linear.h"
#include "core/ops/mask.h"
#include "core/ops/mlp.h"
#include "core/ops/norm.h"
#include "core/ops/residual.h"
#include "core/ops/rope.h"

namespace tw {
namespace {

// Deterministic uniform(−scale, scale) fill.
struct Rng {
  uint64_t s;
  double next() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
};
MatD rnd(int r, int c, uint64_t seed, double scale = 1.0) {
  Rng g{seed};
  MatD m(r, c);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = scale * g.next();
  return m;
}
VecD rndv(int n, uint64_t seed, double offset = 0.0) {
  Rng g{seed};
  VecD v(n);
  for (int i = 0; i < n; ++i) v[i] = offset + 0.5 * g.next();
  return v;
}

// max |numeric − analytic| / max |analytic| over every entry of x (n values), perturbing each by ±h.
double fd_rel_error(const std::function<double()>& loss, double* x, Eigen::Index n, const double* analytic) {
  const double h = 1e-6;
  double err = 0, mag = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double lp = loss();
    x[i] = keep - h;
    const double lm = loss();
    x[i] = keep;
    err = std::max(err, std::abs((lp - lm) / (2 * h) - analytic[i]));
    mag = std::max(mag, std::abs(analytic[i]));
  }
  EXPECT_GT(mag, 1e-12) << "all-zero gradient: the check would be vacuous";
  return err / std::max(mag, 1e-30);
}
double dot(const MatD& a, const MatD& b) { return (a.array() * b.array()).sum(); }

constexpr double kTol = 1e-7;

// One input the check perturbs in place, and the gradient the backward wrote for it.
struct FdInput {
  template <class Dense>
  FdInput(Dense& input, const Dense& grad, const char* what = "")
      : x(input.data()), n(input.size()), dx(grad.data()), label(what) {}
  double* x;
  Eigen::Index n;
  const double* dx;
  const char* label;  // appended to the failure message
};

// L = Σ R ⊙ out with `out` written by `forward`: each input's analytic gradient against central differences of L.
void expect_fd_matches(const std::function<void()>& forward, const MatD& out, const MatD& R,
                       std::initializer_list<FdInput> inputs, const std::string& context = "") {
  const auto loss = [&] {
    forward();
    return dot(out, R);
  };
  for (const FdInput& in : inputs) EXPECT_LT(fd_rel_error(loss, in.x, in.n, in.dx), kTol) << context << in.label;
}

TEST(OpsBackward, Embedding) {
  MatD table = rnd(5, 3, 1);
  const std::vector<int> ids = {2, 0, 2, 4};  // id 2 twice: its row collects both gradients
  const MatD R = rnd(4, 3, 2);
  MatD out, dtable = MatD::Zero(5, 3);
  embedding_backward<double>(dtable, R, ids.data(), 4);
  expect_fd_matches([&] { embedding_forward<double>(out, table, ids.data(), 4); }, out, R, {{table, dtable}});
  EXPECT_EQ(dtable.row(1).norm(), 0.0);  // unused rows get nothing
}

TEST(OpsBackward, RmsNorm) {
  MatD x = rnd(4, 6, 3);
  VecD w = rndv(6, 4, 1.0);
  const MatD R = rnd(4, 6, 5);
  MatD out(4, 6), dx = MatD::Zero(4, 6);
  VecD rstd(4), dw = VecD::Zero(6);
  rmsnorm_rows_forward<double>(out.data(), rstd.data(), x.data(), w.data(), 4, 6, 1e-5f);
  rmsnorm_rows_backward<double>(dx.data(), dw.data(), R.data(), x.data(), w.data(), rstd.data(), 4, 6);
  expect_fd_matches([&] { rmsnorm_rows_forward<double>(out.data(), rstd.data(), x.data(), w.data(), 4, 6, 1e-5f); },
                    out, R, {{x, dx}, {w, dw}});
}

TEST(OpsBackward, RmsNormFloatForwardMatchesInferenceKernel) {
  const MatD xd = rnd(5, 8, 6);
  const Mat x = xd.cast<float>();
  const Vec w = rndv(8, 7, 1.0).cast<float>();
  Mat ref, out(5, 8);
  Vec rstd(5);
  rmsnorm_forward(ref, x, w, 1e-5f);
  rmsnorm_rows_forward<float>(out.data(), rstd.data(), x.data(), w.data(), 5, 8, 1e-5f);
  EXPECT_EQ(max_abs_diff(out, ref), 0.0f);
}

TEST(OpsBackward, LayerNorm) {
  MatD x = rnd(4, 6, 8, 2.0);
  x.array() += 3.0;  // a large mean: the x̂ terms matter
  VecD w = rndv(6, 9, 1.0), b = rndv(6, 10);
  const MatD R = rnd(4, 6, 11);
  MatD out(4, 6), dx = MatD::Zero(4, 6);
  VecD mean(4), rstd(4), dw = VecD::Zero(6), db = VecD::Zero(6);
  layernorm_rows_forward<double>(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 4, 6, 1e-5f);
  layernorm_rows_backward<double>(dx.data(), dw.data(), db.data(), R.data(), x.data(), w.data(), mean.data(),
                                  rstd.data(), 4, 6);
  expect_fd_matches(
      [&] {
        layernorm_rows_forward<double>(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 4, 6, 1e-5f);
      },
      out, R, {{x, dx}, {w, dw}, {b, db}});
}

TEST(OpsBackward, Linear) {
  MatD x = rnd(5, 4, 12), w = rnd(3, 4, 13);
  const MatD R = rnd(5, 3, 14);
  MatD out, dx = MatD::Zero(5, 4), dw = MatD::Zero(3, 4);
  linear_forward<double>(out, x, w);
  EXPECT_LT((out - x * w.transpose()).cwiseAbs().maxCoeff(), 1e-14);
  linear_backward<double>(&dx, dw, R, x, w);
  expect_fd_matches([&] { linear_forward<double>(out, x, w); }, out, R, {{x, dx}, {w, dw}});
}

TEST(OpsBackward, Residual) {
  MatD a = rnd(3, 4, 15), b = rnd(3, 4, 16);
  const MatD R = rnd(3, 4, 17);
  MatD out, da = MatD::Zero(3, 4), db = MatD::Zero(3, 4);
  residual_backward<double>(&da, &db, R);
  expect_fd_matches([&] { residual_forward<double>(out, a, b); }, out, R, {{a, da}, {b, db}});
}

TEST(OpsBackward, RopeBothConventions) {
  const int N = 5, H = 2, D = 6;
  Mat cs, sn;
  rope_cos_sin(cs, sn, rope_frequencies(D, 100.0), 3, N);
  const MatD c = cs.cast<double>(), s = sn.cast<double>();
  for (RopeConvention conv : {RopeConvention::HalfSplit, RopeConvention::Interleaved}) {
    MatD x = rnd(N, H * D, 18);
    const MatD R = rnd(N, H * D, 19);
    MatD out, dx = MatD::Zero(N, H * D);
    rope_backward<double>(dx, R, c, s, conv, N, H, D);
    expect_fd_matches([&] { rope_forward<double>(out, x, c, s, conv, N, H, D); }, out, R, {{x, dx}}, to_string(conv));
    // Float forward = the inference kernel; backward = rotation by −angle (inverse of the forward rotation).
    const Mat xf = x.cast<float>();
    Mat ref, got, back = Mat::Zero(N, H * D);
    rope_apply(ref, xf, cs, sn, conv, N, H, D);
    rope_forward<float>(got, xf, cs, sn, conv, N, H, D);
    EXPECT_EQ(max_abs_diff(got, ref), 0.0f);
    rope_backward<float>(back, got, cs, sn, conv, N, H, D);
    EXPECT_LT(max_rel_diff(back, xf), 1e-6f);
  }
}

TEST(OpsBackward, Activations) {
  for (Activation a : {Activation::ReLU, Activation::GeluExact, Activation::GeluTanh, Activation::SiLU}) {
    MatD x = rnd(4, 5, 20, 3.0);
    const MatD R = rnd(4, 5, 21);
    MatD out, dx = MatD::Zero(4, 5);
    activation_backward<double>(dx, R, x, a);
    expect_fd_matches([&] { activation_forward_t<double>(out, x, a); }, out, R, {{x, dx}}, to_string(a));
    for (float v : {-2.5f, -0.3f, 0.0f, 0.7f, 3.0f})
      EXPECT_EQ(activation_value<float>(a, v), activate(a, v)) << to_string(a) << " at " << v;
  }
}

TEST(OpsBackward, GluVariants) {
  for (Activation a : {Activation::SiLU, Activation::GeluExact, Activation::GeluTanh, Activation::ReLU}) {
    MatD gate = rnd(3, 5, 22, 2.0), up = rnd(3, 5, 23);
    const MatD R = rnd(3, 5, 24);
    MatD out, dgate = MatD::Zero(3, 5), dup = MatD::Zero(3, 5);
    glu_backward<double>(dgate, dup, R, gate, up, a);
    expect_fd_matches([&] { glu_forward<double>(out, gate, up, a); }, out, R, {{gate, dgate}, {up, dup}}, to_string(a));
  }
}

// The SIMD float kernels against the scalar reference activate() (and their backward against the double one).
TEST(OpsBackward, FloatActivationKernelsMatchScalarReference) {
  const MatD xd = rnd(7, 45, 40, 6.0), ud = rnd(7, 45, 41), gd = rnd(7, 45, 42);  // 315 values: a partial chunk too
  const Mat x = xd.cast<float>(), u = ud.cast<float>(), g = gd.cast<float>();
  for (Activation a : {Activation::ReLU, Activation::GeluExact, Activation::GeluTanh, Activation::SiLU}) {
    Mat out, glu, ref(x.rows(), x.cols()), ref_glu(x.rows(), x.cols());
    activation_forward_t<float>(out, x, a);
    glu_forward<float>(glu, x, u, a);
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      ref.data()[i] = activate(a, x.data()[i]);
      ref_glu.data()[i] = activate(a, x.data()[i]) * u.data()[i];
    }
    EXPECT_LT(max_rel_diff(out, ref), 1e-6f) << to_string(a);
    EXPECT_LT(max_rel_diff(glu, ref_glu), 1e-6f) << to_string(a);
    Mat dx = Mat::Zero(x.rows(), x.cols()), dg = dx, du = dx;
    MatD dxd = MatD::Zero(x.rows(), x.cols()), dgd = dxd, dud = dxd;
    activation_backward<float>(dx, g, x, a);
    activation_backward<double>(dxd, gd, x.cast<double>(), a);
    glu_backward<float>(dg, du, g, x, u, a);
    glu_backward<double>(dgd, dud, gd, x.cast<double>(), u.cast<double>(), a);
    EXPECT_LT(max_rel_diff(dx, dxd.cast<float>()), 1e-5f) << to_string(a);
    EXPECT_LT(max_rel_diff(dg, dgd.cast<float>()), 1e-5f) << to_string(a);
    EXPECT_LT(max_rel_diff(du, dud.cast<float>()), 1e-5f) << to_string(a);
    // accumulate = false overwrites: the same values as accumulating into zeros.
    Mat dx2 = Mat::Constant(x.rows(), x.cols(), 7.0f);
    activation_backward<float>(dx2, g, x, a, false);
    EXPECT_EQ(max_abs_diff(dx2, dx), 0.0f) << to_string(a);
  }
}

TEST(OpsBackward, CrossEntropyIgnoresMinusOne) {
  MatD logits = rnd(4, 7, 25, 3.0);
  logits(2, 3) = 40.0;  // a large logit: log-sum-exp must not overflow
  const std::vector<int> targets = {3, -1, 0, 6};
  MatD probs, dl = MatD::Zero(4, 7);
  const double l0 = cross_entropy_forward<double>(probs, logits, targets.data(), 4);
  cross_entropy_backward<double>(dl, probs, targets.data(), 4);
  // Reference: mean over the three rows with a target of log Σ exp − logit[target].
  double ref = 0;
  for (int i : {0, 2, 3}) {
    const double m = logits.row(i).maxCoeff();
    ref += std::log((logits.row(i).array() - m).exp().sum()) + m - logits(i, targets[static_cast<size_t>(i)]);
  }
  EXPECT_NEAR(l0, ref / 3, 1e-12);
  EXPECT_EQ(dl.row(1).norm(), 0.0);
  // accumulate = false overwrites (the ignored row too): the same bits as accumulating into zeros.
  MatD dl2 = MatD::Constant(4, 7, 7.0);
  cross_entropy_backward<double>(dl2, probs, targets.data(), 4, false);
  EXPECT_EQ((dl2 - dl).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(dl2.row(1).norm(), 0.0);
  auto loss = [&] { return cross_entropy_forward<double>(probs, logits, targets.data(), 4); };
  EXPECT_LT(fd_rel_error(loss, logits.data(), logits.size(), dl.data()), kTol);
}

TEST(OpsBackward, CrossEntropyFloatMatchesDoubleOverAVocabulary) {
  // The float path has its own vectorised exp (a polynomial, about 1 ulp) and a 16-lane row sum: over a
  // vocabulary-sized row, with logits spread over ±12 and rows far below their maximum (e^−100: under float's
  // range, clamped), its probabilities and loss agree with the double path to float precision.
  const int N = 5, V = 1844;
  MatD logits = rnd(N, V, 31, 12.0);
  logits(1, 7) = 100.0;   // every other term of row 1 is below e^−87
  logits(3, 0) = -300.0;  // a term far under the row's maximum
  const std::vector<int> targets = {3, 7, -1, 0, V - 1};
  MatD probs_d;
  const double loss_d = cross_entropy_forward<double>(probs_d, logits, targets.data(), N);
  Mat probs_f;
  const Mat logits_f = logits.cast<float>();
  const double loss_f = cross_entropy_forward<float>(probs_f, logits_f, targets.data(), N);
  EXPECT_NEAR(loss_f, loss_d, 1e-6 * std::abs(loss_d));
  for (int i : {0, 1, 3, 4}) {
    EXPECT_NEAR(probs_f.row(i).cast<double>().sum(), 1.0, 1e-5) << "row " << i;
    for (int v = 0; v < V; ++v)
      ASSERT_NEAR(probs_f(i, v), probs_d(i, v), 2e-6 * probs_d(i, v) + 1e-37) << "row " << i << " token " << v;
  }
  EXPECT_FLOAT_EQ(probs_f(1, 7), 1.0f);
}

// [SECTION] attention

struct AttnCase {
  const char* name;
  ScaleMode scale;
  float softcap;
  int H, KV;
  Mask mask;
  AttentionBias::Kind bias;
};

void check_attention(const AttnCase& k, const MatB* mask_matrix = nullptr) {
  const int B = 2, T = 6, D = 4;
  AttentionOptions opt;
  opt.scale_mode = k.scale;
  opt.softcap = k.softcap;
  opt.mask = &k.mask;
  opt.mask_matrix = mask_matrix;
  Mat dense;
  if (k.bias == AttentionBias::Kind::Alibi) {
    opt.bias.kind = k.bias;
    opt.bias.slopes = alibi_slopes(k.H);
  } else if (k.bias == AttentionBias::Kind::Dense) {
    dense = rnd(k.H * T, T, 26).cast<float>();
    opt.bias.kind = k.bias;
    opt.bias.dense = &dense;
  }
  MatD q = rnd(B * T, k.H * D, 27, 1.5), kk = rnd(B * T, k.KV * D, 28, 1.5), v = rnd(B * T, k.KV * D, 29);
  const MatD R = rnd(B * T, k.H * D, 30);
  MatD out, capped, probs, scratch;
  MatD dq = MatD::Zero(B * T, k.H * D), dk = MatD::Zero(B * T, k.KV * D), dv = MatD::Zero(B * T, k.KV * D);
  attention_batched_forward<double>(out, capped, probs, q, kk, v, opt, B, T, k.H, k.KV, D);
  attention_batched_backward<double>(dq, dk, dv, scratch, R, capped, probs, q, kk, v, opt, B, T, k.H, k.KV, D);
  expect_fd_matches([&] { attention_batched_forward<double>(out, capped, probs, q, kk, v, opt, B, T, k.H, k.KV, D); },
                    out, R, {{q, dq, " dq"}, {kk, dk, " dk"}, {v, dv, " dv"}}, k.name);

  // The float kernel equals the inference reference on each sequence, and its backward the double one.
  const Mat qf = q.cast<float>(), kf = kk.cast<float>(), vf = v.cast<float>();
  Mat of, cf, pf, sf;
  attention_batched_forward<float>(of, cf, pf, qf, kf, vf, opt, B, T, k.H, k.KV, D);
  for (int b = 0; b < B; ++b) {
    Mat ref, sc, pr;
    std::vector<char> empty;
    attention_forward(ref, sc, pr, empty, Mat(qf.middleRows(b * T, T)), Mat(kf.middleRows(b * T, T)),
                      Mat(vf.middleRows(b * T, T)), opt, k.H, k.KV, D);
    EXPECT_LT(max_rel_diff(Mat(of.middleRows(b * T, T)), ref), 1e-5f) << k.name;
    EXPECT_LT(max_rel_diff(Mat(pf.middleRows(b * k.H * T, k.H * T)), pr), 1e-5f) << k.name;
  }
  Mat dqf = Mat::Zero(B * T, k.H * D), dkf = Mat::Zero(B * T, k.KV * D), dvf = Mat::Zero(B * T, k.KV * D);
  attention_batched_backward<float>(dqf, dkf, dvf, sf, R.cast<float>(), cf, pf, qf, kf, vf, opt, B, T, k.H, k.KV, D);
  EXPECT_LT(max_rel_diff(dqf, dq.cast<float>()), 1e-4f) << k.name;
  EXPECT_LT(max_rel_diff(dkf, dk.cast<float>()), 1e-4f) << k.name;
  EXPECT_LT(max_rel_diff(dvf, dv.cast<float>()), 1e-4f) << k.name;
}

TEST(OpsBackward, AttentionCausalMha) {
  check_attention({"causal MHA 1/sqrt(D)", ScaleMode::InvSqrtDk, 0, 2, 2, causal_mask(), AttentionBias::Kind::None});
}
TEST(OpsBackward, AttentionGqaAlibiSliding) {
  check_attention(
      {"GQA + ALiBi + sliding", ScaleMode::InvSqrtDk, 0, 4, 2, sliding_window_mask(3), AttentionBias::Kind::Alibi});
}
TEST(OpsBackward, AttentionMqaSoftcapNoScale) {
  check_attention({"MQA + soft-cap + no scale", ScaleMode::None, 2.0f, 4, 1, causal_mask(), AttentionBias::Kind::None});
}
TEST(OpsBackward, AttentionEveryMaskKind) {
  const std::vector<std::pair<const char*, Mask>> masks = {
      {"bidirectional", bidirectional_mask()},
      {"prefix-LM", prefix_lm_mask(3)},
      {"padding", mask_and({causal_mask(), padding_mask(2, true, 6)})},
      {"document", document_mask({2, 3})},
      {"dilated", mask_and({causal_mask(), dilated_mask(2)})},
      {"sink", mask_or({sliding_window_mask(2), global_mask(1)})}};
  for (const auto& [name, m] : masks) check_attention({name, ScaleMode::InvDk, 0, 2, 1, m, AttentionBias::Kind::Dense});
}
TEST(OpsBackward, AttentionEmptyRowsGetNoGradientAndNoNaN) {
  // Left padding of 2 with a causal mask: queries 0 and 1 see no key at all.
  MatB allowed;
  materialize_mask(allowed, padding_mask(2, true, 6), 6, 6);
  check_attention({"empty rows", ScaleMode::InvSqrtDk, 0, 2, 2, causal_mask(), AttentionBias::Kind::None}, &allowed);
}

TEST(OpsBackward, QkNorm) {
  const int N = 3, n = 2, D = 4;
  MatD x = rnd(N, n * D, 31);
  VecD w = rndv(D, 32, 1.0);
  const MatD R = rnd(N, n * D, 33);
  MatD out, dx = MatD::Zero(N, n * D);
  VecD rstd, dw = VecD::Zero(D);
  qk_norm_forward<double>(out, rstd, x, w, 1e-6f, n, D);
  qk_norm_backward<double>(dx, dw, R, x, w, rstd, n, D);
  expect_fd_matches([&] { qk_norm_forward<double>(out, rstd, x, w, 1e-6f, n, D); }, out, R, {{x, dx}, {w, dw}});
  // Float forward = the inference helper.
  const Mat xf = x.cast<float>();
  const Vec wf = w.cast<float>();
  Mat ref, got;
  Vec rf;
  qk_norm_heads(ref, xf, &wf, 1e-6f, n, D);
  qk_norm_forward<float>(got, rf, xf, wf, 1e-6f, n, D);
  EXPECT_EQ(max_abs_diff(got, ref), 0.0f);
}

}  // namespace
}  // namespace tw
