#pragma once
// "Export every figure of the open panels to a directory": the one implementation behind File > Export
// figures… and `transformer-workbench export`. No window, no ImGui, no GL: it runs with DISPLAY unset.
//
// For each open panel, in the app's panel order: update(); wait_idle(); figures(); then the plot layer writes
// <dir>/<panel id>-<figure id>.<png|svg|csv>. Same state and request → byte-identical files.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/app_state.h"
#include "views/plot/export.h"

namespace tw {

struct FigureExportRequest {
  std::string out_dir;                                   // created if missing
  plot::ExportFormats formats = plot::ExportFormat_All;  // any of png, svg, csv
  bool slide = false;                                    // 16:9 slide size (plot::kSlideWidth × kSlideHeight)
  bool caption = true;                                   // title and note above the plot
  float png_scale = 2.0f;                                // PNG pixels per logical pixel, kMinPngScale..kMaxPngScale
  Theme theme = Theme::Print;
  // The GUI's rules (File > Export): descriptive names `<panel>-<id>-<subject>` (views/plot/export_naming.h) and
  // what to do when a file exists. Headless `export` keeps `<panel>-<id>` names and overwrites.
  bool descriptive_names = false;
  enum class Existing { Overwrite, Ask, KeepBoth } existing = Existing::Overwrite;
  // Called before each step ("softmax: computing", "softmax: writing scores"); headless export prints it to
  // stderr when the export takes more than a second. May be empty.
  std::function<void(const std::string&)> on_step = {};
};

constexpr float kMinPngScale = 1.0f;
constexpr float kMaxPngScale = 4.0f;

struct FigureExportResult {
  std::vector<std::string> written;   // paths, in the order written
  std::vector<std::string> errors;    // one line each; the other figures are still written
  std::vector<std::string> removed;   // temporary files of an interrupted earlier export, removed from out_dir
  std::vector<std::string> existing;  // with Existing::Ask: files that exist (then nothing was written)
  int panels = 0;                     // open panels visited
  int figures = 0;                    // figures found on them
  bool ok() const { return errors.empty() && !written.empty(); }
  std::string summary() const;  // one line for the status bar
};

FigureExportResult export_open_panel_figures(AppState& state, const FigureExportRequest& request);

// What is wrong with a GUI export folder ("" when usable): it must be an absolute path, and an existing path
// must be a folder.
std::string export_dir_problem(const std::string& dir);
// The GUI's export folder when none was chosen: figures/ in user_work_dir() (under $HOME, never the directory the
// app was started in).
std::string default_export_dir();

// "png,svg" → formats. Returns an error line naming the bad entry, or nothing.
std::optional<std::string> parse_export_formats(std::string_view text, plot::ExportFormats* out);

}  // namespace tw
