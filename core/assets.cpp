#include "core/assets.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <vector>

namespace tw {

namespace fs = std::filesystem;

namespace {
// The executable's directory, or empty (Linux only; elsewhere only the compiled-in roots are tried).
fs::path exe_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> asset_roots() {
  std::vector<fs::path> roots;
  if (const fs::path dir = exe_dir(); !dir.empty()) {
    roots.push_back(dir / "assets");
    roots.push_back(dir / ".." / "share" / "transformer-workbench");
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
    if (!dir.empty() && dir.front() == '/')
      roots.push_back(fs::path(dir) / "transformer-workbench");  // relative: ignored
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

std::string find_catalogue(const std::string& lang) {
  std::vector<fs::path> roots;
  if (const fs::path dir = exe_dir(); !dir.empty()) {
    roots.push_back(dir / "locale");
    roots.push_back(dir / ".." / "share" / "locale");
  }
  const char* xdg = std::getenv("XDG_DATA_DIRS");
  const std::string data_dirs = xdg && *xdg ? xdg : "/usr/local/share:/usr/share";
  for (size_t at = 0; at <= data_dirs.size();) {
    const size_t colon = std::min(data_dirs.find(':', at), data_dirs.size());
    if (colon > at) roots.push_back(fs::path(data_dirs.substr(at, colon - at)) / "locale");
    at = colon + 1;
  }
#ifdef TW_LOCALE_DIR
  roots.push_back(TW_LOCALE_DIR);
#endif
  std::error_code ec;
  for (const fs::path& root : roots) {
    const fs::path p = root / lang / "LC_MESSAGES" / "transformer-workbench.mo";
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

}  // namespace tw
