// File writing shared by the exporters: atomic writes, CSV, and the `<prefix>-<id>.<ext>` naming.
#include "views/plot/export.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/base/i18n.h"
#include "core/io/atomic_file.h"

namespace tw::plot {

Figure without_caption(const Figure& fig) {
  Figure f = fig;
  f.title.clear();
  f.note.clear();
  return f;
}

Layout layout_for_export(const Figure& fig, const ExportOptions& options) {
  LayoutOptions lo;
  const Vec2 size = default_figure_size(fig);
  lo.width = options.slide ? kSlideWidth : options.width > 0 ? options.width : size.x;
  lo.height = options.slide ? kSlideHeight : options.height > 0 ? options.height : size.y;
  lo.theme = options.theme;
  lo.views = options.views;
  return layout_figure(fig, lo);
}

std::string write_file_atomic(const std::string& path, const std::string& bytes) {
  std::string error;
  return tw::write_file_atomic(path, bytes, &error) ? std::string() : error;
}

std::string export_csv(const Figure& fig, const std::string& path) {
  // Streamed row by row: a large heatmap (an (H·T, T_k) attention map) as a Table of variant cells and then as one
  // string cost about 40 times its data; here memory stays at one buffer of lines.
  tw::AtomicFileWriter out;
  std::string error;
  if (!out.open(path, &error)) return error;
  std::string lines;
  auto line = [&](std::span<const CellRef> cells) {
    append_csv_line(lines, cells);
    if (lines.size() >= (1u << 16)) {
      out.write(lines);
      lines.clear();
    }
  };
  for_each_table_row(fig, line, line);
  out.write(lines);
  return out.commit(&error) ? std::string() : error;
}

std::string export_svg(const Figure& fig, const std::string& path, const ExportOptions& options) {
  return write_file_atomic(path, render_svg(fig, options));
}

std::string export_png(const Figure& fig, const std::string& path, const ExportOptions& options) {
  const RenderedPng png = render_png(fig, options);
  if (!png.error.empty()) return subst(tr("cannot export {0}: {1}"), {path, png.error});
  return write_file_atomic(path, png.png);
}

std::string export_figure(const Figure& fig, const std::string& dir, const std::string& prefix, ExportFormats formats,
                          const ExportOptions& options, std::vector<std::string>* written) {
  namespace fs = std::filesystem;
  if (!valid_figure_id(fig.id))
    return subst(tr("figure id '{0}' cannot be used in a file name (letters, digits, '-', '_' and '.' only)"),
                 {fig.id});
  std::error_code ec;
  if (!dir.empty()) {
    fs::create_directories(dir, ec);
    if (ec) return subst(tr("cannot create directory {0}: {1}"), {dir, ec.message()});
  }
  const std::string stem =
      (fs::path(dir.empty() ? "." : dir) / (prefix.empty() ? fig.id : prefix + "-" + fig.id)).string();
  struct Job {
    ExportFormats flag;
    const char* ext;
  };
  for (const Job& job : {Job{ExportFormat_Png, ".png"}, Job{ExportFormat_Svg, ".svg"}, Job{ExportFormat_Csv, ".csv"}}) {
    if (!(formats & job.flag)) continue;
    const std::string path = stem + job.ext;
    std::string err;
    if (job.flag == ExportFormat_Png)
      err = export_png(fig, path, options);
    else if (job.flag == ExportFormat_Svg)
      err = export_svg(fig, path, options);
    else
      err = export_csv(fig, path);
    if (!err.empty()) return err;
    if (written) written->push_back(path);
  }
  return "";
}

}  // namespace tw::plot
