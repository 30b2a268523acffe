#include "core/io/safetensors.h"
#include "core/fail.h"

#include "core/base/i18n.h"
#include "core/base/json_parse.h"
#include "core/base/read_file.h"
#include "core/enum_names.h"
#include "core/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>

namespace tw {

namespace {

using nlohmann::json;

// A header is a few KB for any model the workbench runs; the cap stops a hostile length from allocating gigabytes.
constexpr uint64_t kMaxHeaderBytes = 100u * 1024u * 1024u;
constexpr int kMaxRank = 8;

// The first tensor name a header gives twice ("" when none): JSON keeps the last of two equal keys, so a header
// naming a tensor twice would silently lose one entry. Called after parse_json accepted the text (bounded depth).
std::string duplicate_tensor_name(std::string_view header) {
  std::set<std::string> seen;
  std::string dup;
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 && dup.empty() && parsed.is_string() &&
        !seen.insert(parsed.get<std::string>()).second)
      dup = parsed.get<std::string>();
    return true;
  };
  (void)json::parse(header, cb, false);
  return dup;
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

}  // namespace

const NamedTensor* SafeTensors::find(const std::string& name) const {
  for (const NamedTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// [SECTION] element types

namespace {
constexpr const char* kStorageTypeNames[] = {"F32", "F16", "BF16"};  // safetensors' dtype strings
static_assert(names_every(kStorageTypeNames, StorageType::BF16));
}  // namespace

const char* to_string(StorageType t) { return enum_name(kStorageTypeNames, t); }

bool storage_type_from_string(const std::string& s, StorageType* out) {
  for (StorageType t : {StorageType::F32, StorageType::F16, StorageType::BF16}) {
    std::string lower = to_string(t);
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == to_string(t) || s == lower) {
      *out = t;
      return true;
    }
  }
  return false;
}

int storage_bytes(StorageType t) { return t == StorageType::F32 ? 4 : 2; }

float bf16_to_float(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float f16_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  float magnitude;
  if (exp == 0)
    magnitude = std::ldexp(static_cast<float>(mant), -24);  // zero or subnormal: mant · 2^-24
  else if (exp == 31)
    magnitude = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    magnitude = std::ldexp(static_cast<float>(mant | 0x400), exp - 25);  // 1.mant · 2^(exp-15)
  uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);  // keep it a (quiet) NaN
  bits += 0x7fff + ((bits >> 16) & 1);                                   // round to nearest, ties to even
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t float_to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if (std::isnan(f)) return sign | 0x7e00;
  const float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7c00;  // rounds past the largest half (65504): infinity
  if (a < 0x1p-14f) {
    // Subnormal half: a multiple of 2^-24; nearbyint rounds ties to even in the default rounding mode.
    return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24f));
  }
  // Normal: keep 10 mantissa bits of the float32, rounding the 13 dropped bits to nearest even.
  uint32_t abits;
  std::memcpy(&abits, &a, 4);
  abits += 0xfff + ((abits >> 13) & 1);
  const uint32_t exp = (abits >> 23) - 127 + 15;  // a carry out of the mantissa bumps the exponent, as it should
  return sign | static_cast<uint16_t>((exp << 10) | ((abits >> 13) & 0x3ff));
}

float round_to_storage(float f, StorageType t) {
  switch (t) {
    case StorageType::F32: return f;
    case StorageType::F16: return f16_to_float(float_to_f16(f));
    case StorageType::BF16: return bf16_to_float(float_to_bf16(f));
  }
  return f;
}

void convert_to_float(float* dst, const uint8_t* src, size_t count, StorageType t) {
  if (t == StorageType::F32) {
    std::memcpy(dst, src, count * 4);  // little-endian host
    return;
  }
  // One loop per type, without a branch inside: the BF16 loop (a shift) then vectorizes, which made it 3x faster
  // than the shared loop on a 270M checkpoint.
  if (t == StorageType::BF16) {
    for (size_t i = 0; i < count; ++i)
      dst[i] = bf16_to_float(static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8)));
    return;
  }
  for (size_t i = 0; i < count; ++i) dst[i] = f16_to_float(static_cast<uint16_t>(src[2 * i] | (src[2 * i + 1] << 8)));
}

// [SECTION] parsing

int64_t TensorEntry::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const TensorEntry* SafeTensorsHeader::find(const std::string& name) const {
  for (const TensorEntry& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

bool parse_safetensors_header(const uint8_t* bytes, size_t available, uint64_t size, SafeTensorsHeader* out,
                              std::string* error) {
  if (size < 8)
    return fail(error,
                subst(tr("file is too short ({0} bytes) to hold the 8-byte header length"), {std::to_string(size)}));
  if (available < 8) return fail(error, tr("the first 8 bytes of the file could not be read"));
  const uint64_t header_len = read_u64_le(bytes);
  if (header_len > kMaxHeaderBytes)
    return fail(
        error, subst(tr("header length {0} bytes is implausibly large (corrupt file?)"), {std::to_string(header_len)}));
  if (header_len > size - 8)
    return fail(error, subst(tr("file is truncated: the header says {0} bytes but only {1} follow"),
                             {std::to_string(header_len), std::to_string(size - 8)}));
  if (header_len > available - 8) return fail(error, tr("the header could not be read completely"));
  const char* header_begin = reinterpret_cast<const char*>(bytes + 8);
  json header;
  if (std::string why; !parse_json(std::string_view(header_begin, header_len), &header, &why))
    return fail(error, subst(tr("header: {0}"), {why.substr(0, 200)}));
  if (!header.is_object()) return fail(error, tr("header must be a JSON object mapping tensor names to their info"));
  if (const std::string dup = duplicate_tensor_name(std::string_view(header_begin, header_len)); !dup.empty())
    return fail(error, subst(tr("header names the tensor '{0}' twice"), {dup.substr(0, 200)}));

  const uint64_t data_size = size - 8 - header_len;
  SafeTensorsHeader result;
  result.data_start = 8 + header_len;
  std::vector<TensorEntry>& entries = result.entries;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& info = it.value();
    if (name == "__metadata__") {
      if (!info.is_object()) return fail(error, tr("__metadata__ must be an object of strings"));
      for (auto m = info.begin(); m != info.end(); ++m) {
        if (!m.value().is_string())
          return fail(error, subst(tr("__metadata__ value '{0}' must be a string"), {m.key()}));
        result.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string where = subst(tr("tensor '{0}': "), {name});
    if (!info.is_object()) return fail(error, where + tr("info must be an object with dtype, shape, data_offsets"));
    if (!info.contains("dtype") || !info["dtype"].is_string()) return fail(error, where + tr("missing string 'dtype'"));
    const std::string dtype = info["dtype"].get<std::string>();
    TensorEntry e;
    if (dtype != "F32" && dtype != "F16" && dtype != "BF16")
      return fail(error, where + subst(tr("dtype is {0}; only F32, F16 and BF16 are supported (quantized or integer "
                                          "checkpoints are not)"),
                                       {dtype}));
    storage_type_from_string(dtype, &e.dtype);
    const uint64_t es = static_cast<uint64_t>(storage_bytes(e.dtype));
    if (!info.contains("shape") || !info["shape"].is_array()) return fail(error, where + tr("missing array 'shape'"));
    if (!info.contains("data_offsets") || !info["data_offsets"].is_array() || info["data_offsets"].size() != 2)
      return fail(error, where + tr("'data_offsets' must be an array [begin, end]"));
    e.name = name;
    if (info["shape"].size() > kMaxRank) return fail(error, where + tr("shape has more than 8 dimensions"));
    // Element count with an overflow guard: every dimension is bounded by the data size it must fit in.
    uint64_t count = 1;
    for (const json& d : info["shape"]) {
      uint64_t dim = 0;
      if (!as_u64(d, &dim)) return fail(error, where + tr("shape entries must be non-negative integers"));
      if (dim > data_size / es + 1) return fail(error, where + tr("shape is larger than the file's data"));
      if (dim != 0 && count > (data_size / es + 1) / dim)
        return fail(error, where + tr("shape is larger than the file's data"));
      count *= dim;
      e.shape.push_back(static_cast<int64_t>(dim));
    }
    if (!as_u64(info["data_offsets"][0], &e.begin) || !as_u64(info["data_offsets"][1], &e.end))
      return fail(error, where + tr("data_offsets must be non-negative integers"));
    if (e.begin > e.end) return fail(error, where + tr("data_offsets begin > end"));
    if (e.end > data_size)
      return fail(error, where + subst(tr("file is truncated: data ends at byte {0} of the buffer but only {1} bytes "
                                          "are present"),
                                       {std::to_string(e.end), std::to_string(data_size)}));
    if (e.end - e.begin != count * es)
      return fail(error, where + subst(tr("data_offsets span {0} bytes but shape needs {1} ({2})"),
                                       {std::to_string(e.end - e.begin), std::to_string(count * es), dtype}));
    entries.push_back(std::move(e));
  }
  // The format requires the data buffer to be covered exactly once: no overlaps, no holes.
  std::sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t cursor = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const TensorEntry& e = entries[i];
    if (e.begin < cursor)
      return fail(error,
                  subst(tr("tensors '{0}' and '{1}' overlap in the data buffer"), {entries[i - 1].name, e.name}));
    if (e.begin > cursor)
      return fail(error, subst(tr("data buffer has a hole before tensor '{0}' (bytes {1}..{2} belong to no tensor)"),
                               {e.name, std::to_string(cursor), std::to_string(e.begin)}));
    cursor = e.end;
  }
  if (cursor != data_size)
    return fail(error, subst(tr("data buffer has {0} trailing bytes that belong to no tensor"),
                             {std::to_string(data_size - cursor)}));
  *out = std::move(result);
  return true;
}

bool parse_safetensors(const uint8_t* bytes, size_t size, SafeTensors* out, std::string* error) {
  SafeTensorsHeader header;
  if (!parse_safetensors_header(bytes, size, size, &header, error)) return false;
  SafeTensors result;
  result.metadata = std::move(header.metadata);
  const uint8_t* data = bytes + header.data_start;
  for (const TensorEntry& e : header.entries) {
    NamedTensor t;
    t.name = e.name;
    t.shape = e.shape;
    t.data.resize(static_cast<size_t>(e.count()));
    if (!t.data.empty()) convert_to_float(t.data.data(), data + e.begin, t.data.size(), e.dtype);
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

// The 8-byte length and the JSON header for tensors laid out in the given order, each stored as `dtype`. Fails with
// a message when a tensor's value count does not match its shape or a name repeats.
bool safetensors_header(const std::vector<TensorView>& tensors, const std::map<std::string, std::string>& metadata,
                        StorageType dtype, std::string* out, std::string* error) {
  json header = json::object();
  std::set<std::string> names;
  const uint64_t es = static_cast<uint64_t>(storage_bytes(dtype));
  uint64_t offset = 0;
  for (const TensorView& t : tensors) {
    if (t.name == "__metadata__" || !names.insert(t.name).second)
      return fail(error, subst(tr("tensor name '{0}' is reserved or repeated"), {t.name}));
    uint64_t count = 1;
    for (int64_t d : t.shape) {
      if (d < 0) return fail(error, subst(tr("tensor '{0}' has a negative dimension"), {t.name}));
      count *= static_cast<uint64_t>(d);
    }
    if (count != t.count)
      return fail(error, subst(tr("tensor '{0}' has {1} values but its shape needs {2}"),
                               {t.name, std::to_string(t.count), std::to_string(count)}));
    header[t.name] = {{"dtype", to_string(dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + count * es}}};
    offset += count * es;
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

// Appends one tensor's values stored as `dtype` (little-endian) through `sink(bytes, n)`, a chunk at a time.
template <class Sink>
void emit_values(const TensorView& t, StorageType dtype, Sink&& sink) {
  if (dtype == StorageType::F32) return sink(reinterpret_cast<const char*>(t.data), t.count * sizeof(float));
  char chunk[4096];
  size_t used = 0;
  for (size_t i = 0; i < t.count; ++i) {
    const uint16_t h = dtype == StorageType::BF16 ? float_to_bf16(t.data[i]) : float_to_f16(t.data[i]);
    chunk[used++] = static_cast<char>(h & 0xff);
    chunk[used++] = static_cast<char>(h >> 8);
    if (used == sizeof chunk) sink(chunk, used), used = 0;
  }
  if (used) sink(chunk, used);
}

}  // namespace

bool serialize_safetensors(const SafeTensors& in, std::vector<uint8_t>* bytes, std::string* error) {
  return serialize_safetensors(in, StorageType::F32, bytes, error);
}

bool serialize_safetensors(const SafeTensors& in, StorageType dtype, std::vector<uint8_t>* bytes, std::string* error) {
  const std::vector<TensorView> views = views_of(in);
  std::string header;
  if (!safetensors_header(views, in.metadata, dtype, &header, error)) return false;
  bytes->assign(header.begin(), header.end());
  for (const TensorView& t : views)
    emit_values(t, dtype, [&](const char* p, size_t n) { bytes->insert(bytes->end(), p, p + n); });
  return true;
}

bool write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata, std::string* error, StorageType dtype) {
  std::string header;
  if (!safetensors_header(tensors, metadata, dtype, &header, error)) return false;
  AtomicFileWriter out;
  if (!out.open(path, error)) return false;
  out.write(header);
  for (const TensorView& t : tensors) emit_values(t, dtype, [&](const char* p, size_t n) { out.write(p, n); });
  return out.commit(error);
}

bool write_safetensors(const std::string& path, const SafeTensors& in, std::string* error) {
  return write_safetensors(path, views_of(in), in.metadata, error);
}

bool write_safetensors(const std::string& path, const SafeTensors& in, StorageType dtype, std::string* error) {
  return write_safetensors(path, views_of(in), in.metadata, error, dtype);
}

// [SECTION] streaming reads

namespace {

// pread until `n` bytes arrived (pread may return fewer), or false on error / end of file.
bool pread_all(int fd, uint8_t* dst, size_t n, uint64_t offset) {
  while (n > 0) {
    const ssize_t got = ::pread(fd, dst, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    dst += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace

SafeTensorsFile::~SafeTensorsFile() {
  if (fd_ >= 0) ::close(fd_);
}

SafeTensorsFile::SafeTensorsFile(SafeTensorsFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), header_(std::move(o.header_)) {}

SafeTensorsFile& SafeTensorsFile::operator=(SafeTensorsFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    header_ = std::move(o.header_);
  }
  return *this;
}

bool SafeTensorsFile::open(const std::string& path, std::string* error) {
  // Through the one opener of user-named files: a FIFO or device named model.safetensors is refused, never waited on.
  uint64_t size = 0;
  const int fd = open_regular_file(path, &size, error);
  if (fd < 0) return false;
  std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(size, 8)));
  if (!pread_all(fd, head.data(), head.size(), 0)) head.clear();
  // Read exactly the header (its length is bounded by kMaxHeaderBytes inside the parser's check).
  if (head.size() == 8) {
    const uint64_t n = read_u64_le(head.data());
    if (n <= kMaxHeaderBytes && n <= size - 8) {
      head.resize(static_cast<size_t>(8 + n));
      if (!pread_all(fd, head.data() + 8, static_cast<size_t>(n), 8)) head.resize(8);
    }
  }
  SafeTensorsHeader header;
  if (!parse_safetensors_header(head.data(), head.size(), size, &header, error)) {
    ::close(fd);
    *error = path + ": " + *error;
    return false;
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  path_ = path;
  header_ = std::move(header);
  return true;
}

bool SafeTensorsFile::read(const TensorEntry& e, float* dst, std::string* error) const {
  if (fd_ < 0) return fail(error, tr("no checkpoint file is open"));
  // 4 MiB of file bytes at a time: big enough for few syscalls, small enough to be noise next to the model.
  constexpr size_t kChunkElems = size_t(1) << 21;
  constexpr size_t kSplitElems = size_t(1) << 18;  // from 1 MiB of float32 on, a thread costs far less than it saves
  const size_t es = static_cast<size_t>(storage_bytes(e.dtype));
  const size_t total = static_cast<size_t>(e.count());
  // Reads and converts elements [from, to) through its own buffer (not zero-filled: pread overwrites it).
  auto read_range = [&](size_t from, size_t to) {
    const std::unique_ptr<uint8_t[]> buffer(new uint8_t[std::min(to - from, kChunkElems) * es]);
    for (size_t done = from; done < to;) {
      const size_t n = std::min(kChunkElems, to - done);
      if (!pread_all(fd_, buffer.get(), n * es, header_.data_start + e.begin + done * es)) return false;
      convert_to_float(dst + done, buffer.get(), n, e.dtype);
      done += n;
    }
    return true;
  };
  // A large tensor is read in two halves on two threads: converting and first touching the float32 pages (a page
  // fault each) is most of a load's time, and the halves are independent, so the result is the same bytes.
  bool ok = true;
  if (total >= kSplitElems && std::thread::hardware_concurrency() >= 2) {
    const size_t half = total / 2;
    bool second_ok = true;
    std::thread second([&] { second_ok = read_range(half, total); });
    ok = read_range(0, half);
    second.join();
    ok = ok && second_ok;
  } else {
    ok = read_range(0, total);
  }
  if (!ok)
    return fail(error,
                path_ + ": " + subst(tr("tensor '{0}' could not be read (file changed or truncated?)"), {e.name}));
  return true;
}

}  // namespace tw
