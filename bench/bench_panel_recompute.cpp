// What a slider drag recomputes in the three panels the perf report found slow (issue 27): Norms (`batch`,
// `norm_kind`), LoRA (`d_in`) and Softmax (`n_keys`), each at the panel's default settings, through the same core
// calls the panel's compute makes. The goal is the perf report's: every recompute ≤ 16 ms.
//
// Geometry and n-gram baselines (issue 27, the two panels still over after the three above): the whole computation
// as it was, and what a control change computes now.
//
// Run: build/bench_panel_recompute --benchmark_repetitions=3 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <vector>

#include "core/experiments/activation_curves.h"
#include "core/experiments/high_dim_geometry.h"
#include "core/experiments/lora_experiment.h"
#include "core/experiments/ngram_baselines.h"
#include "core/experiments/norm_analysis.h"
#include "core/experiments/norm_placement.h"
#include "core/experiments/softmax_saturation.h"
#include "core/text/ngram.h"

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
// count and the seed), so only their softmax statistics are recomputed (and the histogram, which the panel now keeps
// too: ~0.3 ms of this). Arg: τ × 100.
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

// Geometry, any control at the defaults, as before issue 27: histograms, the whole sweep over d = 2 … 4096, keys, SVD.
void BM_GeometryWhole(benchmark::State& state) {
  GeometryParams p;
  for (auto _ : state) benchmark::DoNotOptimize(analyze_geometry(p));
}
BENCHMARK(BM_GeometryWhole)->Unit(benchmark::kMillisecond);

// Geometry's first answer when `seed` changed (Arg: seed): nothing kept applies, so the sweep up to d = 128 only,
// the histograms, the keys and the SVD.
void BM_GeometryFirstAnswerSeed(benchmark::State& state) {
  GeometryParams p;
  p.seed = static_cast<uint64_t>(state.range(0));
  for (auto _ : state) {
    GeometryMemo memo;
    benchmark::DoNotOptimize(analyze_geometry_first(p, nullptr, &memo));
  }
}
BENCHMARK(BM_GeometryFirstAnswerSeed)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// Geometry's first answer when `points` changed (alternating 200 and 201): the spectrum is kept, the sweep up to
// d = 128 is computed.
void BM_GeometryFirstAnswerPoints(benchmark::State& state) {
  GeometryParams p;
  GeometryMemo memo;
  analyze_geometry(p, nullptr, &memo);
  for (auto _ : state) {
    p.points = p.points == 200 ? 201 : 200;
    benchmark::DoNotOptimize(analyze_geometry_first(p, nullptr, &memo));
  }
}
BENCHMARK(BM_GeometryFirstAnswerPoints)->Unit(benchmark::kMillisecond);

// Geometry, `d` changed (Arg: d): the sweep and the spectrum come from the memo.
void BM_GeometrySweepFromMemo(benchmark::State& state) {
  GeometryParams p;
  GeometryMemo memo;
  analyze_geometry(p, nullptr, &memo);
  p.d = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(analyze_geometry_first(p, nullptr, &memo));
}
BENCHMARK(BM_GeometrySweepFromMemo)->Arg(64)->Arg(65)->Unit(benchmark::kMillisecond);

// N-gram baselines on the 300 Tang poems, any control, as before issue 27: load the corpus, count Witten–Bell and
// add-k models of orders 1 … 5, score, sample, compare causal vs bidirectional.
void BM_NgramWhole(benchmark::State& state) {
  for (auto _ : state) {
    Corpus c;
    if (!load_corpus(CorpusId::TangPoems, &c).empty()) {
      state.SkipWithError("fortunes-zh is not installed");
      return;
    }
    for (int n = 1; n <= 5; ++n) {
      const NgramModel wb(c.train, n, NgramSmoothing::WittenBell);
      const NgramModel addk(c.train, n, NgramSmoothing::AddK, 0.01);
      benchmark::DoNotOptimize(wb.bits_per_symbol(c.heldout) + addk.bits_per_symbol(c.heldout) +
                               wb.bits_per_symbol(c.train) + wb.unseen_fraction(c.heldout, n));
      benchmark::DoNotOptimize(wb.sample(1, 60));
    }
    benchmark::DoNotOptimize(compare_causal_bidirectional(c.train, c.heldout[0].substr(0, c.heldout[0].find('\n'))));
  }
}
BENCHMARK(BM_NgramWhole)->Unit(benchmark::kMillisecond);

// N-gram baselines, `corpus` changed to one not counted yet (Args: corpus 0 Tang poems, 1 Song ci, 2 English
// quotations; the highest order): the count tables and their Witten–Bell statistics, kept afterwards. Order 2 is the
// panel's first answer, waited for in the frame (order 1 for comparison); order 5 is its refinement on the worker.
void BM_NgramCountCorpus(benchmark::State& state) {
  Corpus c;
  if (const std::string e = load_corpus(static_cast<CorpusId>(state.range(0)), &c); !e.empty()) {
    state.SkipWithError(e.c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(count_ngram_corpus(c, static_cast<int>(state.range(1))));
}
BENCHMARK(BM_NgramCountCorpus)->ArgsProduct({{0, 1, 2}, {1, 2, 5}})->Unit(benchmark::kMillisecond);

// N-gram baselines' first answer when `k` or `record` changed (Arg: record): from the corpus's kept tables, add-k
// rescored and the record compared; the samples of the seed are kept too.
void BM_NgramFirstAnswer(benchmark::State& state) {
  std::string error;
  const auto m = ngram_corpus_models(CorpusId::TangPoems, 5, &error);
  if (!m) {
    state.SkipWithError(error.c_str());
    return;
  }
  m->samples(1, 60);
  const std::string& rec = m->corpus.heldout[size_t(state.range(0))];
  std::vector<std::string> samples;
  for (auto _ : state) {
    for (const NgramModel& wb : m->wb)
      benchmark::DoNotOptimize(wb.bits_per_symbol(m->corpus.heldout, NgramSmoothing::AddK, 0.01));
    benchmark::DoNotOptimize(m->kept_samples(1, 60, &samples));
    benchmark::DoNotOptimize(compare_causal_bidirectional(m->wb[2], m->wb[1], rec.substr(0, rec.find('\n'))));
  }
}
BENCHMARK(BM_NgramFirstAnswer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// N-gram baselines, `seed` changed: the refinement on the worker draws 60 characters from each order.
void BM_NgramSamples(benchmark::State& state) {
  std::string error;
  const auto m = ngram_corpus_models(CorpusId::TangPoems, 5, &error);
  if (!m) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state)
    for (const NgramModel& wb : m->wb) benchmark::DoNotOptimize(wb.sample(static_cast<uint64_t>(state.range(0)), 60));
}
BENCHMARK(BM_NgramSamples)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
