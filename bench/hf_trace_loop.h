#pragma once
// The loop the Hugging Face benchmarks time: load the folder, then one traced forward pass over `tokens`, per
// iteration; afterwards the process's peak RSS as a counter. False (after SkipWithError) when a load or pass failed.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/model/forward.h"
#include "core/model/hf_model.h"

inline bool time_load_and_trace(benchmark::State& state, const std::string& dir, const std::vector<int>& tokens) {
  std::string error;
  double load_s = 0, forward_s = 0;  // summed over iterations, reported as means: where the time goes
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    const Clock::time_point t0 = Clock::now();
    tw::HfModel model;
    if (!tw::load_hf_model(dir, {}, &model, &error)) {
      state.SkipWithError(error.c_str());
      return false;
    }
    const Clock::time_point t1 = Clock::now();
    tw::Trace trace;
    tw::Mat logits;
    if (!tw::forward(logits, &trace, model.weights, model.config, tokens, &error)) {
      state.SkipWithError(error.c_str());
      return false;
    }
    benchmark::DoNotOptimize(logits.data());
    load_s += std::chrono::duration<double>(t1 - t0).count();
    forward_s += std::chrono::duration<double>(Clock::now() - t1).count();
  }
  state.counters["load_ms"] = 1e3 * load_s / double(state.iterations());
  state.counters["forward_ms"] = 1e3 * forward_s / double(state.iterations());
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MB"] = double(usage.ru_maxrss) / 1e3;  // ru_maxrss is in KB on Linux
  return true;
}
