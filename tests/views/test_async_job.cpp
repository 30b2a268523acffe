#include "views/async_job.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>

#include "views/panel.h"
#include "views/recompute.h"

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

// The user's Cancel stops a running job at its next progress check; nothing new is shown and wait() returns.
TEST(AsyncJob, CancelStopsTheRunningJobAndKeepsThePreviousResult) {
  AsyncJob<int> job;
  job.request([](Progress&) { return 5; });
  job.wait();
  std::atomic<bool> started{false};
  job.request([&started](Progress& p) {
    started = true;
    while (!p.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return -1;
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  job.cancel();
  job.wait();  // must return: the cancelled request counts as done
  EXPECT_FALSE(job.busy());
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), 5);
}

// Recompute: a quick request is current right after request(); a cancelled long one leaves the previous result.
TEST(Recompute, QuickRequestsAreWaitedForAndCancelKeepsThePreviousResult) {
  Recompute<int> r;
  r.request(true, false, [](Progress&) { return std::make_shared<const int>(1); });
  ASSERT_TRUE(r.result());
  EXPECT_EQ(*r.result(), 1);
  EXPECT_TRUE(r.take_fresh());
  EXPECT_FALSE(r.take_fresh());  // once per result
  std::atomic<bool> started{false};
  r.request(false, false, [&started](Progress& p) {
    started = true;
    while (!p.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return std::make_shared<const int>(2);
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(r.busy());
  r.cancel();
  r.wait();
  EXPECT_TRUE(r.cancelled());
  EXPECT_EQ(*r.result(), 1);
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

// Background recomputes run 10 nice levels below the caller on a thread of their own; the caller's priority (the
// worker that also runs the recomputes the UI waits for) is left as it was.
// A computation that throws (bad_alloc for settings the machine cannot afford) must not end the process from the
// worker thread: the last good result stays, failure() says why, and the next request runs normally.
TEST(AsyncJob, AThrowingComputationKeepsTheLastResultAndSaysWhy) {
  AsyncJob<int> job;
  job.request([](Progress&) { return 7; });
  job.wait();
  job.request([](Progress&) -> int { throw std::bad_alloc(); });
  job.wait();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), 7);
  EXPECT_NE(job.failure().find("out of memory"), std::string::npos) << job.failure();
  job.request([](Progress&) { return run_with_priority(true, []() -> int { throw std::runtime_error("boom"); }); });
  job.wait();
  EXPECT_EQ(job.failure(), "boom");  // also from the low-priority thread of run_with_priority
  job.request([](Progress&) { return 9; });
  job.wait();
  EXPECT_EQ(*job.latest(), 9);
  EXPECT_EQ(job.failure(), "");
}

// A panel whose first computation runs out of memory says so (issue 28, defect 12): export printed "the panel has no
// figures to export" instead.
struct OomState {
  int n = 1;
};
struct OomResult {};
class OomPanel : public RecomputePanel<OomState, OomResult> {
 public:
  OomPanel()
      : RecomputePanel({"oom", "Out of memory", "Test", "throws bad_alloc"},
                       Hooks{[](const OomState& s, Progress&) -> std::shared_ptr<const OomResult> {
                               if (s.n > 1) throw std::bad_alloc();
                               return std::make_shared<const OomResult>();
                             },
                             [](const OomResult&) { return std::string(); },
                             {}}) {}
  void bind(Controls& c) override { c.add_int("n", &s_.n, 1, 10, "n", "size"); }
};

TEST(RecomputePanel, AComputationOutOfMemoryIsTheError) {
  OomPanel p;
  p.bind_controls();
  p.controls().find("n")->set(2);
  p.update();
  p.wait_idle();
  p.update();
  EXPECT_TRUE(p.figures().empty());
  EXPECT_NE(p.error().find("out of memory"), std::string::npos) << p.error();
  EXPECT_EQ(p.problem(), p.error());
  p.controls().find("n")->set(1);  // settings that fit: no error
  p.update();
  p.wait_idle();
  p.update();
  EXPECT_EQ(p.error(), "");
}

TEST(RunWithPriority, LowersOnlyTheBackgroundWork) {
  const int before = getpriority(PRIO_PROCESS, 0);
  AsyncJob<int> job;
  int worker_after = -100;
  job.request([&worker_after](Progress&) {
    const int inside = run_with_priority(true, [] { return getpriority(PRIO_PROCESS, 0); });
    worker_after = getpriority(PRIO_PROCESS, 0);
    return inside;
  });
  job.wait();
  ASSERT_NE(job.latest(), nullptr);
  EXPECT_EQ(*job.latest(), std::min(before + 10, 19));
  EXPECT_EQ(worker_after, before);
  EXPECT_EQ(run_with_priority(false, [] { return getpriority(PRIO_PROCESS, 0); }), before);
  EXPECT_EQ(getpriority(PRIO_PROCESS, 0), before);
}

}  // namespace tw
