// Issue 45: the training memory estimate counts the user's training text (its copies, token ids, the tokenizer's
// counts), so a 16 MB file cannot pass a cap the run then overshoots 1.6×.
#include <gtest/gtest.h>

#include <string>

#include "core/train/trainer.h"

namespace tw {
namespace {

TEST(TrainingEstimate, TheTrainingTextCountsPerByte) {
  TrainSettings s;
  const double base = estimated_training_bytes(s, 32);
  s.task.language.text = std::string(1 << 20, 'a');
  EXPECT_DOUBLE_EQ(estimated_training_bytes(s, 32) - base, double(1 << 20) * kTextBytesPerByte);
  s.task.language.text.clear();
  s.task.text = std::string(1000, 'b');  // the text task's text counts the same way
  EXPECT_DOUBLE_EQ(estimated_training_bytes(s, 32) - base, 1000.0 * kTextBytesPerByte);
}

}  // namespace
}  // namespace tw
