// read_file_bounded: every refusal is one line naming the path and the reason, and nothing blocks or grows.
#include "core/base/read_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/io/safetensors.h"
#include "core/model/config.h"
#include "core/model/weights.h"

namespace tw {
namespace fs = std::filesystem;

namespace {

fs::path fresh_read_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tw_read_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

TEST(ReadFileBounded, ReadsARegularFileWhole) {
  const fs::path dir = fresh_read_dir("ok");
  std::ofstream(dir / "a.txt", std::ios::binary) << std::string("hello\0world", 11);
  std::string text, error;
  ASSERT_TRUE(read_file_bounded((dir / "a.txt").string(), 11, &text, &error)) << error;
  EXPECT_EQ(text, std::string("hello\0world", 11));
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(read_file_bounded((dir / "a.txt").string(), 100, &bytes, &error)) << error;
  EXPECT_EQ(bytes.size(), 11u);
  EXPECT_EQ(bytes[6], 'w');
}

TEST(ReadFileBounded, RefusesADirectory) {
  const fs::path dir = fresh_read_dir("dir");
  std::string text = "previous", error;
  EXPECT_FALSE(read_file_bounded(dir.string(), 1 << 20, &text, &error));
  EXPECT_TRUE(text.empty());
  EXPECT_TRUE(one_line(error));
  EXPECT_NE(error.find(dir.string()), std::string::npos) << error;
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
}

TEST(ReadFileBounded, RefusesDevZeroInsteadOfReadingForever) {
  std::string text, error;
  EXPECT_FALSE(read_file_bounded("/dev/zero", 1 << 20, &text, &error));
  EXPECT_NE(error.find("/dev/zero: is a character device"), std::string::npos) << error;
}

TEST(ReadFileBounded, RefusesAFifoWithoutBlocking) {
  const fs::path dir = fresh_read_dir("fifo");
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string text, error;
  // Opening a FIFO for reading would block forever with no writer; the refusal must come before that.
  EXPECT_FALSE(read_file_bounded(fifo.string(), 1 << 20, &text, &error));
  EXPECT_NE(error.find("FIFO"), std::string::npos) << error;
  EXPECT_TRUE(one_line(error));
}

TEST(ReadFileBounded, RefusesAFileOverTheCapAndStatesTheCap) {
  const fs::path dir = fresh_read_dir("big");
  {
    std::ofstream f(dir / "big.json", std::ios::binary);
    f << std::string(3 << 20, ' ');  // 3 MiB
  }
  std::string text, error;
  EXPECT_FALSE(read_file_bounded((dir / "big.json").string(), size_t{2} << 20, &text, &error));
  EXPECT_NE(error.find("is 3 MiB, larger than the 2 MiB"), std::string::npos) << error;
  // One byte under the size is refused too, the exact size is accepted.
  EXPECT_FALSE(read_file_bounded((dir / "big.json").string(), (size_t{3} << 20) - 1, &text, &error));
  EXPECT_TRUE(read_file_bounded((dir / "big.json").string(), size_t{3} << 20, &text, &error)) << error;
  EXPECT_EQ(text.size(), size_t{3} << 20);
}

TEST(ReadFileBounded, MissingFileNamesThePath) {
  std::string text, error;
  EXPECT_FALSE(read_file_bounded("/nonexistent/x.json", 100, &text, &error));
  EXPECT_EQ(error, "/nonexistent/x.json: cannot open (No such file or directory)");
}

// The readers built on it: a directory given as a config or a checkpoint says so (it used to read as a size of
// LLONG_MAX and abort with bad_alloc).
TEST(ReadFileBounded, ConfigAndSafetensorsReadersRefuseDirectoriesAndDevices) {
  const fs::path dir = fresh_read_dir("readers");
  ModelConfig config;
  std::string error;
  EXPECT_FALSE(load_config(dir.string(), &config, &error));
  EXPECT_NE(error.find("is a directory, not a file"), std::string::npos) << error;
  EXPECT_FALSE(load_config("/dev/zero", &config, &error));
  EXPECT_NE(error.find("character device"), std::string::npos) << error;
  SafeTensors st;
  EXPECT_FALSE(read_safetensors(dir.string(), &st, &error));
  EXPECT_NE(error.find("is a directory, not a file"), std::string::npos) << error;
  EXPECT_FALSE(read_safetensors("/dev/zero", &st, &error));
  EXPECT_NE(error.find("character device"), std::string::npos) << error;
}

// A Hugging Face model directory given where its config or checkpoint belongs: the message names the file inside.
TEST(ReadFileBounded, ModelDirectoryGivenAsAFileSuggestsTheFileInside) {
  const fs::path dir = fresh_read_dir("hfdir");
  std::ofstream(dir / "config.json") << "{}";
  std::ofstream(dir / "model.safetensors") << "x";
  ModelConfig config;
  std::string error;
  EXPECT_FALSE(load_config(dir.string(), &config, &error));
  EXPECT_EQ(error, dir.string() + ": is a directory, not a file (did you mean " + dir.string() + "/config.json?)");
  ModelWeights weights;
  EXPECT_FALSE(load_weights(dir.string(), tiny_config(), &weights, &error));
  EXPECT_EQ(error,
            dir.string() + ": is a directory, not a file (did you mean " + dir.string() + "/model.safetensors?)");
}

TEST(ReadFileBounded, OversizeConfigIsRefusedBeforeParsing) {
  const fs::path dir = fresh_read_dir("bigconfig");
  {
    std::ofstream f(dir / "config.json", std::ios::binary);
    f << "{\"hidden_size\": 64, \"pad\": \"" << std::string(kMaxConfigBytes, 'x') << "\"}";
  }
  ModelConfig config;
  std::string error;
  EXPECT_FALSE(load_config((dir / "config.json").string(), &config, &error));
  EXPECT_NE(error.find("larger than the " + format_byte_size(kMaxConfigBytes)), std::string::npos) << error;
}

TEST(ReadFileBounded, FormatsSizes) {
  EXPECT_EQ(format_byte_size(512), "512 bytes");
  EXPECT_EQ(format_byte_size(8u << 20), "8 MiB");
  EXPECT_EQ(format_byte_size(size_t{4} << 30), "4 GiB");
  EXPECT_EQ(format_byte_size(1536), "1.5 KiB");
}

}  // namespace
}  // namespace tw
