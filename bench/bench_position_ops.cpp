// Benchmarks for the position, head-sharing, MLP, LoRA and sampling ops at panel-sized and model-sized inputs.
//
// [SECTION] RoPE        tables + rotation, items = rotated pairs
// [SECTION] GQA         MHA→GQA pooling, items = averaged floats
// [SECTION] MLP         activations (items = elements)
// [SECTION] LoRA        adapted forward (GFLOP/s), merge, truncated SVD
// [SECTION] Sampling    the filter chain over a vocabulary (items = tokens)

#include <benchmark/benchmark.h>

#include <random>

#include "core/ops/gqa.h"
#include "core/ops/lora.h"
#include "core/ops/mlp.h"
#include "core/ops/rope.h"
#include "core/ops/sampling.h"

namespace {

using namespace tw;

Mat random_mat(Eigen::Index rows, Eigen::Index cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(2.0 * uniform01(rng) - 1.0);
  return m;
}

void set_gflops(benchmark::State& state, double flops_per_iter) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops_per_iter * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
}

// [SECTION] RoPE
// Args: T, H, D. (16, 4, 64) is what the panel draws; (4096, 32, 128) is a LLaMA-7B prompt.
void rope_apply_bench(benchmark::State& state, RopeConvention convention) {
  const int T = static_cast<int>(state.range(0)), H = static_cast<int>(state.range(1)),
            D = static_cast<int>(state.range(2));
  const Mat x = random_mat(T, static_cast<Eigen::Index>(H) * D, 1);
  Mat cos, sin, out(T, static_cast<Eigen::Index>(H) * D);
  rope_cos_sin(cos, sin, rope_frequencies(D, 10000.0), 0, T);
  for (auto _ : state) {
    rope_apply(out, x, cos, sin, convention, T, H, D);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * T * H * (D / 2));
}
void BM_RopeApply(benchmark::State& state) { rope_apply_bench(state, RopeConvention::HalfSplit); }
BENCHMARK(BM_RopeApply)->Args({16, 4, 64})->Args({4096, 32, 128});
void BM_RopeApplyInterleaved(benchmark::State& state) { rope_apply_bench(state, RopeConvention::Interleaved); }
BENCHMARK(BM_RopeApplyInterleaved)->Args({16, 4, 64})->Args({4096, 32, 128});

// Args: T, D. The tables cost one cos and one sin per (position, pair).
void BM_RopeTables(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), D = static_cast<int>(state.range(1));
  RopeConfig cfg;
  cfg.head_dim = D;
  cfg.scaling = RopeScaling::Llama3;
  cfg.factor = 8.0;
  cfg.original_context = 8192;
  Mat cos, sin;
  for (auto _ : state) {
    rope_cos_sin(cos, sin, rope_scaled_frequencies(cfg, T), 0, T);
    benchmark::DoNotOptimize(cos.data());
  }
  state.SetItemsProcessed(state.iterations() * T * (D / 2));
}
BENCHMARK(BM_RopeTables)->Args({256, 64})->Args({8192, 128});

// [SECTION] GQA
// Args: H, KV, D, C.
void BM_MeanPoolKv(benchmark::State& state) {
  const int H = static_cast<int>(state.range(0)), KV = static_cast<int>(state.range(1)),
            D = static_cast<int>(state.range(2)), C = static_cast<int>(state.range(3));
  const Mat w = random_mat(static_cast<Eigen::Index>(H) * D, C, 3);
  Mat out;
  for (auto _ : state) {
    mean_pool_kv_heads(out, w, H, KV, D, C);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(H) * D * C);
}
BENCHMARK(BM_MeanPoolKv)->Args({8, 2, 16, 128})->Args({32, 8, 128, 4096});

// [SECTION] MLP
void BM_Activation(benchmark::State& state) {
  const auto act = static_cast<Activation>(state.range(0));
  const Mat x = random_mat(64, 11008, 4);
  Mat out(x.rows(), x.cols());
  for (auto _ : state) {
    activation_forward(out, x, act);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * x.size());
  state.SetLabel(to_string(act));
}
BENCHMARK(BM_Activation)->DenseRange(0, 3);

// [SECTION] LoRA
// Args: T, d, r. Counts the frozen matmul plus the two rank-r ones.
void BM_LoraForward(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0)), d = static_cast<int>(state.range(1)),
            r = static_cast<int>(state.range(2));
  const Mat x = random_mat(T, d, 9), W0 = random_mat(d, d, 10);
  LoraAdapter ad;
  std::mt19937_64 rng(11);
  lora_init(ad, d, d, r, 16.0f, false, rng);
  ad.B = random_mat(d, r, 12);
  Mat out, xa;
  for (auto _ : state) {
    lora_forward(out, xa, x, W0, ad, T, d, d, r);
    benchmark::DoNotOptimize(out.data());
  }
  set_gflops(state, 2.0 * T * d * d + 2.0 * 2.0 * T * d * r);
}
BENCHMARK(BM_LoraForward)->Args({16, 64, 8})->Args({64, 4096, 8})->Unit(benchmark::kMillisecond);

void BM_LoraMerge(benchmark::State& state) {
  const int d = static_cast<int>(state.range(0)), r = static_cast<int>(state.range(1));
  Mat W = random_mat(d, d, 13);
  LoraAdapter ad;
  ad.A = random_mat(r, d, 14);
  ad.B = random_mat(d, r, 15);
  for (auto _ : state) {
    lora_merge(W, ad);
    benchmark::DoNotOptimize(W.data());
  }
  set_gflops(state, 2.0 * d * d * r + d * static_cast<double>(d));
}
BENCHMARK(BM_LoraMerge)->Args({64, 8})->Args({4096, 8})->Unit(benchmark::kMillisecond);

// Args: d. The panel's ΔW: 64 by default, 1024 at most.
void BM_TruncatedSvd(benchmark::State& state) {
  const int d = static_cast<int>(state.range(0));
  const Mat M = random_mat(d, d, 16);
  Mat approx;
  for (auto _ : state) {
    const Svd s = svd_decompose(M);
    svd_truncate(approx, s, 8);
    benchmark::DoNotOptimize(approx.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(d) * d);
}
BENCHMARK(BM_TruncatedSvd)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

// [SECTION] Sampling
// Args: V. 64 tokens in the panel, 128256 is Llama 3's vocabulary.
void BM_SamplingFilter(benchmark::State& state) {
  const int V = static_cast<int>(state.range(0));
  std::vector<float> logits(static_cast<size_t>(V));
  std::mt19937_64 rng(17);
  for (float& l : logits) l = static_cast<float>(8.0 * uniform01(rng));
  SamplingConfig cfg;
  cfg.temperature = 0.8f;
  cfg.top_k = 50;
  cfg.top_p = 0.9f;
  SamplingTrace t;
  for (auto _ : state) {
    sampling_filter(t, logits, cfg);
    benchmark::DoNotOptimize(sample_token(t.probs, rng));
  }
  state.SetItemsProcessed(state.iterations() * V);
}
BENCHMARK(BM_SamplingFilter)->Arg(64)->Arg(128256);

}  // namespace

BENCHMARK_MAIN();
