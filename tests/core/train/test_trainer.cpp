// Trainer: measurements against hand values, determinism, learning, divergence handling and checkpoints.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "core/io/safetensors.h"
#include "core/model/forward.h"
#include "core/model/hf_model.h"
#include "core/train/trainer.h"

namespace tw {
namespace {

TrainSettings copy_settings() {
  return {.model = {.dim = 32, .n_layers = 2, .n_heads = 2, .n_kv_heads = 2, .vocab = 8, .hidden = 64, .max_seq = 16},
          .task = {.kind = TaskKind::Copy, .length = 5, .alphabet = 8, .val_examples = 64},
          .optimizer = {.lr = 3e-3f},
          .batch = 16,
          .seed = 11};
}

std::vector<float> flat(const Trainer& t) {
  std::vector<float> out;
  ModelWeights w = t.weights();
  visit_parameters(w, t.model_config(),
                   [&](const std::string&, float* d, int64_t n, ParamKind) { out.insert(out.end(), d, d + n); });
  return out;
}

TEST(TrainerMeasures, ScoreLogitsByHand) {
  Mat logits(3, 3);
  logits << 0, 0, 0,  // uniform: −log(1/3), arg-max ties → first (0)
      2, 1, 0,        // target 0 is the arg-max
      0, 0, 5;        // ignored (target −1)
  const Evaluation e = score_logits(logits, {1, 0, -1});
  const double l1 = std::log(3.0), l2 = std::log(std::exp(2.0) + std::exp(1.0) + 1.0) - 2.0;
  EXPECT_NEAR(e.loss, (l1 + l2) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(e.accuracy, 0.5);  // row 0 predicts 0 ≠ 1, row 1 predicts 0 = 0
  // log Z of the two scored rows: ln 3 and ln(e² + e + 1) (row 2 has no target and is left out).
  EXPECT_NEAR(e.log_z, (std::log(3.0) + std::log(std::exp(2.0) + std::exp(1.0) + 1.0)) / 2, 1e-9);
}

TEST(TrainerMeasures, HeadScoresOfIdealHeads) {
  const int n = 4, T = 8, H = 3;
  Mat probs = Mat::Zero(H * T, T);
  for (int t = 0; t < T; ++t) {
    probs(0 * T + t, std::max(t - 1, 0)) = 1;                                // previous-token head
    probs(1 * T + t, t >= n ? t - n + 1 : 0) = 1;                            // induction head
    for (int j = 0; j <= t; ++j) probs(2 * T + t, j) = 1.0f / float(t + 1);  // uniform
  }
  double prev[H], ind[H];
  head_scores_of_layer(probs, H, n, prev, ind);
  EXPECT_DOUBLE_EQ(prev[0], 1.0);
  EXPECT_DOUBLE_EQ(ind[1], 1.0);
  EXPECT_NEAR(ind[0], 0.0, 1e-12);  // t−1 ≠ t−n+1 for n = 4
  // Uniform head: mean over t = 1..7 of 1/(t+1), and over t = 4..6 of 1/(t+1).
  EXPECT_NEAR(prev[2], (1. / 2 + 1. / 3 + 1. / 4 + 1. / 5 + 1. / 6 + 1. / 7 + 1. / 8) / 7, 1e-6);
  EXPECT_NEAR(ind[2], (1. / 5 + 1. / 6 + 1. / 7) / 3, 1e-6);
}

TEST(Trainer, RejectsATaskLargerThanTheModelAndKeepsItsState) {
  Trainer t;
  std::string error;
  ASSERT_TRUE(t.init(copy_settings(), &error)) << error;
  ASSERT_TRUE(t.step(&error)) << error;
  TrainSettings bad = copy_settings();
  bad.task.alphabet = 20;  // vocabulary 20 > model's 8
  EXPECT_FALSE(t.init(bad, &error));
  EXPECT_NE(error.find("vocabulary of 20"), std::string::npos) << error;
  EXPECT_EQ(t.steps_done(), 1);  // the old run is intact
  bad = copy_settings();
  bad.task.kind = TaskKind::Text;  // empty text
  EXPECT_FALSE(t.init(bad, &error));
  EXPECT_NE(error.find("empty"), std::string::npos) << error;
}

TEST(Trainer, SameSettingsSameBits) {
  Trainer a, b, c;
  std::string error;
  TrainSettings s = copy_settings();
  ASSERT_TRUE(a.init(s, &error) && b.init(s, &error)) << error;
  s.seed = 12;
  ASSERT_TRUE(c.init(s, &error)) << error;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(a.step(&error) && b.step(&error) && c.step(&error)) << error;
  const std::vector<float> wa = flat(a), wb = flat(b), wc = flat(c);
  ASSERT_EQ(wa.size(), wb.size());
  EXPECT_EQ(std::memcmp(wa.data(), wb.data(), wa.size() * sizeof(float)), 0);
  EXPECT_NE(wa, wc);
  EXPECT_EQ(a.history().back().train_loss, b.history().back().train_loss);
}

TEST(Trainer, LearnsToCopy) {
  Trainer t;
  std::string error;
  ASSERT_TRUE(t.init(copy_settings(), &error)) << error;
  ASSERT_TRUE(t.step(&error)) << error;
  const double first = t.history().front().val_loss;
  EXPECT_NEAR(first, std::log(8.0), 0.7);  // untrained: close to uniform over 8 symbols
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(t.step(&error)) << error;
  const Evaluation e = t.evaluate();
  EXPECT_LT(e.loss, 0.5 * first);
  EXPECT_GT(e.accuracy, 0.5);  // far above chance (1/8)
  const MetricsRow& row = t.history().back();
  EXPECT_EQ(row.step, 301);
  ASSERT_EQ(row.layer_grad_norm.size(), 2u);
  double sq = 0;
  for (double g : row.layer_grad_norm) sq += g * g;
  EXPECT_LE(std::sqrt(sq), row.grad_norm * (1 + 1e-9));  // the blocks are part of the whole
  const HeadScores hs = t.head_scores();
  EXPECT_EQ(hs.previous_token.size(), 4u);
  EXPECT_EQ(t.probe_attention().size(), 2u);
}

TEST(Trainer, DivergenceStopsAndKeepsTheLastGoodWeights) {
  TrainSettings s = copy_settings();
  s.optimizer.kind = OptimizerKind::SGD;
  s.optimizer.momentum = 0;
  s.optimizer.clip_norm = 0;
  s.optimizer.lr = 1e38f;  // the first update overflows to inf
  Trainer t;
  std::string error;
  ASSERT_TRUE(t.init(s, &error)) << error;
  const std::vector<float> before = flat(t);
  int steps = 0;
  while (t.step(&error) && steps < 20) ++steps;
  EXPECT_TRUE(t.stopped());
  EXPECT_NE(error.find("diverged"), std::string::npos) << error;
  EXPECT_NE(error.find("lower learning rate"), std::string::npos) << error;
  const std::vector<float> after = flat(t);
  for (float v : after) ASSERT_TRUE(std::isfinite(v));
  if (steps == 0) {
    EXPECT_EQ(after, before);
  }
  EXPECT_FALSE(t.step(&error));  // stays stopped
}

TEST(Trainer, CheckpointRoundTrip) {
  Trainer a, b;
  std::string error;
  TrainSettings s = copy_settings();
  ASSERT_TRUE(a.init(s, &error)) << error;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(a.step(&error)) << error;
  const std::string dir = (std::filesystem::temp_directory_path() / "tw_trainer_ckpt_test").string();
  ASSERT_TRUE(a.save_checkpoint(dir, &error)) << error;
  s.seed = 99;  // different init: loading must replace it
  ASSERT_TRUE(b.init(s, &error)) << error;
  ASSERT_TRUE(b.load_checkpoint(dir, &error)) << error;
  EXPECT_EQ(flat(a), flat(b));
  EXPECT_FALSE(b.load_checkpoint(dir + "/missing", &error));
  EXPECT_EQ(flat(a), flat(b));  // a failed load changes nothing
  std::filesystem::remove_all(dir);
}

// GPT-2's, Qwen3's and Gemma 3's blocks train (their backward passes: tests/core/train/test_model_train.cpp), and a
// checkpoint is that family's Hugging Face folder: transformers' class in config.json, GPT-2's fused, transposed
// c_attn on disk, and the same weights and logits when the Hugging Face loader opens it.
TEST(Trainer, Gpt2Qwen3AndGemma3BlocksLearnAndSaveAsTheirFamily) {
  const std::pair<Family, const char*> families[] = {
      {Family::GPT2, "GPT2LMHeadModel"}, {Family::Qwen3, "Qwen3ForCausalLM"}, {Family::Gemma3, "Gemma3ForCausalLM"}};
  for (const auto& [family, architecture] : families) {
    SCOPED_TRACE(architecture);
    TrainSettings s = copy_settings();
    apply_family(s.model, family);
    Trainer t;
    std::string error;
    ASSERT_TRUE(t.init(s, &error)) << error;
    ASSERT_TRUE(t.step(&error)) << error;
    const double first = t.history().front().val_loss;
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(t.step(&error)) << error;
    EXPECT_LT(t.evaluate().loss, 0.5 * first);

    const std::string dir = (std::filesystem::temp_directory_path() / "tw_trainer_family_test").string();
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(t.save_checkpoint(dir, &error)) << error;
    SafeTensors file;
    ASSERT_TRUE(read_safetensors(dir + "/model.safetensors", &file, &error)) << error;
    if (family == Family::GPT2) {  // Conv1D: (in, out), q, k and v side by side
      const NamedTensor* c_attn = file.find("transformer.h.0.attn.c_attn.weight");
      ASSERT_NE(c_attn, nullptr);
      EXPECT_EQ(c_attn->shape, (std::vector<int64_t>{32, 96}));
      const Mat& wk = t.weights().layers[0].wk;  // (out, in): k's output 3 is c_attn's column 32 + 3
      EXPECT_EQ(c_attn->data[size_t(5 * 96 + 32 + 3)], wk(3, 5));
      EXPECT_EQ(file.find("model.layers.0.self_attn.k_proj.weight"), nullptr);
    } else {
      EXPECT_NE(file.find("model.layers.0.self_attn.q_norm.weight"), nullptr);
    }
    HfModel m;
    ASSERT_TRUE(load_hf_model(dir, {}, &m, &error)) << error;
    EXPECT_EQ(m.architecture, architecture);
    EXPECT_EQ(m.config.family, family);
    Mat trained, loaded;
    const std::vector<int> tokens = {1, 2, 3, 4, 5, 0, 1, 2};
    ASSERT_TRUE(forward(trained, nullptr, t.weights(), t.model_config(), tokens, &error)) << error;
    ASSERT_TRUE(forward(loaded, nullptr, m.weights, m.config, tokens, &error)) << error;
    EXPECT_EQ(trained, loaded);  // every weight read back bit for bit

    Trainer back;  // and the trainer reads its own folder back
    s.seed = 99;
    ASSERT_TRUE(back.init(s, &error)) << error;
    ASSERT_TRUE(back.load_checkpoint(dir, &error)) << error;
    EXPECT_EQ(flat(back), flat(t));
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace tw
