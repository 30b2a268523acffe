#include "views/async_job.h"

#include <gtest/gtest.h>

#include <chrono>

namespace tw {

TEST(AsyncJob, DeliversTheResultOfTheLatestRequest) {
  AsyncJob<int> job;
  EXPECT_EQ(job.latest(), nullptr);
  for (int i = 1; i <= 20; ++i) job.request([i](Progress&) { return i * i; });
  job.wait();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), 400);
  EXPECT_FALSE(job.busy());
}

TEST(AsyncJob, CancelledComputationIsReplacedNotShown) {
  AsyncJob<int> job;
  job.request([](Progress& p) {
    while (!p.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return -1;  // a cancelled run's value must never be shown
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  job.request([](Progress& p) {
    p.set(0.5f);
    return 7;
  });
  job.wait();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), 7);
  EXPECT_FLOAT_EQ(job.progress(), 1.0f);
}

TEST(AsyncJob, DestructorStopsARunningComputation) {
  auto job = std::make_unique<AsyncJob<int>>();
  job->request([](Progress& p) {
    while (!p.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 0;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  job.reset();  // must return (not hang) because the destructor cancels
  SUCCEED();
}

}  // namespace tw
