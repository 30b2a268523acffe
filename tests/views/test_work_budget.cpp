// Issue 45: a headless command's work budget (export --max-seconds) stops a computation whose progress projects a
// longer run, keeps what it computed, and says why once; the GUI, with no budget, is never stopped by it.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "views/async_job.h"

namespace tw {
namespace {

// A computation of `steps` steps of `ms` milliseconds that reports its progress and stops when told: how many
// steps it did.
int paced(Progress& p, int steps, int ms) {
  int done = 0;
  for (; done < steps && !p.cancelled(); ++done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    p.set(float(done + 1) / float(steps));
  }
  return done;
}

TEST(WorkBudget, AComputationProjectedPastTheBudgetStopsEarlyKeepingItsResult) {
  set_work_budget(2.0);
  AsyncJob<int> job;
  const auto t0 = std::chrono::steady_clock::now();
  job.request([](Progress& p) { return paced(p, 400, 10); });  // 4 s at this pace, above 2 s
  job.wait();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_GT(*job.latest(), 10);   // it ran at least its first half second
  EXPECT_LT(*job.latest(), 400);  // and stopped long before the end
  EXPECT_LT(took, 2.0);
  const std::string why = take_work_budget_message();
  EXPECT_EQ(why.rfind("stopped after ", 0), 0u) << why;
  EXPECT_NE(why.find("above --max-seconds 2; pass --max-seconds "), std::string::npos) << why;
  EXPECT_EQ(take_work_budget_message(), "");  // said once
  set_work_budget(0);
}

TEST(WorkBudget, AComputationWithinTheBudgetRunsToTheEnd) {
  set_work_budget(30.0);
  AsyncJob<int> job;
  job.request([](Progress& p) { return paced(p, 60, 10); });  // 0.6 s
  job.wait();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), 60);
  EXPECT_EQ(take_work_budget_message(), "");
  set_work_budget(0);
}

TEST(WorkBudget, WithoutABudgetNothingIsStopped) {
  set_work_budget(0);
  AsyncJob<int> job;
  job.request([](Progress& p) { return paced(p, 100, 10); });
  job.wait();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), 100);
  EXPECT_EQ(take_work_budget_message(), "");
}

}  // namespace
}  // namespace tw
