#include "core/io/npy.h"

#include "core/io/atomic_file.h"

namespace tw {

namespace {

// Magic, version, header length and the padded header: everything before the data.
std::string npy_header(const std::vector<int64_t>& shape) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  // Python tuple syntax: "(3,)" for one dimension, "(2, 3)" for two, "()" for a scalar.
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t preamble = 10;  // magic (6) + version (2) + header length (2)
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header;
}

int64_t count_of(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

}  // namespace

std::vector<uint8_t> npy_bytes(const float* data, const std::vector<int64_t>& shape) {
  const std::string header = npy_header(shape);
  std::vector<uint8_t> out(header.begin(), header.end());
  const auto* p = reinterpret_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + count_of(shape) * 4);  // little-endian host, matching '<f4'
  return out;
}

bool write_npy(const std::string& path, const Mat& m, const std::vector<int64_t>& shape, std::string* error) {
  if (count_of(shape) != m.size()) {
    *error = "write_npy: shape does not match the " + std::to_string(m.size()) + " values of the matrix";
    return false;
  }
  // Streamed from the matrix: an (H, T, T) map is not copied into a buffer first.
  AtomicFileWriter out;
  if (!out.open(path, error)) return false;
  out.write(npy_header(shape));
  out.write(m.data(), static_cast<size_t>(m.size()) * sizeof(float));
  return out.commit(error);
}

bool write_npy(const std::string& path, const Mat& m, std::string* error) {
  return write_npy(path, m, {static_cast<int64_t>(m.rows()), static_cast<int64_t>(m.cols())}, error);
}

}  // namespace tw
