#pragma once
// AsyncJob<Result>: recompute off the UI thread, latest request wins. Panels use it through Recompute
// (views/recompute.h), which adds the priority and "wait if quick" rules; the raw job is:
//
//   job.request([s](Progress& p) { ...; p.set(0.5f); ...; return Result{...}; });   // s: a copy of the inputs
//   if (const Result* r = job.latest()) draw(*r);      // the newest finished result (may be for older input)
//   if (job.busy()) ImGui::ProgressBar(job.progress());
//   job.cancel();                                        // the user's Cancel button: drop queued and running work
//   job.wait();                                          // headless: block until the newest request is done
//
// One worker thread per job. A request made while one runs replaces any queued request, so dragging a slider
// never queues a backlog; the running computation can look at Progress::cancelled() to stop early.

#include <sys/resource.h>

#include "core/base/i18n.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace tw {

// Called on a worker thread whenever it has something new to show (a job finished, a training step published, a
// thumbnail rendered). The GUI points it at Window::wake, so a main loop that blocks waiting for events draws the
// result at once; headless, it stays unset and nothing happens.
inline std::atomic<void (*)()>& result_ready_hook() {
  static std::atomic<void (*)()> hook{nullptr};
  return hook;
}
inline void notify_result_ready() {
  if (void (*hook)() = result_ready_hook().load()) hook();
}

// A visible thing that changes at a known time (a message that expires) asks for a frame then, so a window that
// otherwise waits for input still redraws at that moment. UI thread only; the main loop reads the earliest request.
inline std::chrono::steady_clock::time_point& requested_frame_time() {
  static std::chrono::steady_clock::time_point at = std::chrono::steady_clock::time_point::max();
  return at;
}
inline void request_frame_after(double seconds) {
  const auto at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(seconds));
  requested_frame_time() = std::min(requested_frame_time(), at);
}

// [SECTION] headless work budget
// A headless command (export) gives each computation a budget in seconds. A computation whose progress projects a
// longer run (elapsed / fraction done, after its first half second), or that passes the budget, is told to stop
// (Progress::cancelled() turns true) and keeps what it has; work_budget_message() then says why, once. The GUI sets
// no budget: it has a Cancel button.
struct WorkBudget {
  std::atomic<double> seconds{0};  // 0: none
  std::atomic<bool> exceeded{false};
  std::mutex mutex;
  std::string message;
};
inline WorkBudget& work_budget() {
  static WorkBudget b;  // process-wide setting of a headless command, not panel state
  return b;
}
inline void set_work_budget(double seconds) {
  work_budget().seconds = seconds;
  work_budget().exceeded = false;
}
// The message of the last computation stopped by the budget ("" when none); clears it, so the next panel starts
// with a full budget.
inline std::string take_work_budget_message() {
  WorkBudget& b = work_budget();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.exceeded = false;
  return std::exchange(b.message, std::string());
}

class Progress {
 public:
  void set(float fraction) {
    fraction_.store(fraction, std::memory_order_relaxed);
    check_budget(fraction);
  }
  float get() const { return fraction_.load(std::memory_order_relaxed); }
  // True when a newer request is waiting (its result is then discarded), or a headless budget ran out (the
  // computation returns what it has): the computation may return early.
  bool cancelled() const {
    return cancelled_.load(std::memory_order_relaxed) || work_budget().exceeded.load(std::memory_order_relaxed);
  }
  // The same flag for core functions that poll a `const std::atomic<bool>*` (tokenizer training).
  const std::atomic<bool>* cancel_flag() const { return &cancelled_; }
  // The fraction for core functions that report into a `std::atomic<float>*` (tokenizer training).
  std::atomic<float>* fraction_target() { return &fraction_; }

 private:
  template <class R>
  friend class AsyncJob;
  void check_budget(float fraction) {
    WorkBudget& b = work_budget();
    const double budget = b.seconds.load(std::memory_order_relaxed);
    if (budget <= 0 || b.exceeded.load(std::memory_order_relaxed)) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double projected = fraction > 0.001f ? elapsed / double(fraction) : 0.0;
    if (elapsed < budget && (elapsed < 0.5 || projected <= budget)) return;
    std::lock_guard<std::mutex> lock(b.mutex);
    if (b.exceeded) return;
    // "{2}% done" reads to xgettext as the C format "% d"; it is a {n} placeholder and a percent sign.
    b.message = elapsed >= budget
                    // xgettext:no-c-format
                    ? subst(tr("stopped after {0} s (--max-seconds {1}) with {2}% done; pass a larger --max-seconds "
                               "to finish it"),
                            {std::to_string(std::lround(elapsed)), std::to_string(std::lround(budget)),
                             std::to_string(std::lround(100.0 * fraction))})
                    : subst(tr("stopped after {0} s: at this pace the computation needs about {1} s, above "
                               "--max-seconds {2}; pass --max-seconds {3} to run it"),
                            {std::to_string(std::lround(elapsed)), std::to_string(std::lround(projected)),
                             std::to_string(std::lround(budget)), std::to_string(std::lround(projected * 1.2) + 1)});
    b.exceeded = true;
  }
  std::atomic<float> fraction_{0.0f};
  std::atomic<bool> cancelled_{false};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Runs `work` and returns its result; with `low_priority`, on a thread of its own whose nice value is 10 higher
// (on Linux the nice value is per thread). A long recompute then takes only the CPU the UI thread and the GL
// rasterizer leave: on a two-core machine they would otherwise share the cores evenly with it, and start-up and every
// frame drawn meanwhile would slow down. A thread of its own, because an unprivileged thread cannot raise its
// priority back, and a panel's worker also runs the quick recomputes the UI thread waits for, which must not run
// below the UI's priority.
template <class Work>
auto run_with_priority(bool low_priority, Work&& work) {
  if (!low_priority) return work();
  std::optional<decltype(work())> result;
  std::exception_ptr failure;  // rethrown on the caller's thread: an exception leaving a std::thread aborts
  std::thread thread([&] {
    // 10 above the caller's own nice value (a UI started under `nice` stays above its workers); on failure the
    // work simply runs at the caller's priority.
    setpriority(PRIO_PROCESS, 0, std::min(getpriority(PRIO_PROCESS, 0) + 10, 19));
    try {
      result.emplace(work());
    } catch (...) {
      failure = std::current_exception();
    }
  });
  thread.join();
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

template <class Result>
class AsyncJob {
 public:
  using Work = std::function<Result(Progress&)>;

  AsyncJob() : worker_([this] { run(); }) {}
  ~AsyncJob() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      progress_.cancelled_ = true;
    }
    wake_.notify_all();
    worker_.join();
  }
  AsyncJob(const AsyncJob&) = delete;
  AsyncJob& operator=(const AsyncJob&) = delete;

  // Queues `work`, replacing a queued request that has not started; a running one is asked to cancel.
  void request(Work work) {
    {
      std::lock_guard lock(mutex_);
      pending_ = std::move(work);
      ++requested_;
      if (running_) progress_.cancelled_ = true;
    }
    wake_.notify_all();
  }

  // Drops a queued request and asks the running one to stop; its result is discarded, the previous one stays.
  void cancel() {
    {
      std::lock_guard lock(mutex_);
      pending_ = nullptr;
      if (running_)
        progress_.cancelled_ = true;
      else
        completed_ = requested_;
    }
    done_.notify_all();
  }

  // The newest completed result, or nullptr before the first one finishes. Valid until the next poll().
  const Result* latest() {
    poll();
    return shown_ ? &*shown_ : nullptr;
  }
  // Moves a freshly finished result into view; returns true when it changed.
  bool poll() {
    std::lock_guard lock(mutex_);
    if (!finished_) return false;
    shown_ = std::move(finished_);
    finished_.reset();
    return true;
  }
  bool busy() const {
    std::lock_guard lock(mutex_);
    return completed_ < requested_;
  }
  float progress() const { return progress_.get(); }
  // Why the last computation produced no result (it threw), or "" when it finished.
  std::string failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
  }
  // Blocks until every request made so far has finished.
  void wait() {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [this] { return completed_ >= requested_; });
  }

 private:
  void run() {
    for (;;) {
      Work work;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || pending_; });
        if (stopping_) return;
        work = std::move(pending_);
        pending_ = nullptr;
        running_ = true;
        progress_.cancelled_ = false;
        progress_.fraction_ = 0.0f;
        progress_.start_ = std::chrono::steady_clock::now();
      }
      std::optional<Result> result;
      std::string failure;
      // An exception on this thread would end the process (std::terminate, SIGABRT): a computation that runs out
      // of memory or fails costs its result, the last good one stays on screen, and failure() says why.
      try {
        result.emplace(work(progress_));
      } catch (const std::bad_alloc&) {
        failure = tr("out of memory: the settings need more memory than this machine has");
      } catch (const std::exception& e) {
        failure = e.what();
      } catch (...) {
        failure = tr("the computation failed");
      }
      {
        std::lock_guard lock(mutex_);
        running_ = false;
        failure_ = failure;
        // A result computed for a request that has since been superseded is dropped only if it was cancelled
        // midway; otherwise it is still the best thing to show until the newer one finishes.
        if (!progress_.cancelled_ && result) finished_ = std::move(result);
        if (!pending_) completed_ = requested_;  // otherwise the queued request completes later
        progress_.fraction_ = 1.0f;
      }
      done_.notify_all();
      notify_result_ready();  // a loop waiting for events draws the result (or the failure, or "not busy")
    }
  }

  mutable std::mutex mutex_;
  std::condition_variable wake_, done_;
  Work pending_;
  std::optional<Result> finished_, shown_;
  Progress progress_;
  std::string failure_;  // set when the last computation threw
  long long requested_ = 0, completed_ = 0;
  bool running_ = false, stopping_ = false;
  std::thread worker_;
};

}  // namespace tw
