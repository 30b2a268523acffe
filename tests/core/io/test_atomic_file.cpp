#include "core/io/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace tw
