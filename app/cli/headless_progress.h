#pragma once
// Progress of a headless command (export, dump) on stderr: silent for work that finishes within a second, then
// one line per second naming the current step, so a long dump or export never looks hung:
//   transformer-workbench dump: forward pass (1.0 s)
//   transformer-workbench dump: writing layers.3.attn.probs.npy, 31 of 45 files (2.0 s)
// The step is set from the working thread; a watcher thread prints it. Lines go to stderr only, so stdout keeps
// exactly the list of files written.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tw {

class HeadlessProgress {
 public:
  // `prefix` starts every line, e.g. "transformer-workbench dump".
  explicit HeadlessProgress(std::string prefix);
  ~HeadlessProgress();  // stops the watcher; prints nothing more
  HeadlessProgress(const HeadlessProgress&) = delete;
  HeadlessProgress& operator=(const HeadlessProgress&) = delete;

  void step(std::string text);
  int lines_printed() const;

 private:
  void watch();
  const std::string prefix_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::string step_;
  bool stop_ = false;
  int lines_ = 0;
  std::thread watcher_;  // last: started once every member above exists
};

}  // namespace tw
