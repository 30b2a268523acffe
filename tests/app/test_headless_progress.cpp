// Headless commands say what they are doing once work takes more than a second, and nothing before that.
#include "app/cli/headless_progress.h"

#include <gtest/gtest.h>

#include <thread>

namespace tw {
namespace {

TEST(HeadlessProgress, QuickWorkPrintsNothing) {
  HeadlessProgress progress("transformer-workbench test");
  progress.step("quick step");
  EXPECT_EQ(progress.lines_printed(), 0);  // destroyed long before the first second ends
}

TEST(HeadlessProgress, LongWorkPrintsTheCurrentStepEverySecond) {
  HeadlessProgress progress("transformer-workbench test");
  progress.step("slow step");
  // Not a timing measurement: only that a line appears after the first second, however loaded the machine is
  // (the watcher wakes at 1 s; 3 s leaves it two more chances).
  for (int i = 0; i < 30 && progress.lines_printed() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(progress.lines_printed(), 1);
}

}  // namespace
}  // namespace tw
