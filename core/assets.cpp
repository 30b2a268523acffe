#include "core/assets.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>
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
  // The XDG base directory spec: an unset or empty XDG_DATA_DIRS means /usr/local/share:/usr/share.
  const char* xdg = std::getenv("XDG_DATA_DIRS");
  std::string_view dirs = xdg && *xdg ? xdg : "/usr/local/share:/usr/share";
  while (!dirs.empty()) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty() && dir.front() == '/') roots.push_back(fs::path(dir) / "transformer-workbench");  // relative: ignored
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
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
