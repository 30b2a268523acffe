// Forward + backward of one training step (train_forward_backward, no optimizer) at the tiny sizes the training
// presets use: dim 32–64, 2 layers, T 16–32, B 16–64, on 1 thread.
//
//   cmake --build build --target bench_train_step && build/bench_train_step
//
// BM_TrainStep args: (dim, T, B). The config is the default LLaMA-style one (RoPE, GQA 4/2, RMSNorm pre-norm,
// SwiGLU, F = 3·dim) with a 32-token vocabulary, as the toy tasks use.
// BM_LanguageStep: one whole optimizer step (forward + backward + clip + AdamW) at the sizes of the two shipped
// language models (assets/models/poems, assets/models/quotes), random tokens: the number to hold against
// `bench/pytorch_train.py DIR --steps 100` on a run of the same scene (same model, batch and step).
#include <benchmark/benchmark.h>

#include <string>

#include "core/matmul_threads.h"
#include "core/train/model_train.h"
#include "core/train/optimizer.h"

namespace {

// B sequences of T random tokens (a fixed LCG), each position predicting the next token.
tw::Batch random_batch(int B, int T, int vocab) {
  tw::Batch batch;
  batch.B = B;
  batch.T = T;
  uint32_t x = 7;
  for (int i = 0; i < B * T; ++i) {
    x = x * 1664525u + 1013904223u;
    batch.tokens.push_back(static_cast<int>((x >> 8) % static_cast<uint32_t>(vocab)));
  }
  for (int i = 0; i < B * T; ++i)
    batch.targets.push_back(i % T == T - 1 ? -1 : batch.tokens[static_cast<size_t>(i + 1)]);
  return batch;
}

// Forward + backward of `batch` per iteration, then `after(grads)` (inside the timed loop).
template <class After>
void run_steps(benchmark::State& state, const tw::ModelConfig& c, const tw::ModelWeights& w, const tw::Batch& batch,
               After&& after) {
  tw::TrainState train;
  tw::ModelWeights grads;
  double loss = 0;
  std::string error;
  for (auto _ : state) {
    if (!tw::train_forward_backward(&grads, train, w, c, batch, &loss, &error)) {
      state.SkipWithError(error.c_str());
      break;
    }
    after(grads);
  }
}

void BM_TrainStep(benchmark::State& state) {
  tw::set_matmul_threads(1);
  const int dim = static_cast<int>(state.range(0));
  const tw::ModelConfig c{
      .dim = dim, .n_layers = 2, .n_heads = 4, .n_kv_heads = 2, .vocab = 32, .hidden = 3 * dim, .max_seq = 64};
  const int T = static_cast<int>(state.range(1)), B = static_cast<int>(state.range(2));
  const tw::ModelWeights w = tw::init_weights(c, 1);
  run_steps(state, c, w, random_batch(B, T, 32),
            [](tw::ModelWeights& grads) { benchmark::DoNotOptimize(grads.embed.data()); });
  state.counters["tokens/s"] = benchmark::Counter(B * T, benchmark::Counter::kIsIterationInvariantRate);
}
// The shipped language models' shapes: 0 = poems, 1 = quotes (their config.json and scene.json); 2 = the former
// quotes model (4 layers × 128, B 16 × T 64), a size to compare with earlier measurements.
struct LanguageShape {
  const char* name;
  int dim, layers, hidden, vocab, T, B;
};
constexpr LanguageShape kLanguage[] = {{"poems", 64, 2, 128, 1844, 32, 2},
                                       {"quotes", 64, 2, 176, 1024, 32, 2},
                                       {"former quotes", 128, 4, 352, 1024, 64, 16}};

void BM_LanguageStep(benchmark::State& state) {
  tw::set_matmul_threads(1);
  LanguageShape s = kLanguage[state.range(0)];
  if (state.range(1) > 0) s.B = static_cast<int>(state.range(1));  // another batch than the shipped one
  const tw::ModelConfig c{.dim = s.dim,
                          .n_layers = s.layers,
                          .n_heads = 4,
                          .n_kv_heads = 4,
                          .vocab = s.vocab,
                          .hidden = s.hidden,
                          .max_seq = s.T,
                          .tie_embeddings = true};
  tw::ModelWeights w = tw::init_weights(c, 1);
  tw::OptimizerConfig opt;
  opt.lr = 1e-3f;
  opt.weight_decay = 0.1f;
  tw::OptimizerState os = tw::make_optimizer_state(opt, c);
  run_steps(state, c, w, random_batch(s.B, s.T, s.vocab), [&](tw::ModelWeights& grads) {
    tw::clip_grad_norm(grads, c, 1.0);
    tw::optimizer_step(w, grads, os, opt, c, 1e-3);
    benchmark::DoNotOptimize(w.embed.data());
  });
  state.SetLabel(std::string(s.name) + " B=" + std::to_string(s.B));
  state.counters["tokens/s"] = benchmark::Counter(s.B * s.T, benchmark::Counter::kIsIterationInvariantRate);
}
// Args: (model, batch); batch 0 = the shipped scene's.
BENCHMARK(BM_LanguageStep)
    ->Args({0, 0})
    ->Args({0, 4})
    ->Args({0, 16})
    ->Args({1, 0})
    ->Args({1, 4})
    ->Args({2, 0})
    ->Args({2, 4})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

BENCHMARK(BM_TrainStep)->Args({32, 16, 16})->Args({64, 32, 16})->Args({64, 32, 64})->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
