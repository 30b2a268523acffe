// Forward pass of the seed notes' Small config (dim 256, 4 layers, 8 heads, 4 KV heads, vocab 8192, F 768) at
// T = 256, with the trace off (the fast path) and on (every step copied), on 1 and 2 threads.
//
//   cmake --build build --target bench_forward && build/bench_forward --benchmark_filter=Small
//   /usr/bin/python3 bench/pytorch_forward.py DUMP_DIR --time --threads 1,2   (PyTorch on the same model)
// where DUMP_DIR comes from `transformer-workbench dump` with the Small config and 256 --tokens.
// The default build (TW_BLAS) multiplies with OpenBLAS and sets its thread count per run; with -DTW_BLAS=OFF the
// 2-thread runs need -DTW_OPENMP=ON, else they report an error instead of a number.
// On a shared machine compare CPU times (Google Benchmark's CPU column, the script's "ms CPU").
//
// GFLOP/s uses forward_flops(), the same per-step FLOP formulas the Trace records.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/matmul_threads.h"
#include "core/model/forward.h"
#include "core/model/kv_cache.h"
#include "core/model/weights.h"

namespace {

std::vector<int> sample_tokens(int T, int vocab) {
  std::vector<int> tokens(static_cast<size_t>(T));
  uint32_t x = 12345;
  for (int& t : tokens) {
    x = x * 1664525u + 1013904223u;  // any fixed token sequence; the cost does not depend on the ids
    t = static_cast<int>((x >> 8) % static_cast<uint32_t>(vocab));
  }
  return tokens;
}

void run_forward(benchmark::State& state, const tw::ModelConfig& config, int T) {
  const bool trace_on = state.range(0) != 0;
  const int threads = static_cast<int>(state.range(1));
  if (!tw::set_matmul_threads(threads)) {
    state.SkipWithError("this build multiplies on one thread (configure with TW_BLAS or TW_OPENMP)");
    return;
  }
  const tw::ModelWeights weights = tw::init_weights(config, 1);
  const std::vector<int> tokens = sample_tokens(T, config.vocab);
  tw::Mat logits;
  std::string error;
  for (auto _ : state) {
    tw::Trace trace(trace_on);
    if (!tw::forward(logits, &trace, weights, config, tokens, &error)) {
      state.SkipWithError(error.c_str());
      break;
    }
    benchmark::DoNotOptimize(logits.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(tw::forward_flops(config, T) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["tokens/s"] = benchmark::Counter(T, benchmark::Counter::kIsIterationInvariantRate);
  tw::set_matmul_threads(1);
}

void BM_ForwardSmall(benchmark::State& state) { run_forward(state, tw::small_config(), 256); }
BENCHMARK(BM_ForwardSmall)
    ->ArgNames({"trace", "threads"})
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({0, 2})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The stepper panel's default model: must recompute well within one frame.
void BM_ForwardTiny(benchmark::State& state) { run_forward(state, tw::tiny_config(), 32); }
BENCHMARK(BM_ForwardTiny)->ArgNames({"trace", "threads"})->Args({0, 1})->Args({1, 1})->Unit(benchmark::kMicrosecond);

// One decoding step with the KV cache holding 255 tokens of the Small model: matrix-vector work, memory bound.
void BM_DecodeStepSmall(benchmark::State& state) {
  const tw::ModelConfig config = tw::small_config();
  const tw::ModelWeights weights = tw::init_weights(config, 1);
  const std::vector<int> prompt = sample_tokens(255, config.vocab);
  tw::KVCache prefilled;
  prefilled.reset(config);
  tw::Mat logits;
  std::string error;
  tw::forward_cached(logits, nullptr, prefilled, weights, config, prompt, &error);
  for (auto _ : state) {
    state.PauseTiming();
    tw::KVCache cache = prefilled;
    state.ResumeTiming();
    tw::forward_cached(logits, nullptr, cache, weights, config, {7}, &error);
    benchmark::DoNotOptimize(logits.data());
  }
  state.counters["tokens/s"] = benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DecodeStepSmall)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  tw::set_matmul_threads(1);  // runs without a threads argument (the decode step) measure one thread
  benchmark::AddCustomContext("matmul", tw::matmul_backend());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
