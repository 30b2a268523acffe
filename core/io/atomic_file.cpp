#include "core/io/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tw {

bool write_file_atomic(const std::string& path, std::string_view bytes, std::string* error) {
  namespace fs = std::filesystem;
  if (path.empty()) {
    *error = "cannot write a file with an empty name";
    return false;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    *error = "cannot write " + path + ": it is a directory";
    return false;
  }
  // Same directory as the target so the rename never crosses file systems; the counter keeps concurrent
  // writers (export threads) from sharing a temporary name.
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  const size_t n = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  const int write_errno = errno;
  const bool write_ok = n == bytes.size();
  const bool close_ok = std::fclose(f) == 0;
  if (!write_ok || !close_ok) {
    *error = "cannot write " + path + ": " + std::strerror(write_ok ? errno : write_errno);
    fs::remove(tmp, ec);
    return false;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    *error = "cannot write " + path + ": " + ec.message();
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return false;
  }
  return true;
}

}  // namespace tw
