#include "core/io/user_dirs.h"

#include <cstdlib>
#include <filesystem>

namespace tw {

std::string user_work_dir() {
  const char* home = std::getenv("HOME");
  const std::filesystem::path base =
      home && *home && std::filesystem::path(home).is_absolute() ? std::filesystem::path(home) : "/tmp";
  return (base / "transformer-workbench").lexically_normal().string();
}

}  // namespace tw
