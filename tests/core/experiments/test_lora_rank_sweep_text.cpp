// LoRA panel, real mode on a language model: the shipped poems model (Tang poems) fine-tuned on a text it
// never saw (100 Song ci, Debian fortunes-zh) at several ranks and fully, its text encoded with its own tokenizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/experiments/lora_rank_sweep.h"
#include "core/model/forward.h"
#include "core/train/model_folder.h"
#include "core/train/tasks.h"
#include "lora_sweep_checks.h"
#include "test_util.h"

namespace tw {
namespace {

StepperModel shipped(const std::string& name) {
  StepperModel m;
  std::string error;
  EXPECT_TRUE(load_hf_stepper_model(shipped_models_dir() + "/" + name, {}, &m, &error)) << error;
  return m;
}

LoraSweepParams poems_on_song_ci(const StepperModel& m, int steps) {
  LoraSweepParams p = testing::song_ci_sweep(m);
  p.ranks = {1, 4, 16};
  p.steps = steps;
  p.batch = 8;
  p.eval_every = 10;
  p.lr_lora = 1e-2f;
  p.lr_full = 3e-3f;
  return p;
}

// Mean −log p of the held-out text's tokens, windows of T tokens in order (each window's first token is given),
// through the stepper's forward pass and a log-softmax in double precision.
double reference_heldout_loss(const StepperModel& m, const std::vector<int>& ids, int T) {
  double total = 0;
  int64_t count = 0;
  for (size_t start = 0; start + 1 < ids.size(); start += size_t(T)) {
    const size_t end = std::min(ids.size(), start + size_t(T));
    const std::vector<int> window(ids.begin() + long(start), ids.begin() + long(end));
    Mat logits;
    std::string error;
    EXPECT_TRUE(forward(logits, nullptr, *m.weights, m.config, window, &error)) << error;
    for (size_t t = 0; t < window.size() && start + t + 1 < ids.size(); ++t) {
      const int target = ids[start + t + 1];
      double mx = -1e300;
      for (Eigen::Index v = 0; v < logits.cols(); ++v) mx = std::max(mx, double(logits(Eigen::Index(t), v)));
      double z = 0;
      for (Eigen::Index v = 0; v < logits.cols(); ++v) z += std::exp(double(logits(Eigen::Index(t), v)) - mx);
      total += -(double(logits(Eigen::Index(t), target)) - mx - std::log(z));
      ++count;
    }
  }
  EXPECT_EQ(count, int64_t(ids.size()) - 1);  // every held-out token but the first is predicted once
  return total / double(count);
}

TEST(LoraRankSweepText, PoemsOnSongCiStartsAtTheBaseAndLearns) {
  TW_RELEASE_STAGE_ONLY();  // 4 fine-tunes of the 6.4M-parameter model; the quotes case below runs the same path
  const StepperModel m = shipped("poems");
  ASSERT_FALSE(m.tokenizer_json.empty());
  const LoraSweepParams p = poems_on_song_ci(m, 30);
  ASSERT_EQ(check_lora_sweep(p), "");
  const LoraSweep s = run_lora_sweep(p);
  ASSERT_FALSE(s.cancelled);
  ASSERT_TRUE(s.language);
  ASSERT_EQ(s.runs.size(), 4u);  // r = 1, 4, 16, full

  // Step 0 is the base model on the Song ci's held-out part, computed independently.
  Task task;
  std::string error;
  ASSERT_TRUE(Task::create(p.task, &task, &error)) << error;
  const LanguageData& lm = *task.language();
  EXPECT_GT(lm.heldout_records, 5u);  // every tenth of the 100 ci
  const double ref = reference_heldout_loss(m, lm.heldout_ids, p.task.context);
  EXPECT_NEAR(s.base_loss, ref, 1e-4 * ref);
  // Bits per character: total −log₂ p over the held-out characters.
  const double ref_bits = ref * double(lm.heldout_ids.size() - 1) / std::log(2.0) / double(lm.heldout_chars);
  EXPECT_NEAR(s.base_bits, ref_bits, 1e-4 * ref_bits);
  // A model of Tang poems predicts Song ci (lines of every length) worse than the held-out Tang poems (6.560 bits per
  // character, assets/models/poems/README.md).
  EXPECT_GT(s.base_bits, 6.560);

  for (const LoraSweepRun& r : s.runs) {
    EXPECT_EQ(r.stopped, "") << "rank " << r.rank;
    EXPECT_DOUBLE_EQ(r.val_loss.front(), s.base_loss);  // every run starts from the base model ...
    EXPECT_DOUBLE_EQ(r.val_bits.front(), s.base_bits);
    ASSERT_EQ(r.val_bits.size(), r.val_loss.size());
    EXPECT_EQ(r.eval_steps.back(), 30);
    // ... and bits per character stay proportional to the loss (the same held-out tokens and characters).
    EXPECT_NEAR(r.final_bits / r.final_loss, s.base_bits / s.base_loss, 1e-9 * s.base_bits / s.base_loss);
  }
  // The full fine-tune and rank 16 lower the held-out loss below the base model's within 30 steps.
  const LoraSweepRun& r16 = s.runs[2];
  const LoraSweepRun& full = s.runs[3];
  ASSERT_EQ(r16.rank, 16);
  ASSERT_EQ(full.rank, 0);
  EXPECT_LT(r16.final_loss, 0.985 * s.base_loss);
  EXPECT_LT(full.final_loss, 0.985 * s.base_loss);
  EXPECT_EQ(full.trainable, s.base_parameters);
  // Trainable weights of rank r: r · Σ(d_in + d_out) over the layers' q, k, v, o (dim × dim: the model has as many
  // key/value heads as query heads) and gate, up (hidden × dim), down (dim × hidden).
  ASSERT_EQ(m.config.n_kv_heads, m.config.n_heads);
  const int64_t per_rank = m.config.n_layers * (4 * 2 * m.config.dim + 3 * (m.config.dim + m.config.hidden));
  EXPECT_EQ(s.runs[0].trainable, per_rank);
  EXPECT_EQ(r16.trainable, 16 * per_rank);

  // Every rank-r ΔW = s·BA has at most r singular values above 1e-5 σ₁; the full fine-tune's ΔW has more.
  testing::expect_rank_bounded_spectra(s, 7u * size_t(m.config.n_layers));  // 7 modules a layer
}

TEST(LoraRankSweepText, QuotesOnAnotherTextAndRefusals) {
  const StepperModel m = shipped("quotes");
  LoraSweepParams p = poems_on_song_ci(m, 5);
  // A text of the user's: paragraphs of English the quotes model never saw.
  std::string text;
  for (int i = 0; i < 40; ++i)
    text += "Paragraph " + std::to_string(i) + " of a letter: the river was high and the boats stayed home.\n\n";
  p.task.language.corpus = "file";
  p.task.language.text = text;
  p.ranks = {2};
  ASSERT_EQ(check_lora_sweep(p), "");
  const LoraSweep s = run_lora_sweep(p);
  ASSERT_EQ(s.runs.size(), 2u);
  EXPECT_GT(s.base_bits, 0.0);
  EXPECT_LT(s.runs[1].final_loss, s.base_loss);  // the full fine-tune learns the repetitive text at once

  // A tokenizer that is not the model's: its ids would mean other tokens. Here: more tokens than the model has.
  LoraSweepParams bad = p;
  bad.task.language.tokenizer_json = shipped("poems").tokenizer_json;  // 6144 tokens > the quotes model's 4096
  EXPECT_NE(check_lora_sweep(bad), "");
  bad = p;
  bad.task.context = m.config.max_seq + 1;  // longer than the model's positions
  EXPECT_NE(check_lora_sweep(bad), "");
  bad = p;
  bad.task.language.text = "too short";
  EXPECT_NE(check_lora_sweep(bad), "");
}

}  // namespace
}  // namespace tw
