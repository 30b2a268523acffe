#include "core/io/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace tw {
namespace {

TEST(Npy, HeaderMatchesNumpy) {
  // Reference: /usr/bin/python3 with numpy 1.24, np.save(f, np.zeros((2, 3), np.float32)) writes a 128-byte
  // header: magic, version 1.0, length 0x76 = 118, this dict, spaces, '\n' (then the 24 data bytes).
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const std::vector<uint8_t> bytes = npy_bytes(data, {2, 3});
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(std::memcmp(bytes.data(), "\x93NUMPY\x01\x00", 8), 0);
  const size_t header_len = bytes[8] | (bytes[9] << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(header_len, 118u);  // np.lib.format: 10 + 118 = 128
  const std::string header(bytes.begin() + 10, bytes.begin() + 10 + static_cast<long>(header_len));
  EXPECT_EQ(header.substr(0, dict.size()), dict);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 24);
  float back[6];
  std::memcpy(back, bytes.data() + 10 + header_len, 24);
  EXPECT_EQ(back[5], 6.0f);
}

TEST(Npy, OneDimensionalShapeHasTrailingComma) {
  const float data[3] = {1, 2, 3};
  const std::vector<uint8_t> bytes = npy_bytes(data, {3});
  const std::string header(bytes.begin() + 10, bytes.end() - 12);
  EXPECT_NE(header.find("'shape': (3,), }"), std::string::npos) << header;
}

TEST(Npy, WriteRefusesWrongShape) {
  std::string error;
  EXPECT_FALSE(write_npy(::testing::TempDir() + "/x.npy", Mat::Zero(2, 3), {4, 2}, &error));
  EXPECT_EQ(error, "write_npy: shape does not match the 6 values of the matrix");
}

}  // namespace
}  // namespace tw
