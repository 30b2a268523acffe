// The non-GEMM kernels of the untraced forward pass at the Small config's shapes (T = 256, C = 256, F = 768,
// V = 8192, 8 heads of D = 32, attention tiles of 64), each beside the code it replaced, in the same run:
//   BM_AllFinite       Eigen's allFinite (before) vs all_finite (exponent bits, vectorised) on the (T, V) logits
//   BM_SwiGLU          scalar activate() loop (before), glu_forward (training: Eigen exp), swiglu_forward (now)
//   BM_ExpRows         Eigen (p − m).exp() + sum per 64-wide row (before) vs exp_row_inplace, on (64, 64) tiles
//
//   cmake --build build --target bench_forward_kernels && build/bench_forward_kernels --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
// Counters: items_per_second = floats processed One OpenBLAS thread.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

#include "core/compare.h"
#include "core/matmul_threads.h"
#include "core/ops/exp_kernel.h"
#include "core/ops/mlp.h"

namespace {

tw::Mat random_mat(int rows, int cols, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n(0.0f, scale);
  tw::Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}

// [SECTION] finite check of the logits: 0 = Eigen allFinite (before), 1 = all_finite
void BM_AllFinite(benchmark::State& state) {
  const tw::Mat logits = random_mat(256, 8192, 1.0f, 1);
  for (auto _ : state) {
    bool ok = state.range(0) == 0 ? logits.allFinite() : tw::all_finite(logits);
    benchmark::DoNotOptimize(ok);
  }
  state.SetItemsProcessed(state.iterations() * logits.size());
}
BENCHMARK(BM_AllFinite)->ArgName("fast")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// [SECTION] SwiGLU's middle: 0 = scalar loop of activate() (mlp_forward before), 1 = glu_forward (training's Eigen
// exp), 2 = swiglu_forward (one cloned pass)
void BM_SwiGLU(benchmark::State& state) {
  const tw::Mat gate = random_mat(256, 768, 1.0f, 2), up = random_mat(256, 768, 1.0f, 3);
  tw::Mat hidden(256, 768);
  for (auto _ : state) {
    switch (state.range(0)) {
      case 0:
        for (int t = 0; t < 256; ++t)
          for (int f = 0; f < 768; ++f) hidden(t, f) = tw::activate(tw::Activation::SiLU, gate(t, f)) * up(t, f);
        break;
      case 1: tw::glu_forward(hidden, gate, up, tw::Activation::SiLU); break;
      default: tw::swiglu_forward(hidden, gate, up); break;
    }
    benchmark::DoNotOptimize(hidden.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * gate.size());
}
BENCHMARK(BM_SwiGLU)->ArgName("kernel")->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

// [SECTION] online-softmax exponentials of the tiled attention: p = e^(s − m) and Σp per 64-wide row of a
// (64, 64) score tile; 0 = Eigen's array exp + sum (before), 1 = exp_row_inplace
void BM_ExpRows(benchmark::State& state) {
  const tw::Mat scores = random_mat(64, 64, 2.0f, 4);
  tw::Mat s = scores;
  for (auto _ : state) {
    s = scores;
    float total = 0;
    for (int a = 0; a < 64; ++a) {
      float* row = s.data() + a * 64;
      const float m = Eigen::Map<Eigen::ArrayXf>(row, 64).maxCoeff();
      if (state.range(0) == 0) {
        Eigen::Map<Eigen::ArrayXf> p(row, 64);
        p = (p - m).exp();
        total += p.sum();
      } else {
        total += tw::exp_row_inplace(row, m, 64);
      }
    }
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * scores.size());
}
BENCHMARK(BM_ExpRows)->ArgName("fast")->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tw::set_matmul_threads(1);  // one core, as bench_forward's 1-thread runs
  benchmark::AddCustomContext("matmul", tw::matmul_backend());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
