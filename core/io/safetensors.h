#pragma once
// safetensors (Hugging Face's checkpoint format): F32, F16 and BF16 tensors, converted to float32 on load.
//
// Layout: an 8-byte little-endian unsigned header length N, then N bytes of JSON, then the raw data buffer.
// The JSON maps each tensor name to {"dtype": "F32" | "F16" | "BF16", "shape": [...], "data_offsets": [begin, end]}
// (offsets are relative to the data buffer) and may hold "__metadata__": {string: string}. Tensors are row-major (C
// order).
//
// The parser treats every byte as hostile: any input gives either a result or one clear message, never a crash,
// an assert or an unbounded allocation (a fuzzer is pointed at parse_safetensors).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tw {

// [SECTION] element types
// BF16 is the top 16 bits of a float32 (same exponent range, 8-bit mantissa); F16 is IEEE half (5-bit exponent).
// Anything else (I8, U8, F8_*, quantized blocks) is refused with a message naming the dtype.
enum class StorageType { F32, F16, BF16 };
const char* to_string(StorageType t);                                   // "F32", "F16", "BF16"
bool storage_type_from_string(const std::string& s, StorageType* out);  // accepts F32/F16/BF16 (and lower case)
int storage_bytes(StorageType t);                                       // 4, 2, 2
float f16_to_float(uint16_t h);
float bf16_to_float(uint16_t b);
uint16_t float_to_f16(float f);                  // round to nearest even; overflow gives ±inf, NaN stays NaN
uint16_t float_to_bf16(float f);                 // round to nearest even; NaN stays NaN
float round_to_storage(float f, StorageType t);  // the float32 value a save in `t` and a load give back
// dst[i] = the i-th little-endian element of src converted to float32.
void convert_to_float(float* dst, const uint8_t* src, size_t count, StorageType t);

struct NamedTensor {
  std::string name;            // e.g. "model.layers.0.self_attn.q_proj.weight"
  std::vector<int64_t> shape;  // row-major dimensions; {} is a scalar
  std::vector<float> data;     // product(shape) values
};

struct SafeTensors {
  std::vector<NamedTensor> tensors;             // in data-offset order when read, in insertion order when written
  std::map<std::string, std::string> metadata;  // the optional "__metadata__" object

  const NamedTensor* find(const std::string& name) const;
};

// Parses a whole file's bytes. On failure returns false with one line in *error; *out is left unspecified.
bool parse_safetensors(const uint8_t* bytes, size_t size, SafeTensors* out, std::string* error);
bool read_safetensors(const std::string& path, SafeTensors* out, std::string* error);

// Serialises tensors (header padded with spaces to a multiple of 8 so the data is aligned). Fails with a message
// when a tensor's data size does not match its shape or a name repeats.
bool serialize_safetensors(const SafeTensors& in, std::vector<uint8_t>* bytes, std::string* error);
bool write_safetensors(const std::string& path, const SafeTensors& in, std::string* error);
// The same, storing every tensor as `dtype` (values rounded to nearest even for F16/BF16).
bool serialize_safetensors(const SafeTensors& in, StorageType dtype, std::vector<uint8_t>* bytes, std::string* error);
bool write_safetensors(const std::string& path, const SafeTensors& in, StorageType dtype, std::string* error);

// [SECTION] streaming reads
// A real checkpoint is hundreds of MB: reading it whole and then converting would hold the file and the
// float32 copy at once. These read only the header, then convert one tensor at a time through a small buffer
// straight into the caller's float32 storage, so peak memory stays near the float32 model size.
struct TensorEntry {
  std::string name;
  StorageType dtype = StorageType::F32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range inside the data buffer
  int64_t count() const;        // product(shape)
};
struct SafeTensorsHeader {
  std::vector<TensorEntry> entries;             // sorted by data offset
  std::map<std::string, std::string> metadata;  // "__metadata__"
  uint64_t data_start = 0;                      // file offset of the data buffer (8 + header length)
  const TensorEntry* find(const std::string& name) const;
};
// `bytes` holds the first `available` bytes of a file whose full size is `file_size`; it must include the whole
// header (8 + N bytes), or the call fails saying so. Validates offsets against file_size exactly as
// parse_safetensors does.
bool parse_safetensors_header(const uint8_t* bytes, size_t available, uint64_t file_size, SafeTensorsHeader* out,
                              std::string* error);

// An open checkpoint file read tensor by tensor (pread on a file descriptor; no mapping of the whole file).
class SafeTensorsFile {
 public:
  SafeTensorsFile() = default;
  ~SafeTensorsFile();
  SafeTensorsFile(const SafeTensorsFile&) = delete;
  SafeTensorsFile& operator=(const SafeTensorsFile&) = delete;
  SafeTensorsFile(SafeTensorsFile&& other) noexcept;
  SafeTensorsFile& operator=(SafeTensorsFile&& other) noexcept;

  bool open(const std::string& path, std::string* error);  // reads and validates the header
  const SafeTensorsHeader& header() const { return header_; }
  const std::string& path() const { return path_; }
  // Converts entry `e` into dst (e.count() floats).
  bool read(const TensorEntry& e, float* dst, std::string* error) const;

 private:
  int fd_ = -1;
  std::string path_;
  SafeTensorsHeader header_;
};

}  // namespace tw
