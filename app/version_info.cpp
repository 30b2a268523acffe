#include "app/version_info.h"

#include <filesystem>

#include "core/assets.h"
#include "core/matmul_threads.h"
#include "views/plot/text.h"

namespace tw {

std::string version_report() {
  std::string out = std::string("transformer-workbench ") + build_version() + " (commit " + build_commit() + ")\n";
  out += "matrix products: " + matmul_backend() + ", kernel " + matmul_kernel() + "\n";
  const std::string font = plot::figure_font_path();
  std::error_code ec;
  out += "fonts: " + font + (std::filesystem::is_regular_file(font, ec) ? "" : " (missing)") + "\n";
  const std::string scenes = find_asset_dir("scenes");
  out += "data: " + (scenes.empty() ? std::string("not found") : std::filesystem::path(scenes).parent_path().string()) +
         "\n";
  return out;
}

}  // namespace tw
