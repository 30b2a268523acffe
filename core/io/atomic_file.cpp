#include "core/io/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/base/i18n.h"

namespace tw {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMarker = ".tw-partial-";

// The pid inside a temporary file name (".name.tw-partial-<pid>-<n>"), or 0 when the name is not one of ours.
long temp_file_pid(std::string_view name) {
  if (name.empty() || name[0] != '.') return 0;
  const size_t at = name.rfind(kMarker);
  if (at == std::string_view::npos) return 0;
  const std::string rest(name.substr(at + kMarker.size()));
  char* end = nullptr;
  const long pid = std::strtol(rest.c_str(), &end, 10);
  if (pid <= 0 || *end != '-') return 0;
  for (const char* p = end + 1; *p; ++p)
    if (*p < '0' || *p > '9') return 0;
  return end[1] ? pid : 0;
}

}  // namespace

// [SECTION] streamed writer

AtomicFileWriter::~AtomicFileWriter() { discard(); }

void AtomicFileWriter::discard() {
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (!tmp_.empty()) {
    std::error_code ec;
    fs::remove(tmp_, ec);
    tmp_.clear();
  }
}

bool AtomicFileWriter::open(const std::string& path, std::string* error) {
  discard();
  write_errno_ = 0;
  if (path.empty()) {
    *error = tr("cannot write a file with an empty name");
    return false;
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    *error = subst(tr("cannot write {0}: it is a directory"), {path});
    return false;
  }
  // Same directory as the target so the rename never crosses file systems; the counter keeps concurrent
  // writers (export threads) from sharing a temporary name.
  static std::atomic<unsigned> counter{0};
  const fs::path target(path);
  std::string name = ".";  // appended rather than a + chain: GCC 12 warns falsely (-Wrestrict) on the chain
  name.append(target.filename().string()).append(kMarker).append(std::to_string(::getpid())).append("-");
  name.append(std::to_string(counter++));
  tmp_ = (target.parent_path() / name).string();
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) {
    *error = subst(tr("cannot write {0}: {1}"), {path, std::strerror(errno)});
    tmp_.clear();
    return false;
  }
  path_ = path;
  return true;
}

void AtomicFileWriter::write(const void* data, size_t size) {
  if (!file_ || write_errno_ || size == 0) return;
  if (std::fwrite(data, 1, size, file_) != size) write_errno_ = errno ? errno : EIO;
}

bool AtomicFileWriter::commit(std::string* error) {
  if (!file_) {
    *error = path_.empty() ? std::string(tr("cannot write a file: it was not opened"))
                           : subst(tr("cannot write {0}: it was not opened"), {path_});
    return false;
  }
  const bool close_ok = std::fclose(file_) == 0;
  const int close_errno = errno;
  file_ = nullptr;
  if (write_errno_ || !close_ok) {
    *error = subst(tr("cannot write {0}: {1}"), {path_, std::strerror(write_errno_ ? write_errno_ : close_errno)});
    discard();
    return false;
  }
  std::error_code ec;
  fs::rename(tmp_, path_, ec);
  if (ec) {
    *error = subst(tr("cannot write {0}: {1}"), {path_, ec.message()});
    discard();
    return false;
  }
  tmp_.clear();
  return true;
}

// [SECTION] whole buffer

bool write_file_atomic(const std::string& path, std::string_view bytes, std::string* error) {
  AtomicFileWriter w;
  if (!w.open(path, error)) return false;
  w.write(bytes);
  return w.commit(error);
}

// [SECTION] stale temporaries

bool is_temp_file_name(std::string_view file_name) { return temp_file_pid(file_name) != 0; }

void remove_stale_temp_files(const std::string& dir, std::vector<std::string>* removed) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long pid = temp_file_pid(name);
    if (pid == 0) continue;
    // A writer that still runs (another export into the same folder) keeps its file; kill(pid, 0) fails with
    // ESRCH only when no such process exists.
    if (pid == ::getpid()) continue;
    if (!(::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) continue;
    std::error_code rm;
    if (fs::remove(it->path(), rm) && removed) removed->push_back(name);
  }
}

}  // namespace tw
