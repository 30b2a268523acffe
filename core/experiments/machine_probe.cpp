#include "core/experiments/machine_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/base/i18n.h"
#include "core/model/forward.h"
#include "core/model/kv_cache.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace tw {

// [SECTION] helpers

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
bool keep(const KeepGoing& k, float f) { return !k || k(f); }

}  // namespace

// [SECTION] probe

MachineProbe probe_machine(const KeepGoing& keep_going) {
  MachineProbe r;
  // Compute: 384³ is large enough for OpenBLAS's fast kernels and small enough (1.7 MiB of operands) to stay in
  // cache, so the rate is the arithmetic units', not memory's. Repeat for ~0.25 s and keep the best round.
  const int n = 384;
  r.gemm_n = n;
  Mat a = Mat::Random(n, n), b = Mat::Random(n, n), c(n, n);
  double best = 0;
  const auto gemm_start = Clock::now();
  for (int round = 0; round < 40 && seconds_since(gemm_start) < 0.25; ++round) {
    const auto t0 = Clock::now();
    c.noalias() = a * b;
    const double s = seconds_since(t0);
    if (s > 0) best = std::max(best, 2.0 * n * n * double(n) / s);
    a(0, 0) += c(n - 1, n - 1) * 1e-12f;  // a data dependency, so no round can be skipped
    if (!keep(keep_going, 0.5f * float(seconds_since(gemm_start) / 0.25))) return r;
  }
  r.gemm_seconds = seconds_since(gemm_start);
  r.peak_flops = best;

  // Memory: 64 MiB per buffer, far beyond any L3 cache. A copy reads one buffer and writes the other.
  const size_t count = size_t(16) << 20;  // floats
  r.buffer_bytes = double(count) * sizeof(float);
  std::vector<float> src(count, 1.0f), dst(count, 0.0f);
  double best_bw = 0;
  const auto mem_start = Clock::now();
  volatile float sink = 0;
  for (int round = 0; round < 12 && seconds_since(mem_start) < 0.3; ++round) {
    auto t0 = Clock::now();
    std::memcpy(dst.data(), src.data(), count * sizeof(float));
    double s = seconds_since(t0);
    if (s > 0) best_bw = std::max(best_bw, 2.0 * r.buffer_bytes / s);
    t0 = Clock::now();
    const float sum = Eigen::Map<const Eigen::VectorXf>(dst.data(), Eigen::Index(count)).sum();
    s = seconds_since(t0);
    sink = sink + sum;
    if (s > 0) best_bw = std::max(best_bw, r.buffer_bytes / s);
    src[round] = sum;  // the next copy moves different data
    if (!keep(keep_going, 0.5f + 0.5f * float(seconds_since(mem_start) / 0.3))) return r;
  }
  r.memory_seconds = seconds_since(mem_start);
  r.bandwidth = best_bw;
  r.complete = r.peak_flops > 0 && r.bandwidth > 0;
  return r;
}

// [SECTION] forward timing

void cap_forward_timing(const ModelConfig& config, double peak_flops, double budget_seconds, int* prompt,
                        int* decode_steps) {
  const double rate = peak_flops > 0 ? peak_flops : 1e9;
  const double budget = budget_seconds * rate;
  // Half the budget for the prefill, half for the decode steps (each about forward_flops(config, 1), more as the
  // context grows); the cache must hold both.
  int steps = std::clamp(*decode_steps, 1, std::max(1, config.max_seq / 2));
  int T = std::clamp(*prompt, 1, std::max(1, config.max_seq - steps));
  while (T > 1 && forward_flops(config, T) > 0.5 * budget) T = T * 3 / 4;
  const double step = std::max(1.0, forward_flops(config, 1));
  steps = int(std::clamp(0.5 * budget / step, 1.0, double(steps)));
  *prompt = T;
  *decode_steps = steps;
}

ForwardTiming time_forward(const ModelConfig& config, int prompt, int decode_steps, uint64_t seed,
                           const KeepGoing& keep_going) {
  ForwardTiming r;
  r.config = config;
  r.prompt = prompt;
  r.decode_steps = decode_steps;
  if (const auto errors = validate(config); !errors.empty()) {
    r.error = errors.front();
    return r;
  }
  if (prompt < 1 || decode_steps < 1 || prompt + decode_steps > config.max_seq) {
    r.error =
        subst(tr("the prompt plus decode steps must be between 2 and max_seq ({0})"), {std::to_string(config.max_seq)});
    return r;
  }
  const ModelWeights w = init_weights(config, seed);
  if (!keep(keep_going, 0.05f)) return r;
  std::vector<int> tokens(static_cast<size_t>(prompt));
  for (int t = 0; t < prompt; ++t) tokens[size_t(t)] = int((seed + 31u * unsigned(t)) % unsigned(config.vocab));
  KVCache cache;
  cache.reset(config);
  Mat logits;
  std::string error;
  auto t0 = Clock::now();
  if (!forward_cached(logits, nullptr, cache, w, config, tokens, &error)) {
    r.error = error;
    return r;
  }
  r.prefill_seconds = seconds_since(t0);
  if (!keep(keep_going, 0.5f)) return r;
  t0 = Clock::now();
  for (int s = 0; s < decode_steps; ++s) {
    // The greedy next token, as generation would feed it.
    Eigen::Index next = 0;
    logits.row(logits.rows() - 1).maxCoeff(&next);
    if (!forward_cached(logits, nullptr, cache, w, config, {int(next)}, &error)) {
      r.error = error;
      return r;
    }
    if (!keep(keep_going, 0.5f + 0.5f * float(s + 1) / float(decode_steps))) return r;
  }
  r.decode_seconds = seconds_since(t0) / decode_steps;
  r.prefill_tokens_per_s = r.prefill_seconds > 0 ? prompt / r.prefill_seconds : 0;
  r.decode_tokens_per_s = r.decode_seconds > 0 ? 1.0 / r.decode_seconds : 0;
  r.complete = r.prefill_tokens_per_s > 0 && r.decode_tokens_per_s > 0;
  return r;
}

}  // namespace tw
