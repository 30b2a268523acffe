// Transformer Workbench: init → loop → shutdown, in that order and nothing else.
// Subcommands (export, dump, scene-keys, ...) run without a window; see app/cli/commands.h.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <thread>

#include "app/app_state.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/export_figures.h"
#include "app/file_menu.h"
#include "app/fonts.h"
#include "app/gui_report.h"
#include "app/language.h"
#include "app/lesson_bar.h"
#include "app/perf_report.h"
#include "app/render/render_damage.h"
#include "app/render/solid_fills.h"
#include "app/render/texture_gl.h"
#include "app/scene.h"
#include "app/session_guard.h"
#include "app/slide_mode.h"
#include "app/version_info.h"
#include "app/window.h"
#include "core/base/i18n.h"
#include "core/matmul_threads.h"
#include "views/async_job.h"

namespace {

// What escapes a subcommand or the GUI (bad_alloc included) ends the process with one line and exit code 1,
// never with std::terminate's SIGABRT and a core dump.
template <class Body>
int exit_with_one_line_on_exception(const std::string& who, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: out of memory (the input or the settings need more memory than this machine gave)\n",
                 who.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", who.c_str(), e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: internal error (unknown exception)\n", who.c_str());
  }
  return 1;
}

int run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) {
  return exit_with_one_line_on_exception("transformer-workbench", [&] { return run(argc, argv); });
}

namespace {

// [SECTION] command line
// Reads the window's options into *gui; a subcommand (export, dump, ...) runs here and its exit code is returned, as
// is --help's, --version's or a bad argument's. nullopt: open the window.
std::optional<int> parse_command_line(int argc, char** argv, tw::GuiOptions* gui, bool* fresh, bool* theme_given) {
  CLI::App cli{tw::tr("Transformer Workbench: explore the math inside modern LLMs")};
  // CLI11's own words in --help, in the interface language too (subcommands inherit these when they are added).
  cli.option_defaults()->group(tw::tr("Options"));
  cli.set_help_flag("-h,--help", tw::tr("Print this help message and exit"));
  for (const char* label : {N_("Usage"), N_("Positionals"), N_("OPTIONS"), N_("SUBCOMMAND"), N_("REQUIRED")})
    cli.get_formatter()->label(label, tw::tr(label));
  cli.set_version_flag(
      "--version", [] { return tw::version_report(); }, tw::tr("Display program version information and exit"));
  cli.add_option("--frames", gui->frames, tw::tr("Run this many frames, then exit 0 (0: until the window closes)"))
      ->check(CLI::Range(0, 1000000000));
  cli.add_option("--screenshot", gui->screenshot, tw::tr("Write the last rendered frame to this PNG file"));
  cli.add_option("--open", gui->open, tw::tr("Open a panel by id (repeatable)"));
  cli.add_flag("--all-panels", gui->all_panels, tw::tr("Open every panel"));
  cli.add_option("--theme", gui->theme, tw::tr("Start with this theme"))->check(CLI::IsMember({"dark", "print"}));
  cli.add_option("--perf-report", gui->perf_report, tw::tr("Write frame-time statistics to this JSON file"));
  cli.add_option("--perf-idle-seconds", gui->perf_idle_seconds,
                 tw::tr("With --perf-report and --frames: seconds of idle (no input) measured after the frames"))
      ->check(CLI::Range(0.0, 600.0));
  cli.add_option("--gui-report", gui->gui_report,
                 tw::tr("After every frame, write what is on screen to this JSON file (tests)"));
  cli.add_option("--width", gui->width, tw::tr("Initial window width in pixels"))->check(CLI::Range(320, 8192));
  cli.add_option("--height", gui->height, tw::tr("Initial window height in pixels"))->check(CLI::Range(240, 8192));
  cli.add_option("--model", gui->model,
                 tw::tr("Open a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)"))
      ->check(CLI::ExistingDirectory);
  cli.add_option("--zoom", gui->zoom,
                 tw::tr("Presentation zoom of text, controls and figures (0.75 to 3; Ctrl+= / Ctrl+-)"))
      ->check(CLI::Range(tw::kZoomMin, tw::kZoomMax));
  cli.add_option("scene", gui->scene,
                 tw::tr("A scene file to open, as File > Open scene does (*.twscene.json or *.json)"))
      ->check(CLI::ExistingFile);
  cli.add_option("--lesson", gui->lesson,
                 tw::tr("Open a lesson: its number (1 to 5) or a lesson file, optionally :STEP (e.g. 1:3)"));
  cli.add_flag("--fresh", *fresh, tw::tr("Start from defaults instead of restoring the last session"));
  std::string lang_value;
  tw::add_language_option(cli, &lang_value);
  std::vector<std::pair<CLI::App*, tw::CommandAction>> actions;
  for (const tw::Command& command : tw::registered_commands()) {
    CLI::App* sub = cli.add_subcommand(command.name, tw::tr(command.description.c_str()));
    sub->group(tw::tr("Subcommands"));
    sub->set_help_flag("-h,--help", tw::tr("Print this help message and exit"));  // in the translated group
    tw::add_language_option(*sub, &lang_value);
    actions.emplace_back(sub, command.setup(*sub));
  }
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every bad argument exits 2, as documented (CLI11's own codes are 101..120).
    return cli.exit(e) == 0 ? 0 : 2;
  }
  for (auto& [sub, action] : actions)
    if (sub->parsed()) return exit_with_one_line_on_exception("transformer-workbench " + sub->get_name(), action);
  *theme_given = cli.count("--theme") > 0;
  return std::nullopt;
}

// [SECTION] start: the state the window opens on, then the window, its fonts and theme
// The last session, then what the command line asks for on top of it; an exit code when an option is unusable.
std::optional<int> prepare_state(tw::AppState& state, const tw::GuiOptions& gui, bool fresh, bool theme_given,
                                 std::optional<tw::Language> lang_argument) {
  tw::restore_session_at_startup(state, fresh);  // first, so command-line options override the last session
  if (lang_argument) tw::set_language(*lang_argument);
  if (!std::filesystem::path(state.exports.dir).is_absolute()) state.exports.dir = tw::default_export_dir();
  if (!gui.scene.empty() && !tw::load_scene_into_state(state, gui.scene))
    std::fprintf(stderr, "transformer-workbench: %s\n", state.status.c_str());  // the window opens with the session
  for (const std::string& id : gui.open) {
    if (!state.open_panel(id)) {
      std::fprintf(stderr, "transformer-workbench: no panel with id '%s' (see the View menu or --help)\n", id.c_str());
      return 2;
    }
  }
  if (gui.all_panels)
    for (auto& slot : state.panels) slot.open = true;
  // A first run (or a session with nothing open) starts on the lecture presets rather than an empty desk.
  state.show_start_page = std::none_of(state.panels.begin(), state.panels.end(), [](const auto& s) { return s.open; });
  if (!gui.lesson.empty()) {
    if (const std::string problem = tw::open_lesson_argument(state, gui.lesson); !problem.empty()) {
      std::fprintf(stderr, "transformer-workbench: %s\n", problem.c_str());
      return 2;
    }
  }
  state.model_dir = gui.model;
  if (!gui.model.empty())
    tw::open_model_folder(state, gui.model, /*from_command_line=*/true);  // the forward stepper loads it with progress
  if (gui.zoom > 0) state.zoom = gui.zoom;
  if (theme_given) state.theme = gui.theme == "print" ? tw::Theme::Print : tw::Theme::Dark;
  // Long recomputes (LoRA training, the softmax sweep, the Small model) yield the cores to the UI and the renderer.
  for (auto& slot : state.panels) slot.panel->set_background_priority(true);
  return std::nullopt;
}

// The window, hidden until its first frame, with ImGui, fonts and theme; an exit code when there is no display.
std::optional<int> open_window(tw::Window& window, tw::AppState& state, const tw::GuiOptions& gui,
                               tw::PerfRecorder& perf) {
  if (!tw::display_available()) {
    std::fprintf(stderr,
                 "transformer-workbench: no display (DISPLAY and WAYLAND_DISPLAY are unset); "
                 "for headless figures use the 'export' subcommand\n");
    return 3;
  }
  std::string error;
  if (!window.open_display(&error)) {
    std::fprintf(stderr, "transformer-workbench: %s; for headless figures use the 'export' subcommand\n",
                 error.c_str());
    return 3;
  }
  perf.mark("display");
  // Fonts and the open panels' first results are prepared on a second thread while the window and its GL context
  // are created, the slowest step of start-up (app_state.h: StartupWork).
  const float expected_scale = window.display_content_scale();
  tw::StartupWork startup;
  const float zoom_at_start = state.zoom;  // the fonts are built at the zoomed size from the first frame
  std::thread startup_thread(
      [&] { startup = tw::prepare_startup(state, TW_FONT_DIR, 15.0f * expected_scale * zoom_at_start); });
  // Hidden until its first frame is drawn (shown after the first swap).
  const bool created = window.create({.width = gui.width, .height = gui.height, .visible = false}, &error);
  perf.mark("window_and_gl_context");
  startup_thread.join();
  perf.mark("wait_for_startup_thread");
  perf.record_background("font_atlas", startup.fonts_ms);
  perf.record_background("open_panels_first_update", startup.panels_ms);
  if (!created) {
    std::fprintf(stderr, "transformer-workbench: %s; for headless figures use the 'export' subcommand\n",
                 error.c_str());
    window.shutdown();
    return 3;
  }
  state.dpi_scale = window.content_scale();
  state.font_warning = startup.font_warning;
  if (state.dpi_scale != expected_scale)  // the window opened on a monitor with another scale
    startup.fonts = tw::build_font_atlas(TW_FONT_DIR, 15.0f * state.ui_scale(), &state.font_warning);
  window.init_imgui(std::move(startup.fonts));
  if (!state.font_warning.empty()) std::fprintf(stderr, "transformer-workbench: %s\n", state.font_warning.c_str());
  tw::apply_theme(state.theme, state.ui_scale());
  tw::install_gl_texture_backend();  // heatmaps draw as GL textures
  tw::install_slide_menu_item();     // every figure's right-click menu offers "Show as slide"
  perf.set_renderer(window.renderer());
  perf.mark("imgui_and_theme");
  return std::nullopt;
}

// [SECTION] loop
// One frame: input to shortcuts, menus and windows, then render, the --screenshot of the last --frames frame, show
// (the first frame) and swap. `frame` counts from 1. False when the screenshot could not be written.
bool draw_frame(tw::Window& window, tw::AppState& state, const tw::GuiOptions& gui, tw::PerfRecorder& perf, int frame) {
  std::string error;
  perf.begin_ui();
  window.begin_frame();
  tw::handle_shortcuts(state);
  tw::draw_main_menu(state);
  tw::draw_windows(state);
  perf.end_ui();
  if (!gui.gui_report.empty() && !tw::write_gui_report(state, gui.gui_report, &error))
    std::fprintf(stderr, "transformer-workbench: %s\n", error.c_str());
  window.end_frame();
  perf.frame_rendered();
  perf.frame_coverage(tw::last_solid_fill_stats().all_pixels, tw::last_solid_fill_stats().pixels);
  const tw::DamageStats& damage = window.damage_stats();
  perf.frame_damage(damage.damaged_pixels, damage.window_moving, damage.window_copied);
  bool ok = true;
  if (gui.frames > 0 && frame == gui.frames && !gui.screenshot.empty() &&
      !window.save_screenshot(gui.screenshot, &error)) {
    std::fprintf(stderr, "transformer-workbench: %s\n", error.c_str());
    ok = false;
  }
  if (frame == 1) window.show();  // created hidden: it appears with its first frame drawn
  window.swap();
  perf.frame_presented();
  return ok;
}

// Frames until the window closes, --frames runs out, the session guard stops it, or the --perf-report idle
// measurement ends; then the report. The exit code: 1 when a screenshot or the report could not be written.
int run_loop(tw::Window& window, tw::AppState& state, const tw::GuiOptions& gui, tw::PerfRecorder& perf) {
  // A frame is drawn only when it may differ from the last one: after input (and kSettleFrames more, in which ImGui
  // settles hover and layout), after a worker's result (Window::wake through notify_result_ready), while an open
  // panel is busy (a job's progress bar, training playing; paced at kBusyFrameSeconds), when a timer asked for by
  // something visible runs out (request_frame_after: a message that expires) and for each of --frames.
  // Otherwise the loop blocks in glfwWaitEvents with no time-out, so an idle window costs nothing; a wake that
  // brings nothing new (a deadline) draws nothing.
  constexpr int kSettleFrames = 3;
  constexpr int kSettleFramesAfterResult = 2;  // a result may change a window's size: one frame to lay it out again
  constexpr double kBusyFrameSeconds = 1.0 / 60.0;
  tw::result_ready_hook().store(&tw::Window::wake);
  tw::Theme applied_theme = state.theme;  // as open_window applied them
  float applied_zoom = state.zoom;
  std::string error;
  int frame = 0, settle = kSettleFrames;
  int exit_code = 0;
  double last_frame_start = -1;
  tw::IdleDeadline idle_deadline;  // --perf-report: the idle measurement after the --frames run
  // The idle measurement starts once the panels are at rest (their start-up work done and shown), at most this long
  // after the last --frames frame: frames drawn only where something changed finish long before that work.
  constexpr double kMaxWaitForRestSeconds = 30.0;
  double idle_pending_since = -1;
  auto any_panel_busy = [&] {
    for (const auto& slot : state.panels)
      if (slot.open && slot.panel->busy()) return true;
    return false;
  };
  tw::SessionGuard session_guard(&tw::Window::wake);  // SIGTERM/SIGINT/SIGHUP save and exit; a save every 30 s
  while (!window.should_close() && !state.quit_requested) {
    if (session_guard.tick(state)) break;
    const bool scripted = gui.frames > 0 && frame < gui.frames;  // --frames: every frame is drawn
    const bool busy = any_panel_busy();
    if (idle_pending_since >= 0 &&
        ((!busy && settle == 0) || perf.seconds_since_start() - idle_pending_since > kMaxWaitForRestSeconds)) {
      idle_pending_since = -1;
      perf.begin_idle();
      idle_deadline.start(gui.perf_idle_seconds, &tw::Window::interrupt);
    }
    double timeout = -1;  // nothing moves: block until an event
    if (settle > 0 || scripted)
      timeout = 0;
    else if (busy)
      timeout = std::max(0.0, last_frame_start + kBusyFrameSeconds - perf.seconds_since_start());
    // About to wait: compile what a window drag copies with, once (not in a --frames run: nobody drags there, and
    // its idle figure would count the compile).
    if (timeout < 0 && gui.frames == 0) window.prepare_window_copies();
    const auto frame_at = tw::requested_frame_time();  // a timer something visible asked for (request_frame_after)
    const bool timer = frame_at != std::chrono::steady_clock::time_point::max();
    if (timer) {
      const double until = std::chrono::duration<double>(frame_at - std::chrono::steady_clock::now()).count();
      timeout = timeout < 0 ? std::max(0.0, until) : std::min(timeout, std::max(0.0, until));
    }
    const tw::Window::Events events = window.handle_events(timeout);
    if (timer && std::chrono::steady_clock::now() >= frame_at) {
      tw::requested_frame_time() = std::chrono::steady_clock::time_point::max();
      settle = std::max(settle, 1);
    }
    if (idle_deadline.passed()) break;
    if (events.input) settle = kSettleFrames;
    if (events.woken) settle = std::max(settle, kSettleFramesAfterResult);
    // Between frames: work that must not happen inside one: the font texture is replaced before the next frame uses
    // it (new zoom, or new characters typed, pasted, loaded or translated: app/fonts.h).
    if (state.zoom != applied_zoom || tw::font_atlas_out_of_date()) {
      const std::string warning = window.rebuild_fonts(TW_FONT_DIR, 15.0f * state.ui_scale());
      if (!warning.empty()) state.status = warning;
      applied_zoom = state.zoom;
      applied_theme = state.theme;
      tw::apply_theme(applied_theme, state.ui_scale());
      settle = kSettleFrames;  // lay the windows out again at the new size
    }
    if (state.theme != applied_theme) {  // a scene or Ctrl+T: chrome and figures change in the same frame
      tw::apply_theme(applied_theme = state.theme, state.ui_scale());
      settle = std::max(settle, kSettleFrames);
    }
    if (settle == 0 && !scripted && !busy) continue;  // woken for nothing new: no frame
    settle = std::max(settle - 1, 0);
    last_frame_start = perf.seconds_since_start();
    ++frame;
    if (!draw_frame(window, state, gui, perf, frame)) exit_code = 1;
    const bool last_scripted = gui.frames > 0 && frame == gui.frames;
    if (last_scripted) {
      if (gui.perf_report.empty()) break;
      // Idle CPU of this same loop: every panel left as it is, no input, for gui.perf_idle_seconds, from when the
      // panels are at rest.
      if (gui.perf_idle_seconds > 0) {
        idle_pending_since = perf.seconds_since_start();
      } else {
        perf.begin_idle();
        idle_deadline.start(0, &tw::Window::interrupt);
      }
    }
  }
  tw::result_ready_hook().store(nullptr);  // workers still finishing must not post events to a closed display
  if (!gui.perf_report.empty()) {
    perf.end_idle();
    perf.measure_recompute(state);
    if (!perf.write(gui.perf_report, &error)) {
      std::fprintf(stderr, "transformer-workbench: %s\n", error.c_str());
      exit_code = 1;
    }
  }
  return exit_code;
}

int run(int argc, char** argv) {
  tw::PerfRecorder perf(tw::PerfClock::now());  // time to first frame counts from here
  // One product thread: the UI thread and the panels' workers already share the machine's cores, and numbers then
  // do not depend on how many cores a machine has.
  tw::set_matmul_threads(1);
  const auto lang_argument = tw::apply_language_argument(argc, argv);  // before any help text is built
  tw::GuiOptions gui;
  bool fresh = false, theme_given = false;
  if (const std::optional<int> done = parse_command_line(argc, argv, &gui, &fresh, &theme_given)) return *done;

  tw::AppState state = tw::make_app_state();
  if (const std::optional<int> bad = prepare_state(state, gui, fresh, theme_given, lang_argument)) return *bad;
  perf.mark("command_line_and_panels");
  tw::Window window;
  if (const std::optional<int> no_window = open_window(window, state, gui, perf)) return *no_window;

  const int exit_code = run_loop(window, state, gui, perf);

  // [SECTION] stop
  tw::save_session_at_exit(state);
  tw::exit_anyway_after(10.0, exit_code);  // the panels' workers are joined below; one stuck must not hang the exit
  window.shutdown();
  return exit_code;
}

}  // namespace
