#pragma once
// The one way the project reads a whole file into memory: regular files only, never more than a stated cap.
//
// Every user-supplied path (scene, config.json, safetensors, session, tokenizer files) is read through here, so
// a directory, a FIFO, /dev/zero or a 40 GB file gives one clear line instead of a hang, an endless read or a
// bad_alloc. The size is checked on the opened descriptor (fstat), and the read stops at the cap even if the
// file grows meanwhile.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tw {

// Caps for the files the app reads (bytes). A cap is stated in the refusal message, e.g. "larger than 8 MiB".
constexpr size_t kMaxConfigBytes = size_t{4} << 20;       // config.json of any real model is a few KB
constexpr size_t kMaxSafetensorsBytes = size_t{4} << 30;  // the workbench runs small models on a laptop
constexpr size_t kMaxTokenizerBytes = size_t{64} << 20;   // tokenizer.json of a 150k vocabulary is ~10 MB

// Reads the whole regular file at `path` into *bytes. Returns false with one line in *error naming the path and
// the reason (missing, unreadable, a directory, a FIFO, a device, larger than max_bytes); *bytes is then empty.
bool read_file_bounded(const std::string& path, size_t max_bytes, std::string* bytes, std::string* error);
bool read_file_bounded(const std::string& path, size_t max_bytes, std::vector<uint8_t>* bytes, std::string* error);

// Opens the regular file at `path` for reading without ever blocking: stat first, then open with O_NONBLOCK (so a
// FIFO swapped in meanwhile returns at once) and fstat the descriptor. Returns the descriptor (close it yourself)
// and its size in *size, or -1 with one line in *error naming the path and what it is instead (a FIFO, a device...).
// Every user-named file is opened through here or through read_file_bounded.
int open_regular_file(const std::string& path, uint64_t* size, std::string* error);

// "8 MiB", "4 GiB", "512 bytes": how a cap is written in messages.
std::string format_byte_size(size_t bytes);

}  // namespace tw
