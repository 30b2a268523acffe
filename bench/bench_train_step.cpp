// Forward + backward of one training step (train_forward_backward, no optimizer) at the tiny sizes the training
// presets use: dim 32–64, 2 layers, T 16–32, B 16–64, on 1 thread.
//
//   cmake --build build --target bench_train_step && build/bench_train_step
//
// Args: (dim, T, B). The config is the default LLaMA-style one (RoPE, GQA 4/2, RMSNorm pre-norm, SwiGLU, F = 3·dim)
// with a 32-token vocabulary, as the toy tasks use.
#include <benchmark/benchmark.h>

#include <string>

#include "core/matmul_threads.h"
#include "core/train/model_train.h"

namespace {

void BM_TrainStep(benchmark::State& state) {
  tw::set_matmul_threads(1);
  const int dim = static_cast<int>(state.range(0));
  const tw::ModelConfig c{
      .dim = dim, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2, .vocab = 32, .hidden = 3 * dim, .max_seq = 64};
  const int T = static_cast<int>(state.range(1)), B = static_cast<int>(state.range(2));
  const tw::ModelWeights w = tw::init_weights(c, 1);
  tw::Batch batch;
  batch.B = B;
  batch.T = T;
  uint32_t x = 7;
  for (int i = 0; i < B * T; ++i) {
    x = x * 1664525u + 1013904223u;
    batch.tokens.push_back(static_cast<int>((x >> 8) % 32u));
  }
  for (int i = 0; i < B * T; ++i)
    batch.targets.push_back(i % T == T - 1 ? -1 : batch.tokens[static_cast<size_t>(i + 1)]);
  tw::TrainState train;
  tw::ModelWeights grads;
  double loss = 0;
  std::string error;
  for (auto _ : state) {
    if (!tw::train_forward_backward(&grads, train, w, c, batch, &loss, &error)) {
      state.SkipWithError(error.c_str());
      break;
    }
    benchmark::DoNotOptimize(grads.embed.data());
  }
  state.counters["tokens/s"] = benchmark::Counter(B * T, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_TrainStep)->Args({32, 16, 16})->Args({64, 32, 16})->Args({64, 32, 64})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
