#include "app/cli/headless_progress.h"

#include <cstdio>

namespace tw {

HeadlessProgress::HeadlessProgress(std::string prefix) : prefix_(std::move(prefix)), watcher_([this] { watch(); }) {}

HeadlessProgress::~HeadlessProgress() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

void HeadlessProgress::step(std::string text) {
  std::lock_guard<std::mutex> lock(mutex_);
  step_ = std::move(text);
}

int HeadlessProgress::lines_printed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

void HeadlessProgress::watch() {
  using namespace std::chrono;
  std::unique_lock<std::mutex> lock(mutex_);
  // One line at 1 s, 2 s, 3 s ... after the start, each naming the step running then.
  for (int second = 1;; ++second) {
    if (wake_.wait_until(lock, start_ + seconds(second), [this] { return stop_; })) return;
    if (step_.empty()) continue;
    const double elapsed = duration<double>(steady_clock::now() - start_).count();
    std::fprintf(stderr, "%s: %s (%.1f s)\n", prefix_.c_str(), step_.c_str(), elapsed);
    std::fflush(stderr);
    ++lines_;
  }
}

}  // namespace tw
