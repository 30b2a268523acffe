#include "app/export_figures.h"

#include "views/async_job.h"

#include <cmath>
#include <exception>
#include <filesystem>
#include <set>

#include "core/base/i18n.h"
#include "core/io/atomic_file.h"
#include "core/io/user_dirs.h"
#include "views/plot/export_naming.h"

namespace tw {

std::string FigureExportResult::summary() const {
  if (panels == 0)
    return tr("Nothing exported: no panel is open (open one from the View menu or the scene's \"open\" list)");
  if (figures == 0) return tr("Nothing exported: the open panels have no figures yet");
  std::string s =
      subst(trn("Exported {0} file", "Exported {0} files", written.size()), {std::to_string(written.size())}) +
      subst(trn(" from {0} figure", " from {0} figures", figures), {std::to_string(figures)});
  if (!errors.empty()) s += subst(tr("; {0} failed: {1}"), {std::to_string(errors.size()), errors.front()});

  return s;
}

FigureExportResult export_open_panel_figures(AppState& state, const FigureExportRequest& request) {
  FigureExportResult result;
  if (request.out_dir.empty()) {
    result.errors.push_back(tr("no output directory given"));
    return result;
  }
  if (!(request.formats & plot::ExportFormat_All)) {
    result.errors.push_back(tr("no export format chosen (png, svg or csv)"));
    return result;
  }
  if (!std::isfinite(request.png_scale) || request.png_scale < kMinPngScale || request.png_scale > kMaxPngScale) {
    result.errors.push_back(tr("PNG scale must be between 1 and 4"));
    return result;
  }
  plot::ExportOptions options;
  options.theme = request.theme;
  options.scale = request.png_scale;
  options.slide = request.slide;
  options.caption = request.caption;

  // A killed export leaves hidden temporaries (core/io/atomic_file.h); the next export into the folder removes them.
  remove_stale_temp_files(request.out_dir, &result.removed);
  auto step = [&](const std::string& text) {
    if (request.on_step) request.on_step(text);
  };

  // With the GUI's Ask rule, every figure is computed and named first; if any file exists nothing is written and
  // the caller asks the user (overwrite / keep both / cancel), then calls again with the answer.
  struct Job {
    std::string panel;
    plot::Figure figure;
    std::string stem;
  };
  std::vector<Job> jobs;
  for (PanelSlot& slot : state.panels) {
    if (!slot.open) continue;
    ++result.panels;
    const std::string& id = slot.info.id;
    try {
      step(id + ": computing");
      (void)take_work_budget_message();
      slot.panel->update();
      slot.panel->wait_idle();
      // A headless budget that stopped the computation says so (its figures show what was done); otherwise the
      // panel's own reason (invalid input, a checkpoint that failed to load) rather than a bare "nothing".
      if (const std::string budget = take_work_budget_message(); !budget.empty())
        result.errors.push_back(id + ": " + budget);
      else if (const std::string problem = slot.panel->problem(); !problem.empty())
        result.errors.push_back(id + ": " + problem);
      std::vector<plot::Figure> figures = slot.panel->figures();
      if (figures.empty() && slot.panel->problem().empty())
        result.errors.push_back(id + ": " + tr("the panel has no figures to export"));
      std::set<std::string> seen;  // two figures with one id would silently overwrite each other's files
      for (plot::Figure& fig : figures) {
        ++result.figures;
        if (!seen.insert(fig.id).second) {
          result.errors.push_back(id + ": two figures share the id '" + fig.id + "'; the second was not written");
          continue;
        }
        if (!plot::valid_figure_id(fig.id)) {
          result.errors.push_back(id + "-" + fig.id + ": figure id '" + fig.id +
                                  "' cannot be used in a file name (letters, digits, '-', '_' and '.' only)");
          continue;
        }
        std::string stem = request.descriptive_names ? plot::figure_file_stem(id, fig) : id + "-" + fig.id;
        jobs.push_back({id, std::move(fig), std::move(stem)});
      }
    } catch (const std::exception& e) {
      // A panel's computation failing (e.g. out of memory) costs its figures, not the whole export.
      result.errors.push_back(id + ": " + e.what());
    }
  }
  if (request.existing == FigureExportRequest::Existing::Ask) {
    for (const Job& job : jobs)
      for (std::string& path : plot::existing_export_files(request.out_dir, job.stem, request.formats))
        result.existing.push_back(std::move(path));
    if (!result.existing.empty()) return result;
  }
  for (const Job& job : jobs) {
    step(job.panel + ": writing " + job.figure.id);
    try {
      const std::string stem = request.existing == FigureExportRequest::Existing::KeepBoth
                                   ? plot::free_export_stem(request.out_dir, job.stem, request.formats)
                                   : job.stem;
      const std::string err =
          plot::export_figure_as(job.figure, request.out_dir, stem, request.formats, options, &result.written);
      if (!err.empty()) result.errors.push_back(job.panel + "-" + job.figure.id + ": " + err);
    } catch (const std::exception& e) {
      result.errors.push_back(job.panel + "-" + job.figure.id + ": " + e.what());
    }
  }
  return result;
}

std::string export_dir_problem(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return "Choose a folder to export into";
  if (!fs::path(dir).is_absolute()) return "Use an absolute folder (starting with /), e.g. " + default_export_dir();
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) return dir + " exists and is not a folder";
  return "";
}

std::string default_export_dir() { return (std::filesystem::path(user_work_dir()) / "figures").string(); }

std::optional<std::string> parse_export_formats(std::string_view text, plot::ExportFormats* out) {
  plot::ExportFormats formats = plot::ExportFormat_None;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view name = text.substr(start, comma - start);
    if (name == "png")
      formats |= plot::ExportFormat_Png;
    else if (name == "svg")
      formats |= plot::ExportFormat_Svg;
    else if (name == "csv")
      formats |= plot::ExportFormat_Csv;
    else
      return subst(tr("unknown format '{0}' (use png, svg, csv, comma-separated)"), {name});
    start = comma + 1;
  }
  *out = formats;
  return std::nullopt;
}

}  // namespace tw
