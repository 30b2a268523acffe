#pragma once
// The one way the project writes a file: bytes go to a temporary file in the same directory, which is then
// renamed over the target, so a reader (or a crash mid-write) sees the old file or the new one, never half.
//
// Temporary files are hidden and named `.<target name>.tw-partial-<pid>-<n>`: a process killed mid-write
// (SIGKILL, SIGTERM, a full disk) leaves one that no one can take for output, and the next export or dump into
// the same directory removes it (remove_stale_temp_files).

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

// Returns false with one line in *error naming the path and the reason; the target is then unchanged and no
// temporary file is left behind.
bool write_file_atomic(const std::string& path, std::string_view bytes, std::string* error);

// The same, streamed: large outputs (.npy attention maps, CSV tables, checkpoints) are written piece by piece
// instead of being assembled in memory first.
//   AtomicFileWriter w;  if (!w.open(path, &error)) ...;  w.write(p, n); ...;  if (!w.commit(&error)) ...
// Destroying a writer that was not committed removes its temporary file.
class AtomicFileWriter {
 public:
  AtomicFileWriter() = default;
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  bool open(const std::string& path, std::string* error);
  // Appends bytes; a failure is remembered and reported by commit().
  void write(const void* data, size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Flushes, closes and renames over the target. False (temporary removed, target unchanged) on any failure.
  bool commit(std::string* error);

 private:
  void discard();
  std::string path_, tmp_;
  FILE* file_ = nullptr;
  int write_errno_ = 0;  // first failed write
};

// True for names of temporary files this module creates (any process).
bool is_temp_file_name(std::string_view file_name);
// Removes temporary files in `dir` left by processes that no longer run (an interrupted export or dump); the
// names removed are appended to *removed when given. Files of a running process are left alone.
void remove_stale_temp_files(const std::string& dir, std::vector<std::string>* removed = nullptr);

}  // namespace tw
