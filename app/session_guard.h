#pragma once
// Keeps the user's work when the GUI does not end through its window: SIGTERM, SIGINT and SIGHUP (logout, Ctrl+C in
// the terminal, a system shutdown) end the main loop through the normal exit path, which saves the session; and the
// session is saved every 30 s while it keeps changing, so even a SIGKILL or a power cut loses at most that much.
//
//   SessionGuard guard(&Window::wake);   // after the session was restored
//   while (...) {
//     if (guard.tick(state)) break;      // once per loop iteration
//     ...
//   }
//   save_session_at_exit(state);         // as for a closed window
//
// The signal handler only sets a flag and posts a semaphore; a helper thread turns that (and every period) into
// `wake` (Window::wake posts an empty event), so an idle loop that waits for events sees the flag at once and an
// idle window still costs nothing but one wake per period. A second signal of the same kind ends the process at
// once (SA_RESETHAND), for when the save itself hangs.

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "app/app_state.h"

namespace tw {

// One at a time per process (the signal handlers and their semaphore are process-wide).
class SessionGuard {
 public:
  using Clock = std::chrono::steady_clock;
  explicit SessionGuard(std::function<void()> wake, Clock::duration save_every = std::chrono::seconds(30));
  ~SessionGuard();  // restores the default handlers, stops the helper thread
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;

  // Call once per loop iteration. Saves the session (atomically, as at exit) when the period passed and it changed
  // since the last look; returns true when a signal asked the app to quit (the caller leaves the loop).
  bool tick(AppState& state);
  // The signal that asked to quit (SIGTERM, ...), or 0.
  static int quit_signal();

 private:
  std::function<void()> wake_;
  Clock::duration period_;
  Clock::time_point next_save_;
  std::string last_seen_;  // session_change_text at the last look ("" before the first)
  std::atomic<bool> stop_{false};
  std::thread helper_;
};

// Ends the process with `exit_code` if it is still running `seconds` from now: shutdown joins worker threads, and a
// worker stuck in a system call must not keep a closed window's process alive forever.
void exit_anyway_after(double seconds, int exit_code);

}  // namespace tw
