#include "core/experiments/roofline.h"

#include <gtest/gtest.h>

namespace tw {
namespace {

// The Small config (C 256, 4 layers, H 8, KV 4, D 32, F 768 SwiGLU, V 8192), worked by hand:
//   per layer: q 256·256 + k, v 2·256·128 + o 256·256 + gate/up/down 3·256·768 = 786,432
//   matmul parameters = 4 · 786,432 + LM head 8192·256 = 5,242,880
TEST(Roofline, MatmulParametersOfSmall) { EXPECT_DOUBLE_EQ(matmul_parameters(small_config()), 5242880.0); }

TEST(Roofline, GemmAndGemvIntensity) {
  EXPECT_NEAR(gemm_intensity(4096, 4096, 4096, 2), 4096.0 / 3.0, 1e-9);  // 2n³ / (2 · 3n²)
  // A decode step's GEMV: 2·4096² / (2·(4096 + 4096² + 4096)) ≈ 1 FLOP per byte in bf16.
  EXPECT_NEAR(gemm_intensity(1, 4096, 4096, 2), 4096.0 * 4096.0 / (4096.0 * 4096.0 + 8192.0), 1e-12);
}

// One decode step of Small at batch 1 with 1023 cached tokens (1024 keys with the new one), bf16 weights and KV:
//   FLOPs  = 2 · 5,242,880 + 4 layers · 4 · H 8 · D 32 · 1 query · 1024 keys = 10,485,760 + 4,194,304 = 14,680,064
//   bytes  = weights 2 · 5,242,880 = 10,485,760 + KV 2 · 4 · 4 · 32 · 1024 · 2 = 2,097,152 → 12,582,912
//   intensity = 7/6 FLOP/byte; on an A100 (ridge 312e12 / 2.039e12 = 153) memory-bound:
//   t = 12,582,912 / 2.039e12 s → 162,046 tokens/s.
TEST(Roofline, DecodeStepOfSmallByHand) {
  InferenceShape s;
  s.model = small_config();
  s.context = 1023;
  const Device a100 = device_presets()[1];
  const PhaseCost p = decode_cost(s, a100);
  EXPECT_DOUBLE_EQ(p.flops, 14680064.0);
  EXPECT_DOUBLE_EQ(p.weight_bytes, 10485760.0);
  EXPECT_DOUBLE_EQ(p.kv_bytes, 2097152.0);
  EXPECT_NEAR(p.intensity, 7.0 / 6.0, 1e-12);
  EXPECT_TRUE(p.memory_bound);
  EXPECT_NEAR(p.tokens_per_s, 2.039e12 / 12582912.0, 1e-6);
  EXPECT_NEAR(ridge_point(a100), 312.0 / 2.039, 1e-9);
  EXPECT_NEAR(attainable_flops(a100, p.intensity), 7.0 / 6.0 * 2.039e12, 1.0);

  // int4 weights: 2,621,440 + 2,097,152 bytes: 8/3 times faster, not 4×, because the KV cache is not quantized.
  s.weights = WeightFormat::Int4;
  EXPECT_NEAR(decode_cost(s, a100).tokens_per_s / p.tokens_per_s, 8.0 / 3.0, 1e-12);
}

// Prefill of 512 tokens: FLOPs = 2 · 5,242,880 · 512 + 4 · (4 · 8 · 32 · 512 queries · 256.5 mean keys)
//   = 5,368,709,120 + 537,919,488 = 5,906,628,608; bytes = 10,485,760 + KV 1,048,576 → intensity ≈ 512,
//   above the A100's ridge point: compute-bound.
TEST(Roofline, PrefillOfSmallIsComputeBound) {
  InferenceShape s;
  s.model = small_config();
  s.prompt = 512;
  const PhaseCost p = prefill_cost(s, device_presets()[1]);
  EXPECT_DOUBLE_EQ(p.flops, 5906628608.0);
  EXPECT_DOUBLE_EQ(p.bytes, 11534336.0);
  EXPECT_FALSE(p.memory_bound);
  EXPECT_NEAR(p.tokens_per_s, 512.0 / (5906628608.0 / 312e12), 1e-3);
}

TEST(Roofline, BatchRaisesDecodeIntensityUntilTheKvCacheDominates) {
  InferenceShape s;
  s.model = small_config();
  s.context = 64;
  double last = 0;
  for (int b : {1, 2, 4, 8, 16}) {
    s.batch = b;
    const double i = decode_cost(s, device_presets()[0]).intensity;
    EXPECT_GT(i, last) << "batch " << b;
    last = i;
  }
  EXPECT_DOUBLE_EQ(kv_cache_bytes(s, 10), 2.0 * 4 * 4 * 32 * 10 * 16 * 2);
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

// The KV cache formats the roofline panel offers: the bytes per cached number and the names its control shows.
TEST(Roofline, KvFormatsNameTheirBytesPerValue) {
  EXPECT_EQ(bytes_per_value(KvFormat::BF16), 2.0);
  EXPECT_EQ(bytes_per_value(KvFormat::FP8), 1.0);
  EXPECT_EQ(bytes_per_value(KvFormat::FP32), 4.0);
  EXPECT_STREQ(to_string(KvFormat::BF16), "bf16");
  EXPECT_STREQ(to_string(KvFormat::FP8), "fp8");
  EXPECT_STREQ(to_string(KvFormat::FP32), "fp32");
}

}  // namespace
}  // namespace tw
