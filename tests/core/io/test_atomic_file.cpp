#include "core/io/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

namespace tw {
namespace fs = std::filesystem;

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tw_atomic_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}
size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

TEST(AtomicFile, WritesAndReplacesWholeFilesLeavingNoTemporary) {
  const fs::path dir = fresh_dir("write");
  std::string error;
  ASSERT_TRUE(write_file_atomic((dir / "a.txt").string(), "first version", &error)) << error;
  ASSERT_TRUE(write_file_atomic((dir / "a.txt").string(), "v2", &error)) << error;
  EXPECT_EQ(read_all(dir / "a.txt"), "v2");
  EXPECT_EQ(entries(dir), 1u);
  const std::string binary("\0\x01\xff", 3);
  ASSERT_TRUE(write_file_atomic((dir / "b.bin").string(), binary, &error));
  EXPECT_EQ(read_all(dir / "b.bin"), binary);
  fs::remove_all(dir);
}

TEST(AtomicFile, FailuresNameThePathAndKeepTheOldFile) {
  const fs::path dir = fresh_dir("fail");
  std::string error;
  ASSERT_TRUE(write_file_atomic((dir / "keep.txt").string(), "old", &error));
  // A regular file where a directory should be: fails even for root, unlike permission bits.
  const std::string blocked = (dir / "keep.txt" / "child.txt").string();
  EXPECT_FALSE(write_file_atomic(blocked, "new", &error));
  EXPECT_NE(error.find(blocked), std::string::npos) << error;
  EXPECT_FALSE(write_file_atomic(dir.string(), "new", &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  EXPECT_FALSE(write_file_atomic("", "x", &error));
  EXPECT_EQ(read_all(dir / "keep.txt"), "old");
  EXPECT_EQ(entries(dir), 1u);  // no temporary left behind
  fs::remove_all(dir);
}

TEST(AtomicFile, StreamedWriterCommitsOrLeavesNothing) {
  const fs::path dir = fresh_dir("stream");
  std::string error;
  {
    AtomicFileWriter w;
    ASSERT_TRUE(w.open((dir / "s.txt").string(), &error)) << error;
    w.write("ab");
    w.write(std::string(1000, 'c'));
    EXPECT_EQ(entries(dir), 1u);  // only the hidden temporary so far
    for (const auto& e : fs::directory_iterator(dir)) EXPECT_TRUE(is_temp_file_name(e.path().filename().string()));
    ASSERT_TRUE(w.commit(&error)) << error;
  }
  EXPECT_EQ(read_all(dir / "s.txt"), "ab" + std::string(1000, 'c'));
  {
    AtomicFileWriter abandoned;  // e.g. an exception between open and commit
    ASSERT_TRUE(abandoned.open((dir / "t.txt").string(), &error)) << error;
    abandoned.write("half");
  }
  EXPECT_EQ(entries(dir), 1u);
  EXPECT_FALSE(fs::exists(dir / "t.txt"));
  fs::remove_all(dir);
}

// What an interrupted export or dump leaves (the process was killed between open and rename) is removed by the
// next run into the folder; a temporary of a process that still runs, and every other file, stays.
TEST(AtomicFile, StaleTemporariesOfDeadProcessesAreRemoved) {
  const fs::path dir = fresh_dir("stale");
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // reaped: the pid now names no process
  const std::string dead = ".fig.csv.tw-partial-" + std::to_string(child) + "-0";
  const std::string alive = ".fig.png.tw-partial-1-3";  // pid 1 always runs
  const std::string mine = ".fig.svg.tw-partial-" + std::to_string(::getpid()) + "-7";
  for (const std::string& name : {dead, alive, mine, std::string("fig.csv"), std::string(".tw-partial-x")})
    std::ofstream(dir / name) << "x";
  EXPECT_TRUE(is_temp_file_name(dead));
  EXPECT_FALSE(is_temp_file_name("fig.csv"));
  EXPECT_FALSE(is_temp_file_name(".tw-partial-x"));
  std::vector<std::string> removed;
  remove_stale_temp_files(dir.string(), &removed);
  EXPECT_EQ(removed, std::vector<std::string>{dead});
  EXPECT_FALSE(fs::exists(dir / dead));
  EXPECT_TRUE(fs::exists(dir / alive));
  EXPECT_TRUE(fs::exists(dir / mine));
  EXPECT_TRUE(fs::exists(dir / "fig.csv"));
  remove_stale_temp_files((dir / "missing").string());  // no directory: nothing to do, no throw
  fs::remove_all(dir);
}

}  // namespace tw
