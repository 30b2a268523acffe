#include "core/assets.h"

#include <filesystem>
#include <vector>

namespace tw {

namespace fs = std::filesystem;

namespace {
std::vector<fs::path> asset_roots() {
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
  return roots;
}
}  // namespace

std::string find_asset(const std::string& relative) {
  std::error_code ec;
  for (const fs::path& root : asset_roots()) {
    const fs::path p = root / relative;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

std::string find_asset_dir(const std::string& folder) {
  std::error_code ec;
  for (const fs::path& root : asset_roots()) {
    const fs::path dir = root / folder;
    if (fs::is_directory(dir, ec)) return fs::weakly_canonical(dir, ec).string();
  }
  return "";
}

}  // namespace tw
