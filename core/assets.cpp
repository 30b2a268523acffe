#include "core/assets.h"

#include <filesystem>
#include <vector>

namespace tw {

std::string find_asset(const std::string& relative) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // Linux; elsewhere only the source tree is tried
  if (!ec) {
    roots.push_back(exe.parent_path() / "assets");
    roots.push_back(exe.parent_path() / ".." / "share" / "transformer-workbench");
  }
#ifdef TW_ASSETS_DIR
  roots.push_back(TW_ASSETS_DIR);
#endif
  for (const fs::path& root : roots) {
    const fs::path p = root / relative;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

}  // namespace tw
