#pragma once
// .npy files (NumPy format version 1.0), float32: what `numpy.load` reads back as an ndarray.
//
// Layout: magic "\x93NUMPY", version 1 0, a 2-byte little-endian header length, a Python-dict header
// {'descr': '<f4', 'fortran_order': False, 'shape': (...), } padded with spaces and a newline so the data
// starts at a multiple of 64 bytes, then the row-major float32 data.

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tw {

// Bytes of a .npy file holding `data` with the given shape (product(shape) must equal data.size()).
std::vector<uint8_t> npy_bytes(const float* data, const std::vector<int64_t>& shape);
// Writes `m` with an explicit logical shape (e.g. (H, T, T) for an attention map stored as (H*T, T)).
bool write_npy(const std::string& path, const Mat& m, const std::vector<int64_t>& shape, std::string* error);
// Writes `m` as a 2-D array (rows, cols).
bool write_npy(const std::string& path, const Mat& m, std::string* error);

}  // namespace tw
