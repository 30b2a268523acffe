// File writing shared by the exporters: atomic writes, CSV, and the `<prefix>-<id>.<ext>` naming.
#include "views/plot/export.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tw::plot {

std::string write_file_atomic(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  if (path.empty()) return "cannot write a file with an empty name";
  static std::atomic<unsigned> counter{0};  // unique temporary names for concurrent exports
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot write " + path + ": " + std::strerror(errno);
  const size_t n = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool write_ok = n == bytes.size();
  const int write_errno = errno;
  const bool close_ok = std::fclose(f) == 0;
  std::error_code ec;
  if (!write_ok || !close_ok) {
    fs::remove(tmp, ec);
    return "cannot write " + path + ": " + std::strerror(write_ok ? errno : write_errno);
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return "cannot write " + path + ": " + ec.message();
  }
  return "";
}

std::string export_csv(const Figure& fig, const std::string& path) { return write_file_atomic(path, to_csv(figure_table(fig))); }

std::string export_svg(const Figure& fig, const std::string& path, const ExportOptions& options) {
  return write_file_atomic(path, render_svg(fig, options));
}

std::string export_png(const Figure& fig, const std::string& path, const ExportOptions& options) {
  const RenderedPng png = render_png(fig, options);
  if (!png.error.empty()) return "cannot export " + path + ": " + png.error;
  return write_file_atomic(path, png.png);
}

std::string export_figure(const Figure& fig, const std::string& dir, const std::string& prefix, ExportFormats formats,
                          const ExportOptions& options, std::vector<std::string>* written) {
  namespace fs = std::filesystem;
  if (!valid_figure_id(fig.id))
    return "figure id '" + fig.id + "' cannot be used in a file name (letters, digits, '-', '_' and '.' only)";
  std::error_code ec;
  if (!dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec) return "cannot create directory " + dir + ": " + ec.message();
  }
  const std::string stem = (fs::path(dir.empty() ? "." : dir) / (prefix.empty() ? fig.id : prefix + "-" + fig.id)).string();
  struct Job {
    ExportFormats flag;
    const char* ext;
  };
  for (const Job& job : {Job{ExportFormat_Png, ".png"}, Job{ExportFormat_Svg, ".svg"}, Job{ExportFormat_Csv, ".csv"}}) {
    if (!(formats & job.flag)) continue;
    const std::string path = stem + job.ext;
    std::string err;
    if (job.flag == ExportFormat_Png) err = export_png(fig, path, options);
    else if (job.flag == ExportFormat_Svg) err = export_svg(fig, path, options);
    else err = export_csv(fig, path);
    if (!err.empty()) return err;
    if (written) written->push_back(path);
  }
  return "";
}

}  // namespace tw::plot
