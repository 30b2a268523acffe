#include "core/base/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "core/base/i18n.h"

namespace tw {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return tr("a directory");
  if (S_ISFIFO(mode)) return tr("a FIFO (named pipe)");
  if (S_ISCHR(mode)) return tr("a character device");
  if (S_ISBLK(mode)) return tr("a block device");
  if (S_ISSOCK(mode)) return tr("a socket");
  return tr("not a regular file");
}

// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

int open_regular_file(const std::string& path, uint64_t* size, std::string* error) {
  if (path.empty()) {
    *error = tr("no file name given");
    return -1;
  }
  // stat before open: opening a FIFO for reading blocks until a writer appears.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *error = subst(tr("{0}: cannot open ({1})"), {path, std::strerror(errno)});
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = subst(tr("{0}: is {1}, not a file"), {path, kind_of(st.st_mode)});
    return -1;
  }
  // O_NONBLOCK: if the path was swapped for a FIFO since stat, open still returns at once (fstat then refuses it).
  // On a regular file the flag changes nothing.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *error = subst(tr("{0}: cannot open ({1})"), {path, std::strerror(errno)});
    return -1;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = subst(tr("{0}: is {1}, not a file"), {path, kind_of(st.st_mode)});
    ::close(fd);
    return -1;
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

namespace {

template <class Buffer>
bool read_bounded(const std::string& path, size_t max_bytes, Buffer* bytes, std::string* error) {
  bytes->clear();
  uint64_t size = 0;
  Fd f;
  f.fd = open_regular_file(path, &size, error);
  if (f.fd < 0) return false;
  if (size > max_bytes) {
    *error = subst(tr("{0}: is {1}, larger than the {2} this file may have"),
                   {path, format_byte_size(static_cast<size_t>(size)), format_byte_size(max_bytes)});
    return false;
  }
  try {
    bytes->resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    *error = subst(tr("{0}: not enough memory to read its {1}"), {path, format_byte_size(static_cast<size_t>(size))});
    return false;
  }
  size_t done = 0;
  while (done < bytes->size()) {
    const ssize_t n = ::read(f.fd, reinterpret_cast<char*>(bytes->data()) + done, bytes->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = subst(tr("{0}: cannot read ({1})"), {path, std::strerror(errno)});
      bytes->clear();
      return false;
    }
    if (n == 0) break;  // the file shrank since fstat: keep what is there
    done += static_cast<size_t>(n);
  }
  bytes->resize(done);
  // A file that grew past its fstat size is read up to that size only: the cap holds whatever happens on disk.
  return true;
}

}  // namespace

bool read_file_bounded(const std::string& path, size_t max_bytes, std::string* bytes, std::string* error) {
  return read_bounded(path, max_bytes, bytes, error);
}

bool read_file_bounded(const std::string& path, size_t max_bytes, std::vector<uint8_t>* bytes, std::string* error) {
  return read_bounded(path, max_bytes, bytes, error);
}

std::string format_byte_size(size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  if (u == 0) return subst(tr("{0} bytes"), {std::to_string(bytes)});
  char buf[32];
  std::snprintf(buf, sizeof(buf), v < 10 && v != static_cast<int>(v) ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace tw
