// The GUI keeps the user's work without a normal exit: SIGTERM/SIGINT/SIGHUP make tick() ask the loop to end (the
// normal exit then saves), a changed session is saved every period, and the helper thread wakes an idle loop.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

#include "app/scene.h"
#include "app/session_guard.h"
#include "scratch_dir.h"

namespace tw {
namespace {

using namespace std::chrono_literals;
using testing::read_file_bytes;
using testing::ScopedEnv;
using testing::ScratchDir;

TEST(SessionGuard, ASignalEndsTheLoopInsteadOfTheProcess) {
  std::atomic<int> wakes{0};
  AppState app = make_app_state();
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {  // one guard at a time, as main() has
    SessionGuard again([&] { ++wakes; }, 60s);
    EXPECT_FALSE(again.tick(app));
    const int before = wakes;
    std::raise(sig);  // the default action would end this test program
    EXPECT_TRUE(again.tick(app)) << sig;
    EXPECT_EQ(SessionGuard::quit_signal(), sig);
    for (int i = 0; i < 200 && wakes == before; ++i) std::this_thread::sleep_for(5ms);
    EXPECT_GT(wakes, before) << "the waiting loop is woken at once";
  }
}

TEST(SessionGuard, AChangedSessionIsSavedEveryPeriodAndOnlyWhenChanged) {
  ScratchDir dir("tw-guard-test");
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path());
  const std::string path = last_session_path();
  std::atomic<int> wakes{0};
  AppState app = make_app_state();
  SessionGuard guard([&] { ++wakes; }, 100ms);
  EXPECT_FALSE(guard.tick(app));  // the first look only remembers
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(guard.tick(app));
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing changed: nothing written";
  app.theme = app.theme == Theme::Print ? Theme::Dark : Theme::Print;
  EXPECT_FALSE(guard.tick(app));  // changed, but the period has not passed since the last look
  EXPECT_FALSE(std::filesystem::exists(path));
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(guard.tick(app));
  ASSERT_TRUE(std::filesystem::exists(path)) << "a changed session is saved after the period";
  EXPECT_EQ(read_file_bytes(path), scene_to_text(app));
  EXPECT_GE(wakes, 2) << "the helper thread wakes the loop every period";
}

}  // namespace
}  // namespace tw
