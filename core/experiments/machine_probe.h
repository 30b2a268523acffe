#pragma once
// This machine on the roofline: a small built-in probe of peak compute and memory bandwidth, and the speed of
// our own forward pass, so the roofline panel can put measured numbers beside its estimates.
//
//   peak FLOP/s   time C = A·B for square float matrices (2n³ FLOP each) through the same product the model
//                 uses (Eigen, handed to OpenBLAS in the default build) on the app's matmul threads (one)
//   bandwidth     time copying a buffer far larger than the caches: each copy reads and writes it (2 · bytes),
//                 then a sum over it (bytes read), and keep the faster of the two rates
//   forward       random weights of a config; a prefill of `prompt` tokens through forward_cached on an empty
//                 cache, then `decode_steps` single-token steps appending to that cache (the way generation runs)
//
// Every function polls `keep_going(fraction done)` and stops early when it returns false (the user's Cancel).
// The numbers are timings: tests check only that they are finite and positive, never their size.

#include <functional>
#include <string>

#include "core/model/config.h"

namespace tw {

// Called with the fraction done; return false to stop. Empty: run to the end.
using KeepGoing = std::function<bool(float)>;

struct MachineProbe {
  double peak_flops = 0;      // FLOP/s of the float matrix product
  double bandwidth = 0;       // bytes/s of main memory
  int gemm_n = 0;             // size of the square matrices multiplied
  double gemm_seconds = 0;    // total time in the products
  double buffer_bytes = 0;    // size of the buffer copied and summed
  double memory_seconds = 0;  // total time in the copies and sums
  bool complete = false;      // false when cancelled (the numbers are then unusable)
};
MachineProbe probe_machine(const KeepGoing& keep_going = {});

struct ForwardTiming {
  ModelConfig config;          // the config that was timed
  int prompt = 0;              // tokens of the timed prefill
  int decode_steps = 0;        // single-token steps timed after it
  double prefill_seconds = 0;  // one forward_cached call over the prompt
  double decode_seconds = 0;   // mean time of one decode step
  double prefill_tokens_per_s = 0;
  double decode_tokens_per_s = 0;
  bool complete = false;  // false when cancelled
  std::string error;      // "" when the config could be run
};
// Largest prompt and step count that keep the whole timing near `budget_seconds` on a machine of `peak_flops`
// (from forward_flops), at least 1 token and 1 step, and within the config's max_seq.
void cap_forward_timing(const ModelConfig& config, double peak_flops, double budget_seconds, int* prompt,
                        int* decode_steps);
// Refuses configs whose weights would not fit the app's memory cap (validate(config)).
ForwardTiming time_forward(const ModelConfig& config, int prompt, int decode_steps, uint64_t seed,
                           const KeepGoing& keep_going = {});

}  // namespace tw
