#include "core/io/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>

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

// A file whose header is `header` followed by `data_bytes` zero bytes, and the one-line error parsing must give.
struct BadHeader {
  const char* header;
  size_t data_bytes;
  const char* error;
};

void expect_errors(std::span<const BadHeader> cases) {
  for (const BadHeader& c : cases) EXPECT_EQ(parse_error(make_file(c.header, c.data_bytes)), c.error) << c.header;
}

constexpr BadHeader kMalformedHeaders[] = {
    {"{oops", 0,
     "header: not valid JSON: parse error at line 1, column 2: syntax error while parsing object key - invalid "
     "literal; last read: '{o'; expected string literal"},
    {"[]", 0, "header must be a JSON object mapping tensor names to their info"},
    {R"({"w": 3})", 0, "tensor 'w': info must be an object with dtype, shape, data_offsets"},
    {R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", 4, "tensor 'w': missing string 'dtype'"},
    {R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})", 4, "tensor 'w': missing array 'shape'"},
    {R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0]}})", 4,
     "tensor 'w': 'data_offsets' must be an array [begin, end]"},
    {R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4,
     "tensor 'w': shape entries must be non-negative integers"},
    {R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", 4, "tensor 'w': data_offsets begin > end"},
    {R"({"__metadata__": {"a": 1}})", 0, "__metadata__ value 'a' must be a string"},
    // JSON keeps the last of two equal keys: a tensor named twice would lose one entry silently (issue 45).
    {R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], )"
     R"("data_offsets": [0, 4]}})",
     4, "header names the tensor 'w' twice"},
    {"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
     "]]]]]]]]]]]]]]]]]]]",
     0, "header: nests deeper than 64 levels"},
};

TEST(Safetensors, RejectsMalformedHeaders) {
  expect_errors(kMalformedHeaders);
  // A length that would need a huge allocation is refused before reading anything.
  std::vector<uint8_t> huge = make_file("{}", 0);
  huge[7] = 0x7f;
  EXPECT_NE(parse_error(huge).find("implausibly large"), std::string::npos);
}

constexpr BadHeader kWrongDtypesAndShapes[] = {
    {R"({"w": {"dtype": "I8", "shape": [4], "data_offsets": [0, 4]}})", 4,
     "tensor 'w': dtype is I8; only F32, F16 and BF16 are supported (quantized or integer checkpoints are not)"},
    {R"({"w": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 4]}})", 4,
     "tensor 'w': data_offsets span 4 bytes but shape needs 6 (BF16)"},
    {R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", 8,
     "tensor 'w': data_offsets span 8 bytes but shape needs 12 (F32)"},
    // Dimensions whose product overflows 64 bits are caught by the size bound, not wrapped around.
    {R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296, 4], "data_offsets": [0, 0]}})", 0,
     "tensor 'w': shape is larger than the file's data"},
};

TEST(Safetensors, RejectsWrongDtypeAndShape) { expect_errors(kWrongDtypesAndShapes); }

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

// [SECTION] half-precision types

TEST(Safetensors, HalfConversionsKnownBitPatterns) {
  // Values worked out by hand from the formats: sign | exponent | mantissa.
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_f16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_f16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_f16(65504.0f), 0x7BFF);     // largest half
  EXPECT_EQ(float_to_f16(1e6f), 0x7C00);         // overflow → +inf
  EXPECT_EQ(float_to_f16(0x1p-24f), 0x0001);     // smallest subnormal half
  EXPECT_EQ(float_to_f16(0x1p-14f), 0x0400);     // smallest normal half
  EXPECT_EQ(f16_to_float(0x3555), 0x1.554p-2f);  // 0.333251953125
  EXPECT_EQ(bf16_to_float(0x3EAB), 0x1.56p-2f);  // 0.333984375
  // Ties go to the even mantissa: 1 + 2^-8 lies halfway between bf16 1.0 and 1 + 2^-7.
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3F80);
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);
  EXPECT_EQ(float_to_f16(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(float_to_f16(1.0f + 3 * 0x1p-11f), 0x3C02);
}

TEST(Safetensors, EveryHalfValueRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16_to_float(static_cast<uint16_t>(h)), b = bf16_to_float(static_cast<uint16_t>(h));
    if (!std::isnan(f)) {
      EXPECT_EQ(float_to_f16(f), h) << std::hex << h;
    }
    if (!std::isnan(b)) {
      EXPECT_EQ(float_to_bf16(b), h) << std::hex << h;
    }
  }
}

TEST(Safetensors, RoundingPicksTheNearestHalf) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-70000.0f, 70000.0f);
  for (int i = 0; i < 20000; ++i) {
    const float f = i % 2 ? u(rng) : u(rng) * 1e-6f;
    for (StorageType t : {StorageType::F16, StorageType::BF16}) {
      const uint16_t h = t == StorageType::F16 ? float_to_f16(f) : float_to_bf16(f);
      const auto value = [&](int bits) {
        return t == StorageType::F16 ? f16_to_float(static_cast<uint16_t>(bits))
                                     : bf16_to_float(static_cast<uint16_t>(bits));
      };
      const double err = std::fabs(double(value(h)) - f);
      if (std::isinf(value(h))) continue;  // beyond the largest half
      // Neither neighbour of the chosen pattern is closer (same sign, so ±1 steps to the adjacent magnitudes).
      for (int step : {-1, 1}) {
        const int nb = int(h) + step;
        if ((nb & 0x7fff) == 0x7fff || nb < 0 || nb > 0xffff || ((nb ^ h) & 0x8000)) continue;
        const float v = value(nb);
        if (!std::isfinite(v)) continue;
        EXPECT_LE(err, std::fabs(double(v) - f)) << f;
      }
    }
  }
}

TEST(Safetensors, HalfFilesLoadAsFloat32) {
  SafeTensors st = sample();
  st.tensors[0].data = {1.0f / 3.0f, -1e-5f, 1234.5f, 0.0f, 2.5f, -7.75f};
  for (StorageType t : {StorageType::F16, StorageType::BF16}) {
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(serialize_safetensors(st, t, &bytes, &error)) << error;
    EXPECT_NE(std::string(bytes.begin(), bytes.end()).find(std::string("\"dtype\":\"") + to_string(t) + "\""),
              std::string::npos);
    SafeTensors back;
    ASSERT_TRUE(parse_safetensors(bytes.data(), bytes.size(), &back, &error)) << error;
    for (const NamedTensor& orig : st.tensors) {
      const NamedTensor* b = back.find(orig.name);
      ASSERT_NE(b, nullptr);
      for (size_t i = 0; i < orig.data.size(); ++i) {
        EXPECT_EQ(b->data[i], round_to_storage(orig.data[i], t)) << orig.name << "[" << i << "]";
        // Half precision keeps ~3 (BF16: 2-3) significant digits.
        EXPECT_NEAR(b->data[i], orig.data[i], std::fabs(orig.data[i]) * (t == StorageType::BF16 ? 4e-3 : 5e-4) + 1e-7);
      }
    }
  }
}

TEST(Safetensors, StreamingReadMatchesWholeFileParse) {
  SafeTensors st = sample();
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  NamedTensor big{"big", {3, 1000001}, {}};  // more than one 4 MiB chunk of the streaming reader
  for (int i = 0; i < 3000003; ++i) big.data.push_back(g(rng));
  st.tensors.push_back(big);
  const std::string path = ::testing::TempDir() + "/stream_bf16.safetensors";
  std::string error;
  ASSERT_TRUE(write_safetensors(path, st, StorageType::BF16, &error)) << error;
  SafeTensors whole;
  ASSERT_TRUE(read_safetensors(path, &whole, &error)) << error;
  SafeTensorsFile file;
  ASSERT_TRUE(file.open(path, &error)) << error;
  ASSERT_EQ(file.header().entries.size(), 3u);
  for (const NamedTensor& t : whole.tensors) {
    const TensorEntry* e = file.header().find(t.name);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->dtype, StorageType::BF16);
    std::vector<float> got(static_cast<size_t>(e->count()));
    ASSERT_TRUE(file.read(*e, got.data(), &error)) << error;
    EXPECT_EQ(std::memcmp(got.data(), t.data.data(), got.size() * 4), 0) << t.name;
  }
  // A truncated copy is refused at open with the same message the whole-file parser gives.
  std::FILE* f = std::fopen((path + ".cut").c_str(), "wb");
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serialize_safetensors(st, StorageType::BF16, &bytes, &error));
  std::fwrite(bytes.data(), 1, bytes.size() - 10, f);
  std::fclose(f);
  SafeTensorsFile cut;
  EXPECT_FALSE(cut.open(path + ".cut", &error));
  EXPECT_NE(error.find("file is truncated"), std::string::npos) << error;
  EXPECT_FALSE(cut.open(path + ".missing", &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

}  // namespace
}  // namespace tw
