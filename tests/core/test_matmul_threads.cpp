#include "core/matmul_threads.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/compare.h"
#include "core/tensor.h"

namespace tw {
namespace {

// Reference product in double, one multiply-add at a time: independent of Eigen's kernels and of OpenBLAS.
Mat naive_product(const Mat& a, const Mat& b) {
  Mat c(a.rows(), b.cols());
  for (int i = 0; i < a.rows(); ++i)
    for (int j = 0; j < b.cols(); ++j) {
      double sum = 0;
      for (int k = 0; k < a.cols(); ++k) sum += static_cast<double>(a(i, k)) * b(k, j);
      c(i, j) = static_cast<float>(sum);
    }
  return c;
}

Mat filled(int rows, int cols, float phase) {
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = std::sin(0.37f * static_cast<float>(i) + 0.11f * j + phase);
  return m;
}

class MatmulThreads : public ::testing::Test {
 protected:
  void TearDown() override { set_matmul_threads(1); }
};

TEST_F(MatmulThreads, RejectsZeroAndNegativeCounts) {
  ASSERT_TRUE(set_matmul_threads(1));
  EXPECT_FALSE(set_matmul_threads(0));
  EXPECT_FALSE(set_matmul_threads(-3));
  EXPECT_EQ(matmul_threads(), 1);  // a refused count changes nothing
}

TEST_F(MatmulThreads, NamesTheBackend) { EXPECT_FALSE(matmul_backend().empty()); }

// Float products summed in another order (OpenBLAS's kernel for this CPU, its blocking for this thread count) agree
// with each other to rounding of the result's magnitude: K = 128..256 terms of float rounding stay far below 1e-5
// relative, while a wrong product (a missed term, a transposed operand) is off by order 1.
constexpr float kRelTol = 1e-5f;

// The shapes of the forward pass (T×C · (F×C)ᵀ, scores Q·Kᵀ, the vocabulary projection) are large enough that a
// TW_BLAS build hands them to OpenBLAS; each must still equal the plain sum.
TEST_F(MatmulThreads, LargeProductsEqualTheNaiveSum) {
  ASSERT_TRUE(set_matmul_threads(1));
  const Mat x = filled(96, 128, 0.0f), w = filled(200, 128, 1.0f), v = filled(128, 40, 2.0f);
  const Mat xw_t = x * w.transpose();  // [96, 200]: a linear layer
  EXPECT_LE(max_rel_diff(xw_t, naive_product(x, Mat(w.transpose()))), kRelTol);
  const Mat xv = x * v;  // [96, 40]
  EXPECT_LE(max_rel_diff(xv, naive_product(x, v)), kRelTol);
  const RowVec row = x.row(5) * w.transpose();  // [1, 200]: one decoding step (matrix-vector)
  EXPECT_LE(max_rel_diff(Mat(row), naive_product(Mat(x.row(5)), Mat(w.transpose()))), kRelTol);
}

TEST_F(MatmulThreads, TwoThreadsGiveTheOneThreadResult) {
  const Mat x = filled(256, 256, 0.5f), w = filled(768, 256, 1.5f);
  ASSERT_TRUE(set_matmul_threads(1));
  const Mat one = x * w.transpose();
  if (!set_matmul_threads(2)) GTEST_SKIP() << "this build multiplies on one thread: " << matmul_backend();
  EXPECT_EQ(matmul_threads(), 2);
  const Mat two = x * w.transpose();
  EXPECT_LE(max_rel_diff(two, one), kRelTol);
}

#ifdef TW_HAVE_OPENBLAS
int thread_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// An idle OpenBLAS worker spins for a while before it sleeps, so one thread must leave none running; asking for
// two again restarts them and still multiplies correctly.
TEST_F(MatmulThreads, OneThreadStopsTheWorkersAndTwoRestartsThem) {
  const Mat x = filled(256, 256, 0.5f), w = filled(768, 256, 1.5f);
  if (!set_matmul_threads(2)) GTEST_SKIP() << "this build multiplies on one thread: " << matmul_backend();
  const Mat first = x * w.transpose();
  const int with_workers = thread_count();
  ASSERT_TRUE(set_matmul_threads(1));
  EXPECT_LT(thread_count(), with_workers);
  ASSERT_TRUE(set_matmul_threads(2));
  EXPECT_EQ(thread_count(), with_workers);
  EXPECT_LE(max_rel_diff(Mat(x * w.transpose()), first), kRelTol);
}
#endif

}  // namespace
}  // namespace tw
