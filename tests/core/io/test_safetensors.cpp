#include "core/io/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace tw {
namespace {

// A file with the given JSON header and `data_bytes` zero bytes of data.
std::vector<uint8_t> make_file(const std::string& header, size_t data_bytes) {
  std::string text(8, '\0');
  for (int i = 0; i < 8; ++i) text[static_cast<size_t>(i)] = static_cast<char>(uint64_t(header.size()) >> (8 * i));
  text += header;
  text.append(data_bytes, '\0');
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::string parse_error(const std::vector<uint8_t>& bytes) {
  SafeTensors st;
  std::string error;
  EXPECT_FALSE(parse_safetensors(bytes.data(), bytes.size(), &st, &error));
  return error;
}

SafeTensors sample() {
  SafeTensors st;
  st.tensors.push_back({"b.weight", {2, 3}, {1.5f, -2.0f, 3.25f, 0.0f, -0.0f, 1e-38f}});
  st.tensors.push_back({"a.bias", {3}, {7.0f, 8.0f, 9.0f}});
  st.metadata["format"] = "pt";
  return st;
}

TEST(Safetensors, RoundTripIsBitExact) {
  SafeTensors st = sample();
  st.tensors[0].data[4] = std::numeric_limits<float>::denorm_min();
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serialize_safetensors(st, &bytes, &error)) << error;
  SafeTensors back;
  ASSERT_TRUE(parse_safetensors(bytes.data(), bytes.size(), &back, &error)) << error;
  ASSERT_EQ(back.tensors.size(), 2u);
  for (const NamedTensor& t : st.tensors) {
    const NamedTensor* b = back.find(t.name);
    ASSERT_NE(b, nullptr) << t.name;
    EXPECT_EQ(b->shape, t.shape);
    ASSERT_EQ(b->data.size(), t.data.size());
    EXPECT_EQ(std::memcmp(b->data.data(), t.data.data(), t.data.size() * 4), 0) << t.name;
  }
  EXPECT_EQ(back.metadata.at("format"), "pt");
}

TEST(Safetensors, LayoutFollowsTheFormat) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serialize_safetensors(sample(), &bytes, &error));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<size_t>(i)];
  EXPECT_EQ(n % 8, 0u) << "header padded so data is 8-byte aligned";
  EXPECT_EQ(bytes.size(), 8 + n + (6 + 3) * 4);
  const std::string header(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  EXPECT_NE(header.find(R"("b.weight":{"data_offsets":[0,24],"dtype":"F32","shape":[2,3]})"), std::string::npos)
      << header;
  EXPECT_NE(header.find(R"("a.bias":{"data_offsets":[24,36],"dtype":"F32","shape":[3]})"), std::string::npos) << header;
  // First data value 1.5f = 0x3FC00000, little-endian.
  EXPECT_EQ(bytes[8 + n + 3], 0x3F);
  EXPECT_EQ(bytes[8 + n + 2], 0xC0);
}

TEST(Safetensors, RejectsTruncatedFiles) {
  EXPECT_EQ(parse_error({1, 2, 3}), "file is too short (3 bytes) to hold the 8-byte header length");
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serialize_safetensors(sample(), &bytes, &error));
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 4);
  EXPECT_EQ(parse_error(cut),
            "tensor 'a.bias': file is truncated: data ends at byte 36 of the buffer but only 32 bytes are present");
  std::vector<uint8_t> header_cut(bytes.begin(), bytes.begin() + 20);
  EXPECT_NE(parse_error(header_cut).find("file is truncated: the header says"), std::string::npos);
}

TEST(Safetensors, RejectsMalformedHeaders) {
  EXPECT_EQ(parse_error(make_file("{oops", 0)), "header is not valid JSON");
  EXPECT_EQ(parse_error(make_file("[]", 0)), "header must be a JSON object mapping tensor names to their info");
  EXPECT_EQ(parse_error(make_file(R"({"w": 3})", 0)),
            "tensor 'w': info must be an object with dtype, shape, data_offsets");
  EXPECT_EQ(parse_error(make_file(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", 4)),
            "tensor 'w': missing string 'dtype'");
  EXPECT_EQ(parse_error(make_file(R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})", 4)),
            "tensor 'w': missing array 'shape'");
  EXPECT_EQ(parse_error(make_file(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", 4)),
            "tensor 'w': 'data_offsets' must be an array [begin, end]");
  EXPECT_EQ(parse_error(make_file(R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4)),
            "tensor 'w': shape entries must be non-negative integers");
  EXPECT_EQ(parse_error(make_file(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", 4)),
            "tensor 'w': data_offsets begin > end");
  EXPECT_EQ(parse_error(make_file(R"({"__metadata__": {"a": 1}})", 0)), "__metadata__ value 'a' must be a string");
  // A length that would need a huge allocation is refused before reading anything.
  std::vector<uint8_t> huge = make_file("{}", 0);
  huge[7] = 0x7f;
  EXPECT_NE(parse_error(huge).find("implausibly large"), std::string::npos);
}

TEST(Safetensors, RejectsWrongDtypeAndShape) {
  EXPECT_EQ(parse_error(make_file(R"({"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", 4)),
            "tensor 'w': dtype is F16; only F32 (float32) is supported");
  EXPECT_EQ(parse_error(make_file(R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8)),
            "tensor 'w': data_offsets span 8 bytes but shape needs 12 (F32)");
  // Dimensions whose product overflows 64 bits are caught by the size bound, not wrapped around.
  EXPECT_EQ(parse_error(make_file(
                R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 4], "data_offsets": [0, 0]}})", 0)),
            "tensor 'w': shape is larger than the file's data");
}

TEST(Safetensors, RejectsOverlapsAndHoles) {
  EXPECT_EQ(parse_error(make_file(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                       "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
                                  12)),
            "tensors 'a' and 'b' overlap in the data buffer");
  EXPECT_EQ(parse_error(make_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8)),
            "data buffer has a hole before tensor 'a' (bytes 0..4 belong to no tensor)");
  EXPECT_EQ(parse_error(make_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 12)),
            "data buffer has 8 trailing bytes that belong to no tensor");
}

TEST(Safetensors, SerializeRefusesInconsistentTensors) {
  SafeTensors st;
  st.tensors.push_back({"w", {2, 2}, {1, 2, 3}});
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(serialize_safetensors(st, &bytes, &error));
  EXPECT_EQ(error, "tensor 'w' has 3 values but its shape needs 4");
  st.tensors[0] = {"w", {1}, {1}};
  st.tensors.push_back({"w", {1}, {2}});
  EXPECT_FALSE(serialize_safetensors(st, &bytes, &error));
  EXPECT_EQ(error, "tensor name 'w' is reserved or repeated");
}

TEST(Safetensors, NeverCrashesOnMutatedBytes) {
  // Invariant: every mutation of a valid file either parses to tensors whose data matches their shape, or fails
  // with a message. (The libFuzzer target explores far more; this keeps a quick version in the unit tests.)
  std::vector<uint8_t> good;
  std::string error;
  ASSERT_TRUE(serialize_safetensors(sample(), &good, &error));
  std::mt19937 rng(1234);
  int parsed = 0, refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    SafeTensors st;
    error.clear();
    if (parse_safetensors(bytes.data(), bytes.size(), &st, &error)) {
      ++parsed;
      for (const NamedTensor& t : st.tensors) {
        size_t n = 1;
        for (int64_t d : t.shape) n *= static_cast<size_t>(d);
        EXPECT_EQ(n, t.data.size());
      }
    } else {
      ++refused;
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(parsed, 0);  // flips inside the data buffer keep the file valid
}

TEST(Safetensors, ReadMissingFile) {
  SafeTensors st;
  std::string error;
  EXPECT_FALSE(read_safetensors("/nonexistent/model.safetensors", &st, &error));
  EXPECT_EQ(error, "/nonexistent/model.safetensors: cannot open (No such file or directory)");
}

}  // namespace
}  // namespace tw
