#include "core/io/safetensors.h"

#include "core/io/atomic_file.h"
#include "core/io/read_file.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace tw {

namespace {

using nlohmann::json;

// A header is a few KB for any model the workbench runs; the cap stops a hostile length from allocating gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;
constexpr int kMaxRank = 8;

bool fail(std::string* error, std::string message) {
  *error = std::move(message);
  return false;
}

uint64_t read_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Reads a JSON number that must be a non-negative integer (json stores those as unsigned or signed).
bool as_u64(const json& v, uint64_t* out) {
  if (v.is_number_unsigned()) {
    *out = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    *out = static_cast<uint64_t>(v.get<int64_t>());
    return true;
  }
  return false;
}

struct Entry {
  std::string name;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

}  // namespace

const NamedTensor* SafeTensors::find(const std::string& name) const {
  for (const NamedTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

bool parse_safetensors(const uint8_t* bytes, size_t size, SafeTensors* out, std::string* error) {
  if (size < 8)
    return fail(error, "file is too short (" + std::to_string(size) + " bytes) to hold the 8-byte header length");
  const uint64_t header_len = read_u64_le(bytes);
  if (header_len > kMaxHeaderBytes)
    return fail(error, "header length " + std::to_string(header_len) + " bytes is implausibly large (corrupt file?)");
  if (header_len > size - 8)
    return fail(error, "file is truncated: the header says " + std::to_string(header_len) + " bytes but only " +
                           std::to_string(size - 8) + " follow");
  const char* header_begin = reinterpret_cast<const char*>(bytes + 8);
  const json header = json::parse(header_begin, header_begin + header_len, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) return fail(error, "header is not valid JSON");
  if (!header.is_object()) return fail(error, "header must be a JSON object mapping tensor names to their info");

  const uint64_t data_size = size - 8 - header_len;
  const uint8_t* data = bytes + 8 + header_len;
  std::vector<Entry> entries;
  SafeTensors result;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& info = it.value();
    if (name == "__metadata__") {
      if (!info.is_object()) return fail(error, "__metadata__ must be an object of strings");
      for (auto m = info.begin(); m != info.end(); ++m) {
        if (!m.value().is_string()) return fail(error, "__metadata__ value '" + m.key() + "' must be a string");
        result.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "': ";
    if (!info.is_object()) return fail(error, where + "info must be an object with dtype, shape, data_offsets");
    if (!info.contains("dtype") || !info["dtype"].is_string()) return fail(error, where + "missing string 'dtype'");
    const std::string dtype = info["dtype"].get<std::string>();
    if (dtype != "F32") return fail(error, where + "dtype is " + dtype + "; only F32 (float32) is supported");
    if (!info.contains("shape") || !info["shape"].is_array()) return fail(error, where + "missing array 'shape'");
    if (!info.contains("data_offsets") || !info["data_offsets"].is_array() || info["data_offsets"].size() != 2)
      return fail(error, where + "'data_offsets' must be an array [begin, end]");
    Entry e;
    e.name = name;
    if (info["shape"].size() > kMaxRank) return fail(error, where + "shape has more than 8 dimensions");
    // Element count with an overflow guard: every dimension is bounded by the data size it must fit in.
    uint64_t count = 1;
    for (const json& d : info["shape"]) {
      uint64_t dim = 0;
      if (!as_u64(d, &dim)) return fail(error, where + "shape entries must be non-negative integers");
      if (dim > data_size / 4 + 1) return fail(error, where + "shape is larger than the file's data");
      if (dim != 0 && count > (data_size / 4 + 1) / dim)
        return fail(error, where + "shape is larger than the file's data");
      count *= dim;
      e.shape.push_back(static_cast<int64_t>(dim));
    }
    if (!as_u64(info["data_offsets"][0], &e.begin) || !as_u64(info["data_offsets"][1], &e.end))
      return fail(error, where + "data_offsets must be non-negative integers");
    if (e.begin > e.end) return fail(error, where + "data_offsets begin > end");
    if (e.end > data_size)
      return fail(error, where + "file is truncated: data ends at byte " + std::to_string(e.end) +
                             " of the buffer but only " + std::to_string(data_size) + " bytes are present");
    if (e.end - e.begin != count * 4)
      return fail(error, where + "data_offsets span " + std::to_string(e.end - e.begin) + " bytes but shape needs " +
                             std::to_string(count * 4) + " (F32)");
    entries.push_back(std::move(e));
  }
  // The format requires the data buffer to be covered exactly once: no overlaps, no holes.
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t cursor = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (e.begin < cursor)
      return fail(error, "tensors '" + entries[i - 1].name + "' and '" + e.name + "' overlap in the data buffer");
    if (e.begin > cursor)
      return fail(error, "data buffer has a hole before tensor '" + e.name + "' (bytes " + std::to_string(cursor) +
                             ".." + std::to_string(e.begin) + " belong to no tensor)");
    cursor = e.end;
  }
  if (cursor != data_size)
    return fail(error,
                "data buffer has " + std::to_string(data_size - cursor) + " trailing bytes that belong to no tensor");

  for (const Entry& e : entries) {
    NamedTensor t;
    t.name = e.name;
    t.shape = e.shape;
    t.data.resize((e.end - e.begin) / 4);
    if (!t.data.empty()) std::memcpy(t.data.data(), data + e.begin, e.end - e.begin);  // little-endian host
    result.tensors.push_back(std::move(t));
  }
  *out = std::move(result);
  return true;
}

bool read_safetensors(const std::string& path, SafeTensors* out, std::string* error) {
  std::vector<uint8_t> bytes;
  if (!read_file_bounded(path, kMaxSafetensorsBytes, &bytes, error)) return false;
  if (!parse_safetensors(bytes.data(), bytes.size(), out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

namespace {

// The 8-byte length and the JSON header for tensors laid out in the given order. Fails with a message when a
// tensor's value count does not match its shape or a name repeats.
bool safetensors_header(const std::vector<TensorView>& tensors, const std::map<std::string, std::string>& metadata,
                        std::string* out, std::string* error) {
  json header = json::object();
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const TensorView& t : tensors) {
    if (t.name == "__metadata__" || !names.insert(t.name).second)
      return fail(error, "tensor name '" + t.name + "' is reserved or repeated");
    uint64_t count = 1;
    for (int64_t d : t.shape) {
      if (d < 0) return fail(error, "tensor '" + t.name + "' has a negative dimension");
      count *= static_cast<uint64_t>(d);
    }
    if (count != t.count)
      return fail(error, "tensor '" + t.name + "' has " + std::to_string(t.count) + " values but its shape needs " +
                             std::to_string(count));
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + count * 4}}};
    offset += count * 4;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  // Names from parse are valid UTF-8; `replace` keeps a caller's invalid name from throwing out of here.
  std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  text.append((8 - text.size() % 8) % 8, ' ');
  out->assign(8, '\0');
  for (int i = 0; i < 8; ++i) (*out)[i] = static_cast<char>(static_cast<uint64_t>(text.size()) >> (8 * i));
  // json keeps keys sorted, but data is laid out in the given order: offsets above were assigned in that order.
  out->append(text);
  return true;
}

std::vector<TensorView> views_of(const SafeTensors& in) {
  std::vector<TensorView> views;
  for (const NamedTensor& t : in.tensors) views.push_back({t.name, t.shape, t.data.data(), t.data.size()});
  return views;
}

}  // namespace

bool serialize_safetensors(const SafeTensors& in, std::vector<uint8_t>* bytes, std::string* error) {
  std::string header;
  if (!safetensors_header(views_of(in), in.metadata, &header, error)) return false;
  bytes->assign(header.begin(), header.end());
  for (const NamedTensor& t : in.tensors) {
    const auto* p = reinterpret_cast<const uint8_t*>(t.data.data());
    bytes->insert(bytes->end(), p, p + t.data.size() * 4);
  }
  return true;
}

bool write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata, std::string* error) {
  std::string header;
  if (!safetensors_header(tensors, metadata, &header, error)) return false;
  AtomicFileWriter out;
  if (!out.open(path, error)) return false;
  out.write(header);
  for (const TensorView& t : tensors) out.write(t.data, t.count * sizeof(float));  // little-endian host
  return out.commit(error);
}

bool write_safetensors(const std::string& path, const SafeTensors& in, std::string* error) {
  return write_safetensors(path, views_of(in), in.metadata, error);
}

}  // namespace tw
