// TrainerSession: commands reach the worker, snapshots follow, bad settings keep the current run.
#include <gtest/gtest.h>

#include "core/train/trainer_session.h"

namespace tw {
namespace {

TrainSettings small_settings() {
  return {.model = {.dim = 16, .n_layers = 1, .n_heads = 2, .n_kv_heads = 1, .vocab = 4, .hidden = 32, .max_seq = 8},
          .task = {.kind = TaskKind::Sort, .length = 3, .alphabet = 4, .val_examples = 16},
          .optimizer = {},  // OptimizerConfig's defaults
          .batch = 4};
}

TEST(TrainerSession, StepsPlayToLimitAndKeepRunOnBadReset) {
  TrainerSession session;
  std::string error;
  EXPECT_FALSE(session.snapshot()->ready);
  ASSERT_TRUE(session.reset(small_settings(), &error)) << error;
  auto snap = session.snapshot();
  EXPECT_TRUE(snap->ready);
  EXPECT_EQ(snap->step, 0);
  ASSERT_EQ(snap->attention.size(), 1u);
  EXPECT_EQ(snap->attention[0].rows(), 2 * 6);  // H*T on the 6-token probe

  for (int i = 0; i < 3; ++i) session.step_once();
  session.wait_idle();
  EXPECT_EQ(session.snapshot()->step, 3);
  EXPECT_EQ(session.snapshot()->history.size(), 3u);

  session.set_max_steps(12);
  session.set_steps_per_publish(4);
  session.play();
  session.wait_idle();
  snap = session.snapshot();
  EXPECT_EQ(snap->step, 12);
  EXPECT_FALSE(session.running());

  TrainSettings bad = small_settings();
  bad.model.vocab = 2;  // the sort task needs 4 tokens
  EXPECT_FALSE(session.reset(bad, &error));
  EXPECT_NE(error.find("vocabulary"), std::string::npos) << error;
  EXPECT_EQ(session.snapshot()->step, 12);  // the run continues untouched

  session.pin_current("first");
  ASSERT_EQ(session.snapshot()->pinned.size(), 1u);
  EXPECT_EQ(session.snapshot()->pinned[0].history.size(), 12u);
  for (int i = 0; i < 5; ++i) session.pin_current("again");
  EXPECT_EQ(session.snapshot()->pinned.size(), size_t(kMaxPinnedRuns));
  ASSERT_TRUE(session.reset(small_settings(), &error)) << error;
  EXPECT_EQ(session.snapshot()->step, 0);
  EXPECT_EQ(session.snapshot()->pinned.size(), size_t(kMaxPinnedRuns));  // pins survive a reset
  session.clear_pins();
  EXPECT_TRUE(session.snapshot()->pinned.empty());
}

}  // namespace
}  // namespace tw
