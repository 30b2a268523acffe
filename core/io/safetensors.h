#pragma once
// safetensors (Hugging Face's checkpoint format), float32 only.
//
// Layout: an 8-byte little-endian unsigned header length N, then N bytes of JSON, then the raw data buffer.
// The JSON maps each tensor name to {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]} (offsets are
// relative to the data buffer) and may hold "__metadata__": {string: string}. Tensors are row-major (C order).
//
// The parser treats every byte as hostile: any input gives either a result or one clear message, never a crash,
// an assert or an unbounded allocation (a fuzzer is pointed at parse_safetensors).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tw {

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

// A tensor the caller owns, for writing without a copy: a checkpoint is streamed from the model's own matrices.
struct TensorView {
  std::string name;
  std::vector<int64_t> shape;
  const float* data = nullptr;  // count values, row-major
  size_t count = 0;
};
// Streams the file (same bytes as serialize_safetensors of the same tensors), never holding a second copy.
bool write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata, std::string* error);

}  // namespace tw
