#pragma once
// --perf-report: frame-time statistics of a GUI run, each panel's recompute latency after a control change,
// time to first frame with its start-up breakdown and the idle CPU of the main loop, written as JSON. Everything is
// measured on the loop the user runs (app/main.cpp). Goals (measured, not enforced; llvmpipe, 1920×1080): frame wall
// p99 ≤ 16 ms with all panels open, ≤ 8 ms with one; every panel's recompute ≤ 16 ms at default settings; first
// frame ≤ 250 ms; idle ≤ 1% of a core.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "app/app_state.h"

namespace tw {

using PerfClock = std::chrono::steady_clock;

struct FrameStats {
  double p50_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0, mean_ms = 0;
  size_t frames = 0;
};

// Percentiles by the nearest-rank method over the recorded samples (empty input gives zeros).
FrameStats summarize_frames(std::vector<double> samples_ms);

// What is measured (steady clock unless noted):
//   time_to_first_frame_ms  from the start of main() to the return of the first swap (the first frame is on screen).
//   startup_ms              that span step by step: `steps` are consecutive on the UI thread and add up to it;
//                           `background` ran meanwhile on the start-up thread (fonts, the panels' first results).
//   ui_frame_cpu_ms         per frame, building the UI: new frame, menus, every open panel's update() and draw()
//                           (ImGui calls, figure layout, heatmap texture uploads). Rendering and swap are not in it.
//                           Wall-clock time of that span, so time the thread waited for a core counts too.
//   ui_frame_thread_cpu_ms  the same span in CPU time of the UI thread (CLOCK_THREAD_CPUTIME_ID): the work itself,
//                           without the waits a busy machine adds.
//   frame_wall_ms           per drawn frame, from its start (events handled) to the return of its swap: building,
//                           rendering and presenting, what the user waits for.
//   frame_process_cpu_ms    the same span in CPU time of the whole process (getrusage RUSAGE_SELF: every thread,
//                           the GL driver's render threads included; llvmpipe rasterizes on them).
//   triangle_mpx / solid_fill_mpx  per frame, millions of pixels covered by every triangle drawn (unclipped: the
//                           overdraw) and by the large flat fills moved to the cheap path (app/render/solid_fills.h).
//   damaged_mpx             per frame, millions of pixels drawn again by damage tracking (app/render/render_damage.h);
//   the
//                           rest of the window is the last frame's image.
//   frame_render_ms         per frame, from the end of building the UI to the end of Window::end_frame: ImGui::Render,
//                           the solid-fill split, damage hashing and the draw calls (llvmpipe only bins triangles).
//   frame_swap_ms           per frame, to the return of the swap (llvmpipe rasterizes the binned triangles then; the
//                           --screenshot of the last --frames frame falls here too).
//   slowest_frames          the 10 slowest frames by wall time, each with its parts (ui, render, swap, CPU, pixels).
//   renderer                glGetString(GL_RENDERER) of the window's context (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
// A deadline on its own thread: start(seconds, interrupt) calls `interrupt` (Window::interrupt, which wakes a loop
// blocked waiting for events) once the time has passed, so the idle measurement runs the real loop with no time-out.
class IdleDeadline {
 public:
  ~IdleDeadline();
  void start(double seconds, void (*interrupt)());
  bool passed() const { return passed_.load(); }

 private:
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cancel_;
  bool cancelled_ = false;
  std::atomic<bool> passed_{false};
};

class PerfRecorder {
 public:
  explicit PerfRecorder(PerfClock::time_point process_start) : start_(process_start), last_mark_(process_start) {}
  // Names the time since the previous mark (the first: since process start) as a start-up step.
  void mark(const char* step);
  // A start-up step that ran on another thread (it overlaps the marked steps).
  void record_background(const char* step, double ms) { background_.push_back({step, ms}); }

  void begin_ui();
  void end_ui();
  void frame_rendered();   // after Window::end_frame(): the first call times the first frame's rendering
  void frame_presented();  // after swap: the first call fixes time to first frame
  void set_renderer(std::string renderer) { renderer_ = std::move(renderer); }
  // After end_frame: the area of every triangle drawn and of the large flat fills drawn the cheap way
  // (app/render/solid_fills.h), in pixels; a measure of overdraw (the window has width × height pixels).
  void frame_coverage(double triangle_pixels, double solid_fill_pixels);
  // After end_frame: the pixels damage tracking drew again (app/render/render_damage.h), whether a window was being
  // moved (dragged by its title bar) and whether its image was copied rather than drawn (app/render/window_move.h).
  void frame_damage(double damaged_pixels, bool window_moving, bool window_copied) {
    damaged_mpx_.push_back(damaged_pixels / 1e6);
    window_moving_.push_back(window_moving);
    window_copied_.push_back(window_copied);
  }

  // Changes every control of every open panel once, timing update() + wait_answer() for each change (the figures
  // answer: recompute_median_ms / recompute_max_ms) and until wait_idle() (a first answer refined on the worker
  // included: refined_median_ms), then restores the control. Run after the frame loop so it does not disturb the
  // frame statistics.
  void measure_recompute(AppState& state);
  // Process CPU time (every thread) over wall time between the two calls: what an idle window costs.
  // Idle: the main loop with no input after the --frames run (frames it still draws count). end_idle() without
  // begin_idle() records nothing.
  void begin_idle();
  void end_idle();
  double seconds_since_start() const { return ms_since(start_) / 1000.0; }

  nlohmann::json to_json() const;
  bool write(const std::string& path, std::string* error) const;

 private:
  struct Step {
    std::string name;
    double ms = 0;
  };
  static double ms_since(PerfClock::time_point t) {
    return std::chrono::duration<double, std::milli>(PerfClock::now() - t).count();
  }
  static double thread_cpu_ms();
  PerfClock::time_point start_, last_mark_, ui_begin_, ui_end_, rendered_;
  double ui_begin_cpu_ = 0, frame_begin_process_cpu_ms_ = 0;
  std::string renderer_;
  double first_frame_ms_ = -1;
  PerfClock::time_point idle_begin_;
  double idle_begin_cpu_s_ = 0, idle_cpu_percent_ = -1, idle_seconds_ = 0;
  bool idle_running_ = false;
  size_t idle_first_frame_ = 0;  // frames drawn before the idle span
  size_t idle_frames_ = 0;
  std::vector<Step> steps_, background_;
  std::vector<double> ui_ms_, ui_cpu_ms_, frame_wall_ms_, frame_cpu_ms_;
  std::vector<double> render_ms_, swap_ms_;
  std::vector<double> triangle_mpx_, solid_fill_mpx_, damaged_mpx_;  // per frame, millions of pixels
  std::vector<bool> window_moving_, window_copied_;                  // per frame
  nlohmann::json panels_ = nlohmann::json::object();
};

}  // namespace tw
