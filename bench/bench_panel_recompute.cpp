// What a slider drag recomputes in the three panels the perf report found slow (issue 27): Norms (`batch`,
// `norm_kind`), LoRA (`d_in`) and Softmax (`n_keys`), each at the panel's default settings, through the same core
// calls the panel's compute makes. The goal is the perf report's: every recompute ≤ 16 ms.
//
// Run: build/bench_panel_recompute --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <vector>

#include "core/experiments/activation_curves.h"
#include "core/experiments/lora_experiment.h"
#include "core/experiments/norm_analysis.h"
#include "core/experiments/norm_placement.h"
#include "core/experiments/softmax_saturation.h"

namespace {

using namespace tw;

// Norms, `batch` dragged: the three norms of one vector, the curves, the GLU surface and the 2/3-rule table.
void BM_NormsBatch(benchmark::State& state) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (auto _ : state) {
    benchmark::DoNotOptimize(compare_norms(x, static_cast<int>(state.range(0)), 1e-5, 1));
    benchmark::DoNotOptimize(activation_curves(-4, 4, 401));
    benchmark::DoNotOptimize(glu_surface(Activation::SiLU, 4, 41));
    benchmark::DoNotOptimize(hidden_size_table({512, 1024, 2048, 4096}, 256));
  }
}
BENCHMARK(BM_NormsBatch)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

// Norms, `norm_kind` dragged: the pre- vs post-norm gradients over the six default depths.
void BM_NormsPlacement(benchmark::State& state) {
  PlacementParams p;
  p.norm = state.range(0) ? NormType::LayerNorm : NormType::RMSNorm;
  for (auto _ : state) benchmark::DoNotOptimize(placement_gradients(p));
}
BENCHMARK(BM_NormsPlacement)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// LoRA, `d_in` dragged: the whole experiment at the defaults (d_out 64, 300 Adam steps, every sweep rank trained).
void BM_LoraExperiment(benchmark::State& state) {
  LoraExperimentParams p;
  p.d_in = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(run_lora_experiment(p));
}
BENCHMARK(BM_LoraExperiment)->Arg(64)->Arg(65)->Unit(benchmark::kMillisecond);

// LoRA's first answer since issue 27 (what the panel waits for in the frame): the experiment with the chosen
// rank's adapter only; the sweep's other ranks train afterwards on the worker (BM_LoraExperiment is the whole).
void BM_LoraFirstAnswer(benchmark::State& state) {
  LoraExperimentParams p;
  p.d_in = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(run_lora_experiment_first(p));
}
BENCHMARK(BM_LoraFirstAnswer)->Arg(64)->Arg(65)->Unit(benchmark::kMillisecond);

// LoRA, `rank` (or a control the synthetic mode does not read) changed: every fit is kept in the memo.
void BM_LoraRankFromMemo(benchmark::State& state) {
  LoraExperimentParams p;
  LoraFitMemo memo;
  run_lora_experiment(p, {}, &memo);
  p.rank = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(run_lora_experiment_first(p, {}, &memo));
}
BENCHMARK(BM_LoraRankFromMemo)->Arg(4)->Arg(8)->Unit(benchmark::kMillisecond);

// Softmax, `n_keys` dragged: histogram, one query and the d_k sweep (1,000 queries per point) at d_k = 64.
void BM_SoftmaxKeys(benchmark::State& state) {
  const int n_keys = static_cast<int>(state.range(0));
  for (auto _ : state) {
    benchmark::DoNotOptimize(score_histogram(64, 4000, 48, 0));
    benchmark::DoNotOptimize(one_query_softmax(64, n_keys, ScaleMode::InvSqrtDk, 0.125f, 1.0f, 1));
    benchmark::DoNotOptimize(
        saturation_sweep(log_dk_grid(1, 4096), n_keys, 1000, ScaleMode::InvSqrtDk, 0.125f, 1.0f, 2));
  }
}
BENCHMARK(BM_SoftmaxKeys)->Arg(16)->Arg(17)->Unit(benchmark::kMillisecond);

// Softmax, scale mode or τ dragged: the samples of the sweep are kept (they depend only on n_keys, the sample
// count and the seed), so only their softmax statistics are recomputed. Arg: τ × 100.
void BM_SoftmaxTemperature(benchmark::State& state) {
  const float tau = static_cast<float>(state.range(0)) / 100.0f;
  const SaturationSamples samples = saturation_samples(log_dk_grid(1, 4096), 16, 1000, 2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(score_histogram(64, 4000, 48, 0));
    benchmark::DoNotOptimize(one_query_softmax(64, 16, ScaleMode::InvSqrtDk, 0.125f, tau, 1));
    benchmark::DoNotOptimize(saturation_sweep(samples, ScaleMode::InvSqrtDk, 0.125f, tau));
  }
}
BENCHMARK(BM_SoftmaxTemperature)->Arg(100)->Arg(110)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
