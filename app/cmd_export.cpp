// `transformer-workbench export --scene FILE [--set key=value …] --out DIR [--format png,svg,csv] [--scale S]
// [--theme print|dark]`: every figure of the scene's open panels to files, with no window and no display.
// Prints each file written on stdout; problems are one line each on stderr.
// Exit codes: 0 written, 1 some file could not be written or there was nothing to export, 2 bad arguments or
// a rejected scene.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/export_figures.h"
#include "app/headless_progress.h"
#include "app/scene.h"
#include "app/scene_presets.h"
#include "core/text/i18n.h"

namespace tw {

namespace {

struct ExportCommandOptions : SceneCommandOptions {
  std::string scale = "2";
  std::string theme;  // empty: the scene's theme
  bool slide = false;
  bool no_caption = false;
};

void add_export_options(CLI::App& sub, ExportCommandOptions& o) {
  add_scene_command_options(sub, o, "softmax",
                            tr("Directory to write <panel>-<figure>.<ext> into (created if missing)"));
  sub.add_option("--scale", o.scale, tr("PNG scale, 1 to 4 (default 2)"));
  sub.add_option("--theme", o.theme, tr("print or dark (default: the scene's theme)"));
  sub.add_flag("--slide", o.slide, tr("16:9 slide size: 1280 x 720 logical pixels (PNG: times the scale)"));
  sub.add_flag("--no-caption", o.no_caption, tr("Leave out each figure's title and note"));
}

int fail(const std::string& message) {
  std::fprintf(stderr, "transformer-workbench export: %s\n", message.c_str());
  return 2;
}

int run_export(const ExportCommandOptions& o) {
  // Arguments are checked here rather than by CLI11 validators so every problem is one line naming it.
  if (o.scene.empty()) return fail("--scene FILE is required (a scene file or a preset name such as softmax)");
  if (o.out.empty()) return fail("--out DIR is required (the directory to write figures into)");
  FigureExportRequest request;
  request.out_dir = o.out;
  if (auto problem = parse_export_formats(o.formats, &request.formats)) return fail("--format: " + *problem);
  char* end = nullptr;
  const double scale = std::strtod(o.scale.c_str(), &end);
  if (o.scale.empty() || *end != '\0' || !std::isfinite(scale) || scale < kMinPngScale || scale > kMaxPngScale)
    return fail("--scale '" + o.scale + "' must be a number from 1 to 4");
  request.png_scale = static_cast<float>(scale);
  request.slide = o.slide;
  request.caption = !o.no_caption;
  if (!o.theme.empty() && o.theme != "print" && o.theme != "dark")
    return fail("--theme '" + o.theme + "' is not one of: print|dark");

  AppState state = make_app_state();
  std::vector<SceneOverride> overrides;
  for (const std::string& arg : o.sets) {
    SceneOverride set;
    if (auto problem = parse_set_argument(state, arg, &set)) return fail(*problem);
    overrides.push_back(std::move(set));
  }
  const SceneLoad loaded = load_scene_file(state, resolve_scene_argument(o.scene), overrides);
  for (const std::string& w : loaded.warnings)
    std::fprintf(stderr, "transformer-workbench export: warning: %s\n", w.c_str());
  if (!loaded.ok) return fail(loaded.error);
  request.theme = o.theme.empty() ? state.theme : (o.theme == "print" ? Theme::Print : Theme::Dark);

  FigureExportResult result;
  {
    HeadlessProgress progress("transformer-workbench export");
    request.on_step = [&progress](const std::string& step) { progress.step(step); };
    result = export_open_panel_figures(state, request);
  }
  if (!result.removed.empty())
    std::fprintf(stderr, "transformer-workbench export: removed %zu temporary file%s left by an interrupted export\n",
                 result.removed.size(), result.removed.size() == 1 ? "" : "s");
  for (const std::string& path : result.written) std::printf("%s\n", path.c_str());
  std::fflush(stdout);
  for (const std::string& e : result.errors) std::fprintf(stderr, "transformer-workbench export: %s\n", e.c_str());
  if (result.written.empty() && result.errors.empty())
    std::fprintf(stderr, "transformer-workbench export: %s\n", result.summary().c_str());
  return result.ok() ? 0 : 1;
}

}  // namespace

TW_REGISTER_COMMAND(options_command<ExportCommandOptions>(
    "export", N_("Write every figure of a scene's open panels as PNG/SVG/CSV, without a window"), add_export_options,
    run_export));

}  // namespace tw
