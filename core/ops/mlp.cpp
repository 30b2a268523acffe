#include "core/ops/mlp.h"
#include "core/base/i18n.h"  // N_: names translated where shown

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include "core/enum_names.h"
#include "core/ops/exp_kernel.h"
#include "core/ops/linear.h"

namespace tw {

namespace {
constexpr const char* kActivationNames[] = {"ReLU", "GELU (erf)", "GELU (tanh)", "SiLU"};
constexpr const char* kMlpKindNames[] = {N_("plain"), "SwiGLU", "GeGLU", "ReGLU"};
static_assert(names_every(kActivationNames, Activation::SiLU));
static_assert(names_every(kMlpKindNames, MlpKind::ReGLU));
}  // namespace

const char* to_string(Activation a) { return enum_name(kActivationNames, a); }
const char* to_string(MlpKind k) { return enum_name(kMlpKindNames, k); }

float activate(Activation a, float x) {
  switch (a) {
    case Activation::ReLU: return x > 0.0f ? x : 0.0f;
    case Activation::GeluExact: return 0.5f * x * (1.0f + std::erf(x * static_cast<float>(std::numbers::sqrt2 / 2)));
    case Activation::GeluTanh: {
      const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
      return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
    }
    case Activation::SiLU: return x / (1.0f + std::exp(-x));
  }
  return x;
}

void activation_forward(Mat& out, const Mat& x, Activation a) {
  // x, out: (T, F)
  activation_forward_t(out, x, a);
}

namespace {
// silu(x)·u of one value (inlined into each clone of the row below).
[[gnu::always_inline]] inline float silu_glu(float x, float u) {
  const float e = exp_nonpositive(-std::abs(x));
  const float sig = (x >= 0.0f ? 1.0f : e) / (1.0f + e);
  return x * sig * u;
}

// out = silu(g) ⊙ u = g·σ(g)·u over n floats, SwiGLU's one pass. σ(g) = 1 / (1 + e^−|g|) for g ≥ 0 and
// e^−|g| / (1 + e^−|g|) below, so the exponent is never positive (exp_nonpositive) and nothing overflows. Cloned
// for AVX-512 / AVX2 / the baseline like the exp rows (core/ops/exp_kernel.h): the same bits on each. Training
// keeps glu_forward (Eigen's exp), whose bits the shipped checkpoints' hashes pin (assets/models/README.md):
// moving it onto this loop means retraining them.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void silu_glu_row(float* __restrict out, const float* __restrict g, const float* __restrict u, Eigen::Index n) {
  constexpr Eigen::Index kBlock = 64;  // unrolled into independent vectors, as exp_row does
  Eigen::Index i = 0;
  for (; i + kBlock <= n; i += kBlock)
#pragma GCC unroll 64
    for (Eigen::Index j = 0; j < kBlock; ++j) out[i + j] = silu_glu(g[i + j], u[i + j]);
  for (; i < n; ++i) out[i] = silu_glu(g[i], u[i]);
}
}  // namespace

void swiglu_forward(Mat& hidden, const Mat& gate, const Mat& up) {
  // gate, up, hidden: (T, F)
  assert(gate.rows() == up.rows() && gate.cols() == up.cols() && &hidden != &gate && &hidden != &up);
  hidden.resize(gate.rows(), gate.cols());
  silu_glu_row(hidden.data(), gate.data(), up.data(), hidden.size());
}

int llama_hidden_size(int dim, int multiple_of, double ffn_dim_multiplier) {
  // Meta's reference computes int(2 * hidden / 3) with hidden = 4 * dim; integer arithmetic gives the same floor.
  long long h = (2LL * 4LL * dim) / 3;
  if (ffn_dim_multiplier != 1.0) h = static_cast<long long>(ffn_dim_multiplier * static_cast<double>(h));
  const long long m = multiple_of;
  return static_cast<int>(m * ((h + m - 1) / m));
}

}  // namespace tw

// [SECTION] training kernels
namespace tw {

template <class S>
S activation_value(Activation a, S x) {
  switch (a) {
    case Activation::ReLU: return x > S(0) ? x : S(0);
    case Activation::GeluExact: return S(0.5) * x * (S(1) + std::erf(x * static_cast<S>(std::numbers::sqrt2 / 2)));
    case Activation::GeluTanh: {
      const S k = static_cast<S>(std::sqrt(2.0 / std::numbers::pi));
      return S(0.5) * x * (S(1) + std::tanh(k * (x + S(0.044715) * x * x * x)));
    }
    case Activation::SiLU: return x / (S(1) + std::exp(-x));
  }
  return x;
}

template <class S>
S activation_derivative(Activation a, S x) {
  switch (a) {
    case Activation::ReLU: return x > S(0) ? S(1) : S(0);
    case Activation::GeluExact: {
      const S cdf = S(0.5) * (S(1) + std::erf(x * static_cast<S>(std::numbers::sqrt2 / 2)));
      const S pdf = std::exp(S(-0.5) * x * x) * static_cast<S>(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
      return cdf + x * pdf;
    }
    case Activation::GeluTanh: {
      const S k = static_cast<S>(std::sqrt(2.0 / std::numbers::pi));
      const S t = std::tanh(k * (x + S(0.044715) * x * x * x));
      return S(0.5) * (S(1) + t) + S(0.5) * x * (S(1) - t * t) * k * (S(1) + S(3 * 0.044715) * x * x);
    }
    case Activation::SiLU: {
      const S sig = S(1) / (S(1) + std::exp(-x));
      return sig * (S(1) + x * (S(1) - sig));
    }
  }
  return S(1);
}

// The matrix kernels below work on flat arrays in chunks that stay in L1, with Eigen array expressions so exp and
// tanh run in SIMD packets (std::exp goes one value at a time); GELU (erf) stays scalar, as Eigen has no packet erf.
// The sigmoid of a chunk is computed once and reused by the value and the derivative of SiLU.
namespace {
constexpr Eigen::Index kChunk = 256;
template <class S>
using ArrMap = Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>;
template <class S>
using CArrMap = Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>;

template <class Dst, class E>
void put(Dst&& dst, const E& value, bool accumulate) {
  if (accumulate)
    dst += value;
  else
    dst = value;
}
}  // namespace

template <class S>
void activation_forward_t(MatT<S>& out, const MatT<S>& x, Activation a) {
  // x, out: (N, F)
  if (&out != &x) out.resize(x.rows(), x.cols());
  const Eigen::Index n = x.size();
  for (Eigen::Index i0 = 0; i0 < n; i0 += kChunk) {  // one chunk per work item
    const Eigen::Index m = std::min(kChunk, n - i0);
    CArrMap<S> X(x.data() + i0, m);
    ArrMap<S> O(out.data() + i0, m);
    switch (a) {
      case Activation::ReLU: O = X.max(S(0)); break;
      case Activation::SiLU: O = X / (S(1) + (-X).exp()); break;
      case Activation::GeluTanh: {
        const S k = static_cast<S>(std::sqrt(2.0 / std::numbers::pi));
        O = S(0.5) * X * (S(1) + (k * (X + S(0.044715) * X.cube())).tanh());
        break;
      }
      case Activation::GeluExact:
        for (Eigen::Index i = 0; i < m; ++i) O[i] = activation_value(a, X[i]);
        break;
    }
  }
}

template <class S>
void activation_backward(MatT<S>& dx, const MatT<S>& dout, const MatT<S>& x, Activation a, bool accumulate) {
  // dx, dout, x: (N, F)
  const Eigen::Index n = x.size();
  Eigen::Array<S, kChunk, 1> sig;
  for (Eigen::Index i0 = 0; i0 < n; i0 += kChunk) {
    const Eigen::Index m = std::min(kChunk, n - i0);
    CArrMap<S> X(x.data() + i0, m), G(dout.data() + i0, m);
    ArrMap<S> DX(dx.data() + i0, m);
    switch (a) {
      case Activation::ReLU: put(DX, (X > S(0)).select(G, S(0)), accumulate); break;
      case Activation::SiLU:
        sig.head(m) = (S(1) + (-X).exp()).inverse();
        put(DX, sig.head(m) * (S(1) + X * (S(1) - sig.head(m))) * G, accumulate);
        break;
      default:
        for (Eigen::Index i = 0; i < m; ++i) {
          const S d = activation_derivative(a, X[i]) * G[i];
          DX[i] = accumulate ? DX[i] + d : d;
        }
        break;
    }
  }
}

template <class S>
void glu_forward(MatT<S>& out, const MatT<S>& gate, const MatT<S>& up, Activation act) {
  // gate, up, out: (N, F)
  out.resize(gate.rows(), gate.cols());
  const Eigen::Index n = gate.size();
  for (Eigen::Index i0 = 0; i0 < n; i0 += kChunk) {
    const Eigen::Index m = std::min(kChunk, n - i0);
    CArrMap<S> Gt(gate.data() + i0, m), U(up.data() + i0, m);
    ArrMap<S> O(out.data() + i0, m);
    switch (act) {
      case Activation::ReLU: O = Gt.max(S(0)) * U; break;
      case Activation::SiLU: O = Gt / (S(1) + (-Gt).exp()) * U; break;
      default:
        for (Eigen::Index i = 0; i < m; ++i) O[i] = activation_value(act, Gt[i]) * U[i];
        break;
    }
  }
}

template <class S>
void glu_backward(MatT<S>& dgate, MatT<S>& dup, const MatT<S>& dout, const MatT<S>& gate, const MatT<S>& up,
                  Activation act, bool accumulate) {
  // dgate, dup, dout, gate, up: (N, F)
  const Eigen::Index n = gate.size();
  Eigen::Array<S, kChunk, 1> sig;
  for (Eigen::Index i0 = 0; i0 < n; i0 += kChunk) {
    const Eigen::Index m = std::min(kChunk, n - i0);
    CArrMap<S> Gt(gate.data() + i0, m), U(up.data() + i0, m), D(dout.data() + i0, m);
    ArrMap<S> DG(dgate.data() + i0, m), DU(dup.data() + i0, m);
    switch (act) {
      case Activation::ReLU:
        put(DG, (Gt > S(0)).select(U * D, S(0)), accumulate);
        put(DU, Gt.max(S(0)) * D, accumulate);
        break;
      case Activation::SiLU:
        sig.head(m) = (S(1) + (-Gt).exp()).inverse();
        put(DG, sig.head(m) * (S(1) + Gt * (S(1) - sig.head(m))) * U * D, accumulate);
        put(DU, Gt * sig.head(m) * D, accumulate);
        break;
      default:
        for (Eigen::Index i = 0; i < m; ++i) {
          const S g = Gt[i], d = D[i];
          const S dg = activation_derivative(act, g) * U[i] * d, du = activation_value(act, g) * d;
          DG[i] = accumulate ? DG[i] + dg : dg;
          DU[i] = accumulate ? DU[i] + du : du;
        }
        break;
    }
  }
}

#define TW_MLP_INSTANTIATE(S)                                                                       \
  template S activation_value<S>(Activation, S);                                                    \
  template S activation_derivative<S>(Activation, S);                                               \
  template void activation_forward_t<S>(MatT<S>&, const MatT<S>&, Activation);                      \
  template void activation_backward<S>(MatT<S>&, const MatT<S>&, const MatT<S>&, Activation, bool); \
  template void glu_forward<S>(MatT<S>&, const MatT<S>&, const MatT<S>&, Activation);               \
  template void glu_backward<S>(MatT<S>&, MatT<S>&, const MatT<S>&, const MatT<S>&, const MatT<S>&, Activation, bool);
TW_MLP_INSTANTIATE(float)
TW_MLP_INSTANTIATE(double)
#undef TW_MLP_INSTANTIATE

}  // namespace tw
