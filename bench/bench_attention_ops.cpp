// Benchmarks for the attention-side ops: norms, softmax, masks, ALiBi, reference and tiled attention.
//
// Sizes: "panel" = what a slider drag recomputes at default panel settings; "model" = a small LLaMA-like layer.
// Counters: items_per_second (elements or rows), GFLOP/s for attention (4·H·T_q·T_k·D flops: QKᵀ and PV,
// counted dense even though the causal mask lets the tiled kernel skip about half),
// and for attention the peak heap bytes allocated during one call (peak_bytes), measured by interposing
// malloc (glibc). The tiled kernel's peak must stay flat as T grows; the reference grows with H·T².
//
// Run: build-*/bench_attention_ops --benchmark_filter=T4096 for the memory comparison.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <random>

#include "core/ops/alibi.h"
#include "core/ops/attention.h"
#include "core/ops/flash_attention.h"
#include "core/ops/mask.h"
#include "core/ops/norm.h"
#include "core/ops/softmax.h"

// [SECTION] Heap accounting: every malloc in the process goes through here (operator new and Eigen both
// end in malloc), so "bytes in use" and its peak are exact for the measured call.
namespace {
std::atomic<long long> g_in_use{0};
std::atomic<long long> g_peak{0};
void note_alloc(void* p) {
  if (!p) return;
  const long long now =
      g_in_use.fetch_add(static_cast<long long>(malloc_usable_size(p))) + static_cast<long long>(malloc_usable_size(p));
  long long peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
}
void note_free(void* p) {
  if (p) g_in_use.fetch_sub(static_cast<long long>(malloc_usable_size(p)));
}
// note_alloc, then the pointer: what each allocation entry point below returns.
void* noted(void* p) {
  note_alloc(p);
  return p;
}
}  // namespace

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

void* malloc(size_t n) { return noted(__libc_malloc(n)); }
void* calloc(size_t n, size_t s) { return noted(__libc_calloc(n, s)); }
void* realloc(void* old, size_t n) {
  note_free(old);
  void* p = __libc_realloc(old, n);
  note_alloc(p ? p : (n == 0 ? nullptr : old));
  return p;
}
void free(void* p) {
  note_free(p);
  __libc_free(p);
}
void* aligned_alloc(size_t a, size_t n) { return noted(__libc_memalign(a, n)); }
void* memalign(size_t a, size_t n) { return noted(__libc_memalign(a, n)); }
int posix_memalign(void** out, size_t a, size_t n) {
  void* p = __libc_memalign(a, n);
  if (!p) return 12;  // ENOMEM
  note_alloc(p);
  *out = p;
  return 0;
}
}

namespace {

// Peak heap bytes above what was in use when the scope started.
struct PeakScope {
  long long base = g_in_use.load();
  PeakScope() { g_peak.store(base); }
  long long peak() const { return g_peak.load() - base; }
};

tw::Mat randn(int r, int c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n;
  tw::Mat m(r, c);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}

// Times op(y, x) on a random (rows, cols) x from args {rows, cols}, one item per entry: the shape of the norm and
// softmax benchmarks below.
template <class Op>
void bench_row_op(benchmark::State& state, unsigned seed, Op op) {
  const int R = static_cast<int>(state.range(0)), C = static_cast<int>(state.range(1));
  const tw::Mat x = randn(R, C, seed);
  tw::Mat y(R, C);
  for (auto _ : state) {
    op(y, x);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * R * C);
}

// [SECTION] Norms: args T, C
void BM_RmsNorm(benchmark::State& state) {
  const tw::Vec w = tw::Vec::Ones(state.range(1));
  bench_row_op(state, 1, [&](tw::Mat& y, const tw::Mat& x) { tw::rmsnorm_forward(y, x, w, 1e-6f); });
}
BENCHMARK(BM_RmsNorm)->Args({16, 64})->Args({256, 256})->Args({512, 4096});

void BM_LayerNorm(benchmark::State& state) {
  const tw::Vec w = tw::Vec::Ones(state.range(1)), b = tw::Vec::Zero(state.range(1));
  bench_row_op(state, 2, [&](tw::Mat& y, const tw::Mat& x) { tw::layernorm_forward(y, x, w, b, 1e-5f); });
}
BENCHMARK(BM_LayerNorm)->Args({16, 64})->Args({512, 4096});

// [SECTION] Softmax: args rows, n (panel: 64×64 scores; model: 32 rows over a 32000-token vocabulary)
void BM_Softmax(benchmark::State& state) {
  bench_row_op(state, 3, [](tw::Mat& p, const tw::Mat& x) { tw::softmax_rows(p, x, 0.8f); });
}
BENCHMARK(BM_Softmax)->Args({64, 64})->Args({32, 32000});

// [SECTION] Masks and ALiBi: arg T
void BM_MaterializeMask(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  const tw::Mask m =
      tw::combine_mask_terms({tw::causal_mask().term, tw::sliding_window_mask(T / 4).term, tw::global_mask(4).term});
  tw::MatB out(T, T);
  for (auto _ : state) {
    tw::materialize_mask(out, m, T, T);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * T * T);
}
BENCHMARK(BM_MaterializeMask)->Arg(64)->Arg(512)->Arg(4096);

void BM_AlibiBias(benchmark::State& state) {
  const int T = static_cast<int>(state.range(0));
  tw::Mat out(T, T);
  for (auto _ : state) {
    const std::vector<double> s = tw::alibi_slopes(64);
    for (double m : s) tw::alibi_bias(out, m, T, T, 0, false);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 64LL * T * T);
}
BENCHMARK(BM_AlibiBias)->Arg(32)->Arg(512);

// [SECTION] Attention: args T, H, KV, D (+ tile for the tiled kernel); causal mask, ALiBi off

// Random q, k, v for args T, H, KV, D under a causal mask (opt points at it, so the struct stays in place).
struct AttentionInputs {
  int T, H, KV, D;
  tw::Mat q, k, v;
  tw::Mask causal = tw::causal_mask();
  tw::AttentionOptions opt;

  explicit AttentionInputs(const benchmark::State& state)
      : T(static_cast<int>(state.range(0))),
        H(static_cast<int>(state.range(1))),
        KV(static_cast<int>(state.range(2))),
        D(static_cast<int>(state.range(3))),
        q(randn(T, H * D, 4)),
        k(randn(T, KV * D, 5)),
        v(randn(T, KV * D, 6)) {
    opt.mask = &causal;
  }
  AttentionInputs(const AttentionInputs&) = delete;
  AttentionInputs& operator=(const AttentionInputs&) = delete;
};

// Times attend(out) into a fresh output each call, so every buffer the call allocates counts in peak_bytes; then
// GFLOP/s and query tokens per second.
template <class Attend>
void time_attention(benchmark::State& state, const AttentionInputs& in, Attend attend) {
  long long peak = 0;
  for (auto _ : state) {
    PeakScope scope;
    tw::Mat out;
    attend(out);
    benchmark::DoNotOptimize(out.data());
    peak = std::max(peak, scope.peak());
  }
  const double flops = 4.0 * in.H * static_cast<double>(in.T) * in.T * in.D;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9 * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["peak_bytes"] = static_cast<double>(peak);
  state.SetItemsProcessed(state.iterations() * in.T);  // query tokens per second
}

void BM_AttentionReference(benchmark::State& state) {
  const AttentionInputs in(state);
  time_attention(state, in, [&](tw::Mat& out) {
    tw::Mat scores, probs;  // fresh each call too: their (H, T, T) buffers count in the peak
    std::vector<char> empty;
    tw::attention_forward(out, scores, probs, empty, in.q, in.k, in.v, in.opt, in.H, in.KV, in.D);
  });
}
BENCHMARK(BM_AttentionReference)->Args({64, 4, 4, 16})->Args({512, 8, 2, 64})->Unit(benchmark::kMillisecond);

void BM_AttentionTiled(benchmark::State& state) {
  const AttentionInputs in(state);
  const int tile = static_cast<int>(state.range(4));
  tw::FlashStats stats;
  time_attention(state, in, [&](tw::Mat& out) {
    std::vector<char> empty;
    tw::flash_attention_forward(out, empty, in.q, in.k, in.v, in.opt, in.H, in.KV, in.D, tile, tile, &stats);
  });
  // The kernel's own working memory (tiles + row statistics), which must not depend on T at all.
  state.counters["scratch_bytes"] = static_cast<double>(stats.scratch_bytes);
}
BENCHMARK(BM_AttentionTiled)->Args({64, 4, 4, 16, 16})->Args({512, 8, 2, 64, 64})->Unit(benchmark::kMillisecond);

// One layer of bench_forward's Small model (T = 256, 8 heads over 4 KV heads, D = 32) at the tile sizes
// forward.cpp could pick (kFlashTile); the reference at the same size for comparison.
BENCHMARK(BM_AttentionReference)
    ->Name("BM_AttentionReference/Small")
    ->Args({256, 8, 4, 32})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttentionTiled)
    ->Name("BM_AttentionTiled/Small")
    ->ArgsProduct({{256}, {8}, {4}, {32}, {32, 64, 128}})
    ->Unit(benchmark::kMillisecond);

// The same layer with query tiles of 64 and wider key tiles (arg 5: tile_k): causal key tiles on the diagonal
// are cut at the tile's last query, so a wide key tile multiplies only what the mask allows.
void BM_AttentionTiledWide(benchmark::State& state) {
  const AttentionInputs in(state);
  const int tile_q = static_cast<int>(state.range(4)), tile_k = static_cast<int>(state.range(5));
  time_attention(state, in, [&](tw::Mat& out) {
    std::vector<char> empty;
    tw::flash_attention_forward(out, empty, in.q, in.k, in.v, in.opt, in.H, in.KV, in.D, tile_q, tile_k);
  });
}
BENCHMARK(BM_AttentionTiledWide)
    ->Name("BM_AttentionTiled/Small/wide")
    ->ArgsProduct({{256}, {8}, {4}, {32}, {32, 64, 128}, {64, 128, 256}})
    ->Unit(benchmark::kMillisecond);

// T = 4096, one head of D = 64: the reference holds two 4096×4096 float maps (128 MiB); the tiled kernel holds
// one 64×64 tile plus its accumulators whatever T is (its peak also includes the (T, D) output).
BENCHMARK(BM_AttentionReference)
    ->Name("BM_AttentionReference/T4096")
    ->Args({4096, 1, 1, 64})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttentionTiled)
    ->Name("BM_AttentionTiled/T4096")
    ->ArgsProduct({{1024, 2048, 4096}, {1}, {1}, {64}, {64}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
