// LoRA panel, real mode: the shipped sort model fine-tuned to reverse at several ranks and fully.
#include <gtest/gtest.h>

#include "core/experiments/lora_rank_sweep.h"
#include "core/train/model_folder.h"
#include "lora_sweep_checks.h"

namespace tw {
namespace {

LoraSweepParams sort_to_reverse(int steps) {
  StepperModel m;
  std::string error;
  EXPECT_TRUE(load_task_checkpoint(shipped_models_dir() + "/sort", &m, &error)) << error;
  LoraSweepParams p;
  p.model = m.config;
  p.base = m.weights;
  p.task = {.kind = TaskKind::Reverse, .length = 6, .alphabet = 3, .val_examples = 64};
  p.ranks = {1, 4};
  p.steps = steps;
  p.lr_lora = 1e-2f;
  p.lr_full = 3e-3f;
  return p;
}

TEST(LoraRankSweep, SortModelLearnsToReverseAndAdapterRanksHold) {
  const LoraSweepParams p = sort_to_reverse(80);
  ASSERT_EQ(check_lora_sweep(p), "");
  EXPECT_EQ(lora_sweep_steps(p), 3 * 80);
  const LoraSweep s = run_lora_sweep(p);
  ASSERT_FALSE(s.cancelled);
  ASSERT_EQ(s.runs.size(), 3u);
  EXPECT_EQ(s.base_parameters, 37392);  // assets/models/README.md
  // The sort model does not reverse: its held-out loss on the new task is far above what fine-tuning reaches.
  for (const LoraSweepRun& r : s.runs) {
    EXPECT_EQ(r.stopped, "");
    EXPECT_LT(r.final_loss, 0.7 * s.base_loss) << "rank " << r.rank;
    EXPECT_DOUBLE_EQ(r.val_loss.front(), s.base_loss);  // step 0 of every run is the base model
    EXPECT_EQ(r.eval_steps.back(), 80);
  }
  // Trainable parameters: r · Σ (d_in + d_out) over 2 layers of q, k, v, o (48 × 48 each) and ReLU up (96 × 48),
  // down (48 × 96): per layer 4·96 + 2·144 = 672.
  EXPECT_EQ(s.runs[0].rank, 1);
  EXPECT_EQ(s.runs[0].trainable, 2 * 672);
  EXPECT_EQ(s.runs[1].trainable, 4 * 2 * 672);
  EXPECT_EQ(s.runs[2].rank, 0);
  EXPECT_EQ(s.runs[2].trainable, 37392);
  // Spectra: 12 matrices each; rank r keeps at most r non-zero σ, the full fine-tune's ΔW uses many more.
  testing::expect_rank_bounded_spectra(s, 12u);  // 12 matrices
}

TEST(LoraRankSweep, CancelAndBadInput) {
  LoraSweepParams p = sort_to_reverse(50);
  int calls = 0;
  const LoraSweep s = run_lora_sweep(p, [&](float) { return ++calls < 10; });
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(calls, 10);
  EXPECT_TRUE(s.runs.empty());

  LoraSweepParams bad = p;
  bad.base = nullptr;
  EXPECT_NE(check_lora_sweep(bad), "");
  bad = p;
  bad.task.alphabet = 5;  // the sort model knows 3 symbols
  EXPECT_NE(check_lora_sweep(bad), "");
  bad = p;
  bad.ranks = {64};  // above 48
  bad.full = false;
  EXPECT_NE(check_lora_sweep(bad), "");
  bad = p;
  bad.model.dim = 32;  // weights of another shape
  bad.model.n_heads = 2;
  EXPECT_NE(check_lora_sweep(bad), "");
}

}  // namespace
}  // namespace tw
