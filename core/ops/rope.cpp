#include "core/ops/rope.h"
#include "core/base/i18n.h"  // N_: names translated where shown

#include <cassert>
#include <cmath>
#include <numbers>

#include "core/base/i18n.h"
#include "core/enum_names.h"

namespace tw {

std::string validate(const RopeConfig& cfg) {
  if (cfg.head_dim < 2 || cfg.head_dim % 2 != 0)
    return subst(tr("RoPE head_dim must be an even number ≥ 2 (got {0})"), {std::to_string(cfg.head_dim)});
  if (!(cfg.base > 1.0) || !std::isfinite(cfg.base)) return tr("RoPE base must be a finite number > 1");
  if (cfg.scaling == RopeScaling::None) return "";
  if (!(cfg.factor > 0.0) || !std::isfinite(cfg.factor)) return tr("RoPE scaling factor must be a finite number > 0");
  if (cfg.scaling == RopeScaling::NtkAware || cfg.scaling == RopeScaling::DynamicNtk) {
    // The exponent D/(D−2) is undefined for D = 2.
    if (cfg.head_dim < 4) return tr("NTK scaling needs head_dim ≥ 4 (the exponent is $D/(D-2)$)");
  }
  if (cfg.scaling == RopeScaling::DynamicNtk || cfg.scaling == RopeScaling::Llama3) {
    if (cfg.original_context < 1) return tr("RoPE original (trained) context length must be ≥ 1");
  }
  if (cfg.scaling == RopeScaling::Llama3) {
    if (!(cfg.low_freq_factor > 0.0)) return tr("Llama 3 low_freq_factor must be > 0");
    if (!(cfg.high_freq_factor > cfg.low_freq_factor))
      return tr("Llama 3 high_freq_factor must be larger than low_freq_factor");
  }
  return "";
}

namespace {
constexpr const char* kRopeConventionNames[] = {N_("half-split (HF rotate_half)"), N_("interleaved (Meta)")};
constexpr const char* kRopeScalingNames[] = {N_("none"), N_("linear"), "NTK-aware", N_("dynamic NTK"), "Llama 3"};
static_assert(names_every(kRopeConventionNames, RopeConvention::Interleaved));
static_assert(names_every(kRopeScalingNames, RopeScaling::Llama3));
}  // namespace

const char* to_string(RopeConvention c) { return enum_name(kRopeConventionNames, c); }
const char* to_string(RopeScaling s) { return enum_name(kRopeScalingNames, s); }

std::vector<double> rope_frequencies(int head_dim, double base) {
  const int half = head_dim / 2;
  std::vector<double> theta(static_cast<size_t>(half));
  for (int k = 0; k < half; ++k) theta[static_cast<size_t>(k)] = std::pow(base, -2.0 * k / head_dim);
  return theta;
}

double rope_effective_base(const RopeConfig& cfg, int seq_len) {
  const double d = cfg.head_dim;
  if (cfg.scaling == RopeScaling::NtkAware) return cfg.base * std::pow(cfg.factor, d / (d - 2.0));
  if (cfg.scaling == RopeScaling::DynamicNtk) {
    // HF: seq_len is only used when it exceeds the trained length, so the base is unchanged until then.
    const double L = cfg.original_context;
    const double s = seq_len > cfg.original_context ? static_cast<double>(seq_len) : L;
    return cfg.base * std::pow(cfg.factor * s / L - (cfg.factor - 1.0), d / (d - 2.0));
  }
  return cfg.base;
}

std::vector<double> rope_scaled_frequencies(const RopeConfig& cfg, int seq_len) {
  std::vector<double> theta = rope_frequencies(cfg.head_dim, rope_effective_base(cfg, seq_len));
  if (cfg.scaling == RopeScaling::Linear) {
    for (double& t : theta) t /= cfg.factor;
  } else if (cfg.scaling == RopeScaling::Llama3) {
    const double L = cfg.original_context;
    const double low_freq_wavelen = L / cfg.low_freq_factor;    // longer than this: divide by factor
    const double high_freq_wavelen = L / cfg.high_freq_factor;  // shorter than this: keep
    for (double& t : theta) {
      const double wavelen = 2.0 * std::numbers::pi / t;
      if (wavelen < high_freq_wavelen) continue;
      if (wavelen > low_freq_wavelen) {
        t /= cfg.factor;
      } else {
        const double smooth = (L / wavelen - cfg.low_freq_factor) / (cfg.high_freq_factor - cfg.low_freq_factor);
        t = (1.0 - smooth) * t / cfg.factor + smooth * t;
      }
    }
  }
  return theta;
}

void rope_cos_sin(Mat& cos, Mat& sin, const std::vector<double>& theta, int pos_offset, int T) {
  // theta: (D/2)   cos, sin: (T, D/2)
  const int half = static_cast<int>(theta.size());
  cos.resize(T, half);
  sin.resize(T, half);
  for (int t = 0; t < T; ++t) {
    const double m = static_cast<double>(pos_offset + t);
    for (int k = 0; k < half; ++k) {
      const double angle = m * theta[static_cast<size_t>(k)];
      cos(t, k) = static_cast<float>(std::cos(angle));
      sin(t, k) = static_cast<float>(std::sin(angle));
    }
  }
}

void rope_apply(Mat& out, const Mat& x, const Mat& cos, const Mat& sin, RopeConvention convention, int T, int H,
                int D) {
  // x, out: (T, H*D)   cos, sin: (T, D/2)
  assert(sin.rows() == T && sin.cols() == D / 2);
  rope_forward(out, x, cos, sin, convention, T, H, D);
}

void rope_apply(Mat& out, const Mat& x, const RopeConfig& cfg, int n_heads, int pos_offset) {
  const int T = static_cast<int>(x.rows());
  const std::vector<double> theta = rope_scaled_frequencies(cfg, pos_offset + T);
  Mat cos, sin;
  rope_cos_sin(cos, sin, theta, pos_offset, T);
  rope_apply(out, x, cos, sin, cfg.convention, T, n_heads, cfg.head_dim);
}

std::vector<int> rope_interleaved_to_half_split(int D) {
  const int half = D / 2;
  std::vector<int> perm(static_cast<size_t>(D));
  for (int k = 0; k < half; ++k) {
    perm[static_cast<size_t>(k)] = 2 * k;
    perm[static_cast<size_t>(k + half)] = 2 * k + 1;
  }
  return perm;
}

void permute_head_columns(Mat& out, const Mat& x, const std::vector<int>& perm, int H, int D) {
  // x, out: (T, H*D)   perm: (D)
  assert(x.cols() == H * D && static_cast<int>(perm.size()) == D && &out != &x);
  out.resize(x.rows(), x.cols());
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < D; ++i) out.col(h * D + i) = x.col(h * D + perm[static_cast<size_t>(i)]);
}

void permute_head_rows(Mat& out, const Mat& w, const std::vector<int>& perm, int H, int D) {
  // w, out: (H*D, C)   perm: (D)
  assert(w.rows() == H * D && static_cast<int>(perm.size()) == D && &out != &w);
  out.resize(w.rows(), w.cols());
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < D; ++i) out.row(h * D + i) = w.row(h * D + perm[static_cast<size_t>(i)]);
}

}  // namespace tw

// [SECTION] training kernels
namespace tw {

namespace {

// The one rotation kernel: every pair (a, b) of every (row, head) becomes R(direction·angle)·(a, b) with
// R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]. The forward turns by +angle; the backward by −angle, since the
// transpose of a rotation is the rotation back. Accumulate adds into out (dx +=) instead of overwriting it.
//   in, out: (N, H*D)   cos, sin: (N, D/2). out may alias in (each pair is read before it is written).
template <bool Accumulate, class S>
void rotate_pairs(MatT<S>& out, const MatT<S>& in, const MatT<S>& cos, const MatT<S>& sin, RopeConvention convention,
                  int N, int H, int D, S direction, int R = -1) {
  const int half = (R < 0 ? D : R) / 2;  // pairs rotated per head: all D dims, or the first R
  // Pair k is (k·stride, k·stride + partner): half-split (k, k + D/2) or interleaved (2k, 2k + 1).
  const bool interleaved = convention == RopeConvention::Interleaved;
  const int stride = interleaved ? 2 : 1, partner = interleaved ? 1 : half;
  for (int t = 0; t < N; ++t) {  // one work item per (row, head): a GPU thread block each
    const S* c = cos.data() + static_cast<Eigen::Index>(t) * half;
    const S* s = sin.data() + static_cast<Eigen::Index>(t) * half;
    for (int h = 0; h < H; ++h) {
      const S* xi = in.data() + static_cast<Eigen::Index>(t) * H * D + h * D;
      S* o = out.data() + static_cast<Eigen::Index>(t) * H * D + h * D;
      for (int k = 0; k < half; ++k) {
        const int ia = k * stride, ib = k * stride + partner;
        const S a = xi[ia], b = xi[ib], sk = direction * s[k];  // ±1 · sin is exact
        const S ra = a * c[k] - b * sk, rb = a * sk + b * c[k];
        if constexpr (Accumulate) {
          o[ia] += ra;
          o[ib] += rb;
        } else {
          o[ia] = ra;
          o[ib] = rb;
        }
      }
    }
  }
}

}  // namespace

template <class S>
void rope_forward(MatT<S>& out, const MatT<S>& x, const MatT<S>& cos, const MatT<S>& sin, RopeConvention convention,
                  int N, int H, int D, int R) {
  // x, out: (N, H*D)   cos, sin: (N, R/2), R = D unless partial
  if (R < 0) R = D;
  assert(x.rows() == N && x.cols() == H * D && R % 2 == 0 && R <= D && cos.rows() == N && cos.cols() == R / 2);
  if (R < D && &out != &x)
    out = x;  // the dims past R pass through; the rotation below then runs in place
  else if (&out != &x)
    out.resize(N, H * D);
  rotate_pairs<false>(out, R < D ? out : x, cos, sin, convention, N, H, D, S(1), R);
}

template <class S>
void rope_backward(MatT<S>& dx, const MatT<S>& dout, const MatT<S>& cos, const MatT<S>& sin, RopeConvention convention,
                   int N, int H, int D, int R) {
  // dout, dx: (N, H*D)   cos, sin: (N, R/2), R = D unless partial
  if (R < 0) R = D;
  assert(dout.rows() == N && dout.cols() == H * D && dx.rows() == N && dx.cols() == H * D && R % 2 == 0 && R <= D);
  if (R < D)  // the dims past R passed through: their gradient too
    for (int h = 0; h < H; ++h) dx.middleCols(h * D + R, D - R) += dout.middleCols(h * D + R, D - R);
  rotate_pairs<true>(dx, dout, cos, sin, convention, N, H, D, S(-1), R);
}

template void rope_forward<float>(Mat&, const Mat&, const Mat&, const Mat&, RopeConvention, int, int, int, int);
template void rope_forward<double>(MatD&, const MatD&, const MatD&, const MatD&, RopeConvention, int, int, int, int);
template void rope_backward<float>(Mat&, const Mat&, const Mat&, const Mat&, RopeConvention, int, int, int, int);
template void rope_backward<double>(MatD&, const MatD&, const MatD&, const MatD&, RopeConvention, int, int, int, int);

}  // namespace tw
