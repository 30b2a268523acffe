#pragma once
// Tensor aliases shared by every core op.
//
// Key used in shape comments throughout core/:
//   T = time (tokens), C = channels (model dim), H = query heads, KV = key/value heads,
//   D = head dim, V = vocabulary, F = MLP hidden size, R = LoRA rank.
// Activations are row-major float32 matrices, one row per token: (T, C).
// Attention maps (H, T, T) are stored as H row-major (T, T) blocks stacked vertically: (H*T, T).

#include <Eigen/Core>
#include <cstdint>
#include <limits>

namespace tw {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::Matrix<float, Eigen::Dynamic, 1>;
using RowVec = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using VecD = Eigen::Matrix<double, Eigen::Dynamic, 1>;
using MatB = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Scalar-generic forms: the training kernels are templates instantiated for float (training) and double
// (finite-difference gradient checks), so one kernel is both the fast path and the checked path.
template <class S>
using MatT = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using VecT = Eigen::Matrix<S, Eigen::Dynamic, 1>;

using MatMap = Eigen::Map<Mat>;
using ConstMatMap = Eigen::Map<const Mat>;

inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

}  // namespace tw
