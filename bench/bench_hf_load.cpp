// Opening a real-sized model: a SmolLM2-135M-shaped checkpoint (hidden 576, 30 layers, 9 heads, 3 KV heads,
// intermediate 1536, vocab 49152, tied; 134.5 M parameters) with random weights in BF16, sharded like a Hugging
// Face export, then load_hf_model + one traced forward pass over 32 tokens, on one thread. Goal: < 3 s.
//
//   cmake --build build --target bench_hf_load && build/bench_hf_load
//
// The checkpoint is written once by a forked child process (its allocations must not count towards the peak
// memory reported here). Counters: peak_rss_MB is this process's maximum resident set after the loads (the
// float32 weights plus the binary and the traced activations); fp32_model_MB is the float32 weight size; the
// goal is peak < 1.3 × fp32 model (streaming never holds a whole shard beside its float32 copy).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/experiments/logit_lens.h"
#include "core/matmul_threads.h"
#include "core/model/forward.h"
#include "core/model/hf_model.h"
#include "hf_trace_loop.h"

namespace {

tw::ModelConfig smollm2_135m() {
  tw::ModelConfig c{
      .dim = 576, .n_layers = 30, .n_heads = 9, .n_kv_heads = 3, .vocab = 49152, .hidden = 1536, .max_seq = 512};
  c.tie_embeddings = true;
  c.rope_base = 100000.0f;
  c.memory_cap_mb = 16384;
  return c;
}

std::string checkpoint_dir() { return (std::filesystem::temp_directory_path() / "tw_bench_smollm2_bf16").string(); }

// Writes the checkpoint in a child process; returns false (with a message) if that failed.
bool write_checkpoint_in_child(std::string* error) {
  const pid_t pid = fork();
  if (pid < 0) return *error = "fork failed", false;
  if (pid == 0) {
    const tw::ModelConfig c = smollm2_135m();
    std::vector<std::string> files;
    std::string e;
    const bool ok = tw::save_hf_checkpoint(checkpoint_dir(), tw::init_weights(c, 1), c,
                                           {tw::StorageType::BF16, 100'000'000}, &files, &e);
    if (!ok) std::fprintf(stderr, "bench_hf_load: %s\n", e.c_str());
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return *error = "writing the checkpoint failed", false;
  return true;
}

// Writes the checkpoint once per process (skipping the benchmark when that fails), sets one BLAS thread and
// returns the 32 prompt tokens both benchmarks run; false when the benchmark was skipped.
bool prepare(benchmark::State& state, std::vector<int>* tokens) {
  static std::string setup_error;
  static const bool written = write_checkpoint_in_child(&setup_error);
  if (!written) {
    state.SkipWithError(setup_error.c_str());
    return false;
  }
  tw::set_matmul_threads(1);
  tokens->assign(32, 0);
  for (int i = 0; i < 32; ++i) (*tokens)[size_t(i)] = (i * 7919) % 49152;
  return true;
}

void BM_LoadAndTracedForward_SmolLM2_135M_BF16(benchmark::State& state) {
  std::vector<int> tokens;
  if (!prepare(state, &tokens)) return;
  if (!time_load_and_trace(state, checkpoint_dir(), tokens)) return;
  const double fp32_mb = double(tw::parameter_count(smollm2_135m())) * 4.0 / 1e6;
  state.counters["fp32_model_MB"] = fp32_mb;
  state.counters["peak_over_fp32"] = state.counters["peak_rss_MB"] / fp32_mb;
}
BENCHMARK(BM_LoadAndTracedForward_SmolLM2_135M_BF16)->Unit(benchmark::kMillisecond)->Iterations(3);

// The logit lens of the same pass: 31 products (32, 576)·(576, 49152) plus softmaxes, what the lens view recomputes.
void BM_LogitLens_SmolLM2_135M(benchmark::State& state) {
  std::vector<int> tokens;
  if (!prepare(state, &tokens)) return;
  std::string error;
  tw::HfModel model;
  tw::Trace trace;
  tw::Mat logits;
  if (!tw::load_hf_model(checkpoint_dir(), {}, &model, &error) ||
      !tw::forward(logits, &trace, model.weights, model.config, tokens, &error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  for (auto _ : state) {
    tw::LogitLens lens;
    if (!tw::logit_lens(&lens, trace, model.weights, model.config, &error)) state.SkipWithError(error.c_str());
    benchmark::DoNotOptimize(lens.top_token.data());
  }
}
BENCHMARK(BM_LogitLens_SmolLM2_135M)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
