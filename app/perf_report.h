#pragma once
// --perf-report: frame-time statistics of a GUI run, each panel's recompute latency after a control change,
// and time to first frame, written as JSON. Goals (measured, not enforced): p99 UI frame CPU time ≤ 4 ms with
// all panels open, every panel's recompute ≤ 16 ms at default settings, first frame ≤ 300 ms.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
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

class PerfRecorder {
 public:
  explicit PerfRecorder(PerfClock::time_point process_start) : start_(process_start) {}
  void begin_ui() { ui_begin_ = PerfClock::now(); }
  void end_ui() { ui_ms_.push_back(ms_since(ui_begin_)); }
  void frame_presented();  // after swap: the first call fixes time to first frame

  // Changes every control of every open panel once, timing update() + wait_idle() for each change, then
  // restores the control. Run after the frame loop so it does not disturb the frame statistics.
  void measure_recompute(AppState& state);

  nlohmann::json to_json() const;
  bool write(const std::string& path, std::string* error) const;

 private:
  static double ms_since(PerfClock::time_point t) {
    return std::chrono::duration<double, std::milli>(PerfClock::now() - t).count();
  }
  PerfClock::time_point start_, ui_begin_;
  double first_frame_ms_ = -1;
  std::vector<double> ui_ms_;
  nlohmann::json panels_ = nlohmann::json::object();
};

}  // namespace tw
