#include "core/assets.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "scratch_dir.h"

namespace tw {
namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test and restores the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Assets, ShippedScenesAreFoundFromTheBuildTree) {
  const std::string scenes = find_asset_dir("scenes");
  ASSERT_FALSE(scenes.empty());
  EXPECT_TRUE(fs::is_regular_file(fs::path(scenes) / "softmax.json"));
}

TEST(Assets, XdgDataDirsAreSearchedInOrderAfterTheProgramsOwnFolders) {
  const testing::ScratchDir scratch("tw-assets-xdg");
  const fs::path dir = scratch.path();
  for (const char* which : {"first", "second"}) {
    fs::create_directories(dir / which / "transformer-workbench" / "xdg-probe");
    std::ofstream(dir / which / "transformer-workbench" / "xdg-probe" / "only-here.txt") << which;
  }
  ScopedEnv xdg("XDG_DATA_DIRS", "relative/ignored:" + (dir / "first").string() + ":" + (dir / "second").string());
  EXPECT_EQ(find_asset("xdg-probe/only-here.txt"),
            (dir / "first" / "transformer-workbench" / "xdg-probe" / "only-here.txt").string());
  EXPECT_EQ(find_asset_dir("xdg-probe"), fs::weakly_canonical(dir / "first" / "transformer-workbench" / "xdg-probe"));
  // The shipped data still comes from the build's own tree, not from a system folder.
  EXPECT_EQ(find_asset("xdg-probe/missing.txt"), "");
  EXPECT_FALSE(find_asset("scenes/softmax.json").starts_with(dir.string()));
}

}  // namespace
}  // namespace tw
