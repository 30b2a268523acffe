// `transformer-workbench export --scene FILE [--set key=value …] --out DIR [--format png,svg,csv] [--scale S]
// [--theme print|dark]`: every figure of the scene's open panels to files, with no window and no display.
// `export --lesson N[:STEP]|FILE --out DIR [--lang zh]`: a lesson's figures, step by step (or step STEP only):
// DIR/<N>-<lesson id>/<k>-<step id>/
// holds the figures of step k's scene (its open panels) and step.md (its title, text, what to look at, the question),
// as a lecturer's handout.
// Prints each file written on stdout; problems are one line each on stderr.
// Exit codes: 0 written, 1 some file could not be written or there was nothing to export, 2 bad arguments or
// a rejected scene.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/export_figures.h"
#include "app/cli/headless_progress.h"
#include "app/lesson_scene.h"
#include "app/scene.h"
#include "app/scene_presets.h"
#include "core/base/i18n.h"
#include "core/io/atomic_file.h"
#include "views/async_job.h"

namespace tw {

namespace {

struct ExportCommandOptions : SceneCommandOptions {
  std::string scale = "2";
  std::string theme;                         // empty: the scene's theme
  std::string lesson;                        // a shipped lesson's number or a lesson file: export every step's figures
  double max_seconds = kHeadlessMaxSeconds;  // --max-seconds: the work budget of each panel's computation
  bool slide = false;
  bool no_caption = false;
};

void add_export_options(CLI::App& sub, ExportCommandOptions& o) {
  add_scene_command_options(sub, o, "softmax",
                            tr("Directory to write <panel>-<figure>.<ext> into (created if missing)"));
  sub.add_option("--scale", o.scale, tr("PNG scale, 1 to 4 (default 2)"));
  sub.add_option("--theme", o.theme, tr("print or dark (default: the scene's theme)"));
  sub.add_option("--max-seconds", o.max_seconds,
                 subst(tr("Stop a panel's computation that would run longer than this many seconds, keeping what it "
                          "has (default {0})"),
                       {std::to_string(std::lround(kHeadlessMaxSeconds))}));
  sub.add_option("--lesson", o.lesson,
                 tr("A lesson's number (1 to 5) or a lesson file: every step's figures, one folder per step; add :3 for step 3 only"));
  sub.add_flag("--slide", o.slide, tr("16:9 slide size: 1280 \xC3\x97 720 logical pixels (PNG: times the scale)"));
  sub.add_flag("--no-caption", o.no_caption, tr("Leave out each figure's title and note"));
}

int export_fail(const std::string& message) {
  std::fprintf(stderr, "transformer-workbench export: %s\n", message.c_str());
  return 2;
}

// Zero-padded so folders sort in step order: 01-dot-and-cosine, 02-variance-grows, ...
std::string step_folder(size_t index, const std::string& id) {
  char number[32];
  std::snprintf(number, sizeof number, "%02zu-", index + 1);
  return number + id;
}

int export_lesson(const ExportCommandOptions& o, FigureExportRequest request) {
  AppState state = make_app_state();
  const LessonArgument argument = parse_lesson_argument(o.lesson);
  const LessonLoad loaded = find_lesson_step(state, argument);
  if (!loaded.ok) return export_fail("--lesson: " + loaded.error);
  const Lesson& lesson = loaded.lesson;
  const std::string lesson_dir =
      (std::filesystem::path(o.out) / (std::to_string(lesson.number) + "-" + lesson.id)).string();
  int errors = 0;
  size_t written = 0;
  HeadlessProgress progress("transformer-workbench export");
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    if (argument.step >= 0 && i != size_t(argument.step)) continue;  // "N:K" writes step K only
    const LessonStep& step = lesson.steps[i];
    const SceneLoad applied = apply_lesson_step(state, step);
    for (const std::string& w : applied.warnings)
      std::fprintf(stderr, "transformer-workbench export: step %zu (%s): warning: %s\n", i + 1, step.id.c_str(),
                   w.c_str());
    if (!applied.ok) {
      std::fprintf(stderr, "transformer-workbench export: step %zu (%s): %s\n", i + 1, step.id.c_str(),
                   applied.error.c_str());
      ++errors;
      continue;
    }
    FigureExportRequest r = request;
    r.out_dir = (std::filesystem::path(lesson_dir) / step_folder(i, step.id)).string();
    r.on_step = [&progress](const std::string& s) { progress.step(s); };
    const FigureExportResult result = export_open_panel_figures(state, r);
    // The step's words beside its figures, in the export language: a handout needs both.
    std::string words = "# " + step.title.here() + "\n\n" + step.text.here() + "\n";
    if (!step.look.here().empty()) words += "\n" + std::string(tr("Look at")) + ": " + step.look.here() + "\n";
    if (step.exercise) words += "\n" + std::string(tr("Exercise")) + ": " + step.exercise->question.here() + "\n";
    std::string step_error;
    const std::string words_path = (std::filesystem::path(r.out_dir) / "step.md").string();
    if (!result.written.empty() && write_file_atomic(words_path, words, &step_error))
      std::printf("%s\n", words_path.c_str());
    for (const std::string& path : result.written) std::printf("%s\n", path.c_str());
    written += result.written.size();
    for (const std::string& e : result.errors)
      std::fprintf(stderr, "transformer-workbench export: step %zu (%s): %s\n", i + 1, step.id.c_str(), e.c_str());
    errors += static_cast<int>(result.errors.size());
    // The figure the step points at must be one the step shows (panels that lay out by hand are checked here).
    if (!step.look_figure.empty() && result.errors.empty()) {
      const std::string stem = step.look_panel + "-" + step.look_figure;
      const bool shown = std::any_of(result.written.begin(), result.written.end(), [&](const std::string& path) {
        return std::filesystem::path(path).stem().string() == stem;
      });
      if (!shown) {
        std::fprintf(stderr, "transformer-workbench export: %s\n",
                     subst(tr("step {0} ({1}): look.figure: panel '{2}' shows no figure '{3}'"),
                           {std::to_string(i + 1), step.id, step.look_panel, step.look_figure})
                         .c_str());
        ++errors;
      }
    }
  }
  std::fflush(stdout);
  if (written == 0 && errors == 0)
    std::fprintf(stderr, "transformer-workbench export: lesson %s has no figures to write\n", o.lesson.c_str());
  return errors == 0 && written > 0 ? 0 : 1;
}

int run_export(const ExportCommandOptions& o) {
  // Arguments are checked here rather than by CLI11 validators so every problem is one line naming it.
  if (!o.lesson.empty() && !o.scene.empty()) return export_fail("--lesson and --scene: give one of them");
  if (o.scene.empty() && o.lesson.empty())
    return export_fail("--scene FILE is required (a scene file or a preset name such as softmax)");
  if (o.out.empty()) return export_fail("--out DIR is required (the directory to write figures into)");
  if (!std::isfinite(o.max_seconds) || o.max_seconds <= 0)
    return export_fail(tr("--max-seconds must be a positive number of seconds"));
  set_work_budget(o.max_seconds);
  FigureExportRequest request;
  request.out_dir = o.out;
  if (auto problem = parse_export_formats(o.formats, &request.formats)) return export_fail("--format: " + *problem);
  char* end = nullptr;
  const double scale = std::strtod(o.scale.c_str(), &end);
  if (o.scale.empty() || *end != '\0' || !std::isfinite(scale) || scale < kMinPngScale || scale > kMaxPngScale)
    return export_fail("--scale '" + o.scale + "' must be a number from 1 to 4");
  request.png_scale = static_cast<float>(scale);
  request.slide = o.slide;
  request.caption = !o.no_caption;
  if (!o.theme.empty() && o.theme != "print" && o.theme != "dark")
    return export_fail("--theme '" + o.theme + "' is not one of: print|dark");
  if (!o.lesson.empty()) {
    if (!o.sets.empty()) return export_fail("--set does not apply to --lesson (each step sets its own scene)");
    request.theme = o.theme == "dark" ? Theme::Dark : Theme::Print;  // handouts: print unless asked
    return export_lesson(o, request);
  }

  AppState state = make_app_state();
  std::vector<SceneOverride> overrides;
  for (const std::string& arg : o.sets) {
    SceneOverride set;
    if (auto problem = parse_set_argument(state, arg, &set)) return export_fail(*problem);
    overrides.push_back(std::move(set));
  }
  const SceneLoad loaded = load_scene_file(state, resolve_scene_argument(o.scene), overrides);
  for (const std::string& w : loaded.warnings)
    std::fprintf(stderr, "transformer-workbench export: warning: %s\n", w.c_str());
  if (!loaded.ok) return export_fail(loaded.error);
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
