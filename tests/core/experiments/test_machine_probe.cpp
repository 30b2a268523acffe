// The probe and the forward timing are measurements: the tests check what must hold on any machine (finite,
// positive, the config that was asked for, cancel stops early), never how fast.
#include "core/experiments/machine_probe.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/experiments/roofline.h"
#include "core/model/forward.h"

namespace tw {
namespace {

TEST(MachineProbe, FinitePositiveNumbers) {
  const MachineProbe p = probe_machine();
  ASSERT_TRUE(p.complete);
  EXPECT_TRUE(std::isfinite(p.peak_flops));
  EXPECT_GT(p.peak_flops, 0);
  EXPECT_TRUE(std::isfinite(p.bandwidth));
  EXPECT_GT(p.bandwidth, 0);
  EXPECT_GT(p.gemm_n, 0);
  EXPECT_GT(p.buffer_bytes, 0);
}

TEST(MachineProbe, CancelStopsWithoutNumbers) {
  int calls = 0;
  const MachineProbe p = probe_machine([&](float) { return ++calls < 2; });
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(calls, 2);
}

TEST(ForwardTiming, DecodeTimesTheSameConfig) {
  const ModelConfig c = tiny_config();
  const ForwardTiming t = time_forward(c, 16, 4, 7);
  ASSERT_TRUE(t.error.empty()) << t.error;
  ASSERT_TRUE(t.complete);
  EXPECT_EQ(t.config, c);
  EXPECT_EQ(t.prompt, 16);
  EXPECT_EQ(t.decode_steps, 4);
  EXPECT_TRUE(std::isfinite(t.prefill_tokens_per_s));
  EXPECT_GT(t.prefill_tokens_per_s, 0);
  EXPECT_GT(t.decode_tokens_per_s, 0);
  EXPECT_NEAR(t.decode_tokens_per_s * t.decode_seconds, 1.0, 1e-9);
  EXPECT_NEAR(t.prefill_tokens_per_s * t.prefill_seconds, 16.0, 1e-9);
}

TEST(ForwardTiming, RefusesTooLongAndCancels) {
  const ModelConfig c = tiny_config();  // max_seq 128
  EXPECT_FALSE(time_forward(c, 120, 20, 1).error.empty());
  EXPECT_FALSE(time_forward(c, 0, 1, 1).error.empty());
  const ForwardTiming t = time_forward(c, 8, 4, 1, [](float f) { return f < 0.5f; });
  EXPECT_TRUE(t.error.empty());
  EXPECT_FALSE(t.complete);
}

TEST(ForwardTiming, CapKeepsWithinBudgetAndMaxSeq) {
  const ModelConfig c = small_config();  // max_seq 256
  int prompt = 10000, steps = 500;
  cap_forward_timing(c, 1e9, 1.0, &prompt, &steps);
  EXPECT_GE(prompt, 1);
  EXPECT_GE(steps, 1);
  EXPECT_LE(prompt + steps, c.max_seq);
  EXPECT_LE(forward_flops(c, prompt), 0.5e9);
  // A generous budget leaves the requested sizes alone.
  prompt = 32, steps = 8;
  cap_forward_timing(c, 1e15, 1.0, &prompt, &steps);
  EXPECT_EQ(prompt, 32);
  EXPECT_EQ(steps, 8);
}

// Llama-3-8B from its config.json, matmul parameters by hand:
//   per layer q 4096² + k, v 2·4096·1024 + o 4096² + MLP 3·4096·14336 = 218,103,808; ×32 = 6,979,321,856
//   + LM head 128256·4096 = 525,336,576 → 7,504,658,432
TEST(InferenceModels, Llama3MatmulParametersByHand) {
  const auto& models = inference_model_presets();
  ASSERT_FALSE(models.empty());
  EXPECT_EQ(models[0].name, "Llama-3-8B");
  EXPECT_DOUBLE_EQ(matmul_parameters(models[0].config), 7504658432.0);
}

}  // namespace
}  // namespace tw
