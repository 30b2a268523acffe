#pragma once
// File exports of a figure: SVG (true vector), PNG (software rasteriser, no OpenGL, no display) and CSV.
// Every function returns an empty string on success or a one-line message for the user; none throws.
// Files are written atomically: a temporary file in the same directory, then rename.
//
//   std::string err = plot::export_png(fig, "out/softmax-probs.png", {.theme = Theme::Print, .scale = 2});
//   if (!err.empty()) show(err);
//
// Output is deterministic: the same figure and options give byte-identical files.

#include <string>
#include <vector>

#include "views/plot/figure.h"
#include "views/plot/layout.h"

namespace tw::plot {

struct ExportOptions {
  Theme theme = Theme::Print;
  float scale = 2;                    // PNG only: pixels per logical pixel, 1–4
  float width = 0, height = 0;        // logical size; 0 = default_figure_size(fig)
  std::vector<ViewRange> views = {};  // zoom/pan state to reproduce (GUI exports); empty = the figure's ranges
  bool slide = false;                 // 16:9 slide: kSlideWidth × kSlideHeight logical, whatever width/height say
  bool caption = true;                // false: no title and no note (the slide or the document has its own)
};

// [SECTION] in-memory renderers (tests and callers that do not want files)
// The layout both renderers draw: the options' size (or the figure's default size), theme and zoom.
inline constexpr float kSlideWidth = 1280, kSlideHeight = 720;
// The figure as exported without its caption (title and note), when options.caption is false.
Figure without_caption(const Figure& fig);
Layout layout_for_export(const Figure& fig, const ExportOptions& options);
std::string render_svg(const Figure& fig, const ExportOptions& options);
struct RenderedPng {
  std::string error;          // empty on success
  int width = 0, height = 0;  // pixels
  std::vector<uint8_t> rgba;  // width · height · 4
  std::string png;            // encoded PNG bytes
};
RenderedPng render_png(const Figure& fig, const ExportOptions& options);

// PNG bytes of an RGBA8 image (deterministic: fixed compression settings).
std::string encode_png(int width, int height, const std::vector<uint8_t>& rgba);

// [SECTION] file exports
std::string export_svg(const Figure& fig, const std::string& path, const ExportOptions& options);
std::string export_png(const Figure& fig, const std::string& path, const ExportOptions& options);
std::string export_csv(const Figure& fig, const std::string& path);

enum ExportFormat_ {
  ExportFormat_None = 0,
  ExportFormat_Png = 1 << 0,  // <dir>/<prefix>-<id>.png
  ExportFormat_Svg = 1 << 1,  // <dir>/<prefix>-<id>.svg
  ExportFormat_Csv = 1 << 2,  // <dir>/<prefix>-<id>.csv
  ExportFormat_All = ExportFormat_Png | ExportFormat_Svg | ExportFormat_Csv,
};
using ExportFormats = int;

// Writes `<dir>/<prefix>-<fig.id>.<ext>` for each requested format (creating `dir` if needed) and appends
// every path written to `written`. Stops at the first error and returns it.
std::string export_figure(const Figure& fig, const std::string& dir, const std::string& prefix, ExportFormats formats,
                          const ExportOptions& options, std::vector<std::string>* written);

// Writes `bytes` to `path` atomically. Returns "" or a message naming the path and the reason.
std::string write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace tw::plot
