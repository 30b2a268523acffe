#include "app/session_guard.h"

#include <semaphore.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "app/scene.h"
#include "core/base/i18n.h"

namespace tw {

namespace {

volatile std::sig_atomic_t g_quit_signal = 0;
sem_t g_wake_sem;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

extern "C" void on_quit_signal(int sig) {
  g_quit_signal = sig;
  sem_post(&g_wake_sem);  // async-signal-safe; the helper thread wakes the main loop
}

}  // namespace

SessionGuard::SessionGuard(std::function<void()> wake, Clock::duration save_every)
    : wake_(std::move(wake)), period_(save_every), next_save_(Clock::now() + save_every) {
  g_quit_signal = 0;
  sem_init(&g_wake_sem, 0, 0);
  struct sigaction sa {};
  sa.sa_handler = on_quit_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal takes the default action: ends the process
  for (int sig : kSignals) sigaction(sig, &sa, nullptr);
  helper_ = std::thread([this] {
    const double seconds = std::chrono::duration<double>(period_).count();
    while (!stop_) {
      timespec until{};
      clock_gettime(CLOCK_REALTIME, &until);
      const double t = static_cast<double>(until.tv_nsec) * 1e-9 + seconds;
      until.tv_sec += static_cast<time_t>(t);
      until.tv_nsec = static_cast<long>((t - static_cast<double>(static_cast<time_t>(t))) * 1e9);
      sem_timedwait(&g_wake_sem, &until);  // a signal, the period, or the destructor
      if (!stop_ && wake_) wake_();
    }
  });
}

SessionGuard::~SessionGuard() {
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int sig : kSignals) sigaction(sig, &sa, nullptr);
  stop_ = true;
  sem_post(&g_wake_sem);
  helper_.join();
  sem_destroy(&g_wake_sem);
}

int SessionGuard::quit_signal() { return g_quit_signal; }

bool SessionGuard::tick(AppState& state) {
  if (const int sig = g_quit_signal) {
    std::fprintf(stderr, "transformer-workbench: %s\n",
                 subst(tr("SIG{0} received: saving the session and exiting"), {sigabbrev_np(sig)}).c_str());
    return true;
  }
  if (last_seen_.empty()) {  // the first call: what was restored is already on disk
    last_seen_ = session_change_text(state);
    return false;
  }
  const Clock::time_point now = Clock::now();
  if (now < next_save_) return false;
  next_save_ = now + period_;
  std::string seen = session_change_text(state);
  if (seen == last_seen_) return false;
  last_seen_ = std::move(seen);
  if (state.keep_last_session) return false;  // a session that failed to load and could not be moved aside
  std::string error;
  if (!save_last_session(state, &error)) state.status = tr("Last session not saved: ") + error;
  return false;
}

void exit_anyway_after(double seconds, int exit_code) {
  std::thread([seconds, exit_code] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    std::fprintf(stderr, "transformer-workbench: %s\n",
                 tr("a background computation did not stop; exiting without waiting for it"));
    std::_Exit(exit_code);
  }).detach();
}

}  // namespace tw
