#include "core/io/npy.h"

#include "core/io/atomic_file.h"

#include <fstream>

namespace tw {

std::vector<uint8_t> npy_bytes(const float* data, const std::vector<int64_t>& shape) {
  int64_t count = 1;
  std::string dims;
  for (int64_t d : shape) {
    count *= d;
    dims += std::to_string(d) + ", ";
  }
  // Python tuple syntax: "(3,)" for one dimension, "(2, 3)" for two, "()" for a scalar.
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t preamble = 10;  // magic (6) + version (2) + header length (2)
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header.push_back('\n');

  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const auto* p = reinterpret_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + count * 4);  // little-endian host, matching '<f4'
  return out;
}

bool write_npy(const std::string& path, const Mat& m, const std::vector<int64_t>& shape, std::string* error) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  if (count != m.size()) {
    *error = "write_npy: shape does not match the " + std::to_string(m.size()) + " values of the matrix";
    return false;
  }
  const std::vector<uint8_t> bytes = npy_bytes(m.data(), shape);
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), error);
}

bool write_npy(const std::string& path, const Mat& m, std::string* error) {
  return write_npy(path, m, {static_cast<int64_t>(m.rows()), static_cast<int64_t>(m.cols())}, error);
}

}  // namespace tw
