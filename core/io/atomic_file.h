#pragma once
// The one way the project writes a file: bytes go to a temporary file in the same directory, which is then
// renamed over the target, so a reader (or a crash mid-write) sees the old file or the new one, never half.

#include <string>
#include <string_view>

namespace tw {

// Returns false with one line in *error naming the path and the reason; the target is then unchanged and no
// temporary file is left behind.
bool write_file_atomic(const std::string& path, std::string_view bytes, std::string* error);

}  // namespace tw
