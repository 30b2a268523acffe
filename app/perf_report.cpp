#include "app/perf_report.h"

#include <sys/resource.h>

#include "core/io/atomic_file.h"
#include "core/matmul_threads.h"

#include <time.h>

#include <algorithm>
#include <cmath>

namespace tw {

namespace {

// CPU time of the whole process, every thread (the GL driver's render threads too), in seconds.
double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double nearest_rank(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * double(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// A value different from the control's current one, still inside its range; nullopt when none exists.
std::optional<nlohmann::json> changed_value(const Control& c) {
  const nlohmann::json now = c.get();
  switch (c.type) {
    case ControlType::Bool: return !now.get<bool>();
    case ControlType::Int: {
      const int v = now.get<int>();
      if (v < c.max) return v + 1;
      if (v > c.min) return v - 1;
      return std::nullopt;
    }
    case ControlType::Float: {
      const double v = now.get<double>(), step = (c.max - c.min) * 0.01;
      if (step <= 0) return std::nullopt;
      return v + step <= c.max ? v + step : v - step;
    }
    case ControlType::Enum: {
      if (c.options.size() < 2) return std::nullopt;
      const auto it = std::find(c.options.begin(), c.options.end(), now.get<std::string>());
      const size_t i = it == c.options.end() ? 0 : size_t(it - c.options.begin());
      return c.options[(i + 1) % c.options.size()];
    }
    case ControlType::Text: {
      std::string s = now.get<std::string>();
      if (s.size() + 1 > size_t(c.max)) return std::nullopt;
      return s + "a";
    }
    case ControlType::IntList: return std::nullopt;  // no single obvious neighbour; covered by the sweep test
  }
  return std::nullopt;
}

}  // namespace

FrameStats summarize_frames(std::vector<double> samples_ms) {
  FrameStats s;
  s.frames = samples_ms.size();
  if (samples_ms.empty()) return s;
  std::sort(samples_ms.begin(), samples_ms.end());
  s.p50_ms = nearest_rank(samples_ms, 50);
  s.p95_ms = nearest_rank(samples_ms, 95);
  s.p99_ms = nearest_rank(samples_ms, 99);
  s.max_ms = samples_ms.back();
  double sum = 0;
  for (double v : samples_ms) sum += v;
  s.mean_ms = sum / double(samples_ms.size());
  return s;
}

double PerfRecorder::thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

void PerfRecorder::mark(const char* step) {
  const PerfClock::time_point now = PerfClock::now();
  steps_.push_back({step, std::chrono::duration<double, std::milli>(now - last_mark_).count()});
  last_mark_ = now;
}

void PerfRecorder::begin_ui() {
  if (first_frame_ms_ < 0) mark("first_frame_events");
  ui_begin_ = PerfClock::now();
  ui_begin_cpu_ = thread_cpu_ms();
  frame_begin_process_cpu_ms_ = process_cpu_seconds() * 1e3;
}

void PerfRecorder::end_ui() {
  ui_end_ = PerfClock::now();
  ui_ms_.push_back(ms_since(ui_begin_));
  ui_cpu_ms_.push_back(thread_cpu_ms() - ui_begin_cpu_);
  if (first_frame_ms_ < 0) mark("first_frame_ui");
}

void PerfRecorder::frame_rendered() {
  rendered_ = PerfClock::now();
  render_ms_.push_back(std::chrono::duration<double, std::milli>(rendered_ - ui_end_).count());
  if (first_frame_ms_ < 0) mark("first_frame_render");
}

void PerfRecorder::frame_coverage(double triangle_pixels, double solid_fill_pixels) {
  triangle_mpx_.push_back(triangle_pixels / 1e6);
  solid_fill_mpx_.push_back(solid_fill_pixels / 1e6);
}

void PerfRecorder::frame_presented() {
  frame_wall_ms_.push_back(ms_since(ui_begin_));
  swap_ms_.push_back(ms_since(rendered_));
  frame_cpu_ms_.push_back(process_cpu_seconds() * 1e3 - frame_begin_process_cpu_ms_);
  if (first_frame_ms_ >= 0) return;
  mark("first_frame_swap");
  first_frame_ms_ = ms_since(start_);
}

void PerfRecorder::measure_recompute(AppState& state) {
  for (PanelSlot& slot : state.panels) {
    if (!slot.open) continue;
    Panel& panel = *slot.panel;
    panel.update();
    panel.wait_idle();
    std::vector<double> latencies, whole;
    std::string worst_key;
    double worst = -1;
    for (Control& c : panel.controls().all()) {
      const auto next = changed_value(c);
      if (!next) continue;
      const nlohmann::json original = c.get();
      c.set(*next);
      const auto t0 = PerfClock::now();
      panel.update();
      panel.wait_answer();  // the figures answer (a panel may refine a first answer on its worker: Panel::wait_answer)
      const double ms = ms_since(t0);
      panel.wait_idle();
      whole.push_back(ms_since(t0));
      c.set(original);
      panel.update();
      panel.wait_idle();
      latencies.push_back(ms);
      if (ms > worst) worst = ms, worst_key = c.key;
    }
    const FrameStats s = summarize_frames(latencies);
    panels_[slot.info.id] = {{"controls_changed", s.frames},
                             {"recompute_median_ms", s.p50_ms},
                             {"recompute_max_ms", s.max_ms},
                             {"refined_median_ms", summarize_frames(whole).p50_ms},
                             {"slowest_control", worst_key}};
  }
}

void PerfRecorder::begin_idle() {
  idle_begin_ = PerfClock::now();
  idle_begin_cpu_s_ = process_cpu_seconds();
  idle_running_ = true;
  idle_first_frame_ = frame_wall_ms_.size();
}
void PerfRecorder::end_idle() {
  if (!idle_running_) return;
  idle_running_ = false;
  idle_seconds_ = ms_since(idle_begin_) / 1000.0;
  idle_cpu_percent_ = idle_seconds_ > 0 ? 100.0 * (process_cpu_seconds() - idle_begin_cpu_s_) / idle_seconds_ : -1;
  idle_frames_ = frame_wall_ms_.size() - idle_first_frame_;
}

IdleDeadline::~IdleDeadline() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  cancel_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void IdleDeadline::start(double seconds, void (*interrupt)()) {
  thread_ = std::thread([this, seconds, interrupt] {
    std::unique_lock lock(mutex_);
    if (cancel_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return cancelled_; })) return;
    passed_ = true;
    interrupt();
  });
}

nlohmann::json PerfRecorder::to_json() const {
  auto stats = [](const std::vector<double>& samples) {
    const FrameStats s = summarize_frames(samples);
    return nlohmann::json{{"frames", s.frames}, {"p50", s.p50_ms}, {"p95", s.p95_ms},
                          {"p99", s.p99_ms},    {"max", s.max_ms}, {"mean", s.mean_ms}};
  };
  // The slowest frames, slowest first, each split into its parts (what a p99 frame is made of).
  auto slowest = [&] {
    std::vector<size_t> order(frame_wall_ms_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const size_t n = std::min<size_t>(order.size(), 10);
    std::partial_sort(order.begin(), order.begin() + long(n), order.end(),
                      [&](size_t a, size_t b) { return frame_wall_ms_[a] > frame_wall_ms_[b]; });
    auto at = [](const std::vector<double>& v, size_t i) { return i < v.size() ? v[i] : -1.0; };
    nlohmann::json out = nlohmann::json::array();
    for (size_t k = 0; k < n; ++k) {
      const size_t i = order[k];
      out.push_back({{"frame", i},
                     {"wall_ms", frame_wall_ms_[i]},
                     {"ui_ms", at(ui_ms_, i)},
                     {"render_ms", at(render_ms_, i)},
                     {"swap_ms", at(swap_ms_, i)},
                     {"process_cpu_ms", at(frame_cpu_ms_, i)},
                     {"damaged_mpx", at(damaged_mpx_, i)}});
    }
    return out;
  };
  // The frames of window drags: while ImGui moved a window, and the frame after each drag ends (it draws the window
  // afresh where its image was copied).
  auto window_drags = [&] {
    std::vector<double> wall, cpu;
    long long copied = 0;
    for (size_t i = 0; i < window_moving_.size() && i < frame_wall_ms_.size(); ++i) {
      if (!window_moving_[i] && !(i > 0 && window_moving_[i - 1])) continue;
      wall.push_back(frame_wall_ms_[i]);
      if (i < frame_cpu_ms_.size()) cpu.push_back(frame_cpu_ms_[i]);
      copied += window_copied_[i];
    }
    return nlohmann::json{
        {"frame_wall_ms", stats(wall)}, {"frame_process_cpu_ms", stats(cpu)}, {"copied_frames", copied}};
  };
  auto steps = [](const std::vector<Step>& list) {
    nlohmann::json out = nlohmann::json::array();
    for (const Step& s : list) out.push_back({{"step", s.name}, {"ms", s.ms}});
    return out;
  };
  return {
      {"time_to_first_frame_ms", first_frame_ms_},
      {"startup_ms", {{"steps", steps(steps_)}, {"background", steps(background_)}}},
      {"renderer", renderer_},
      {"frame_wall_ms", stats(frame_wall_ms_)},
      {"frame_process_cpu_ms", stats(frame_cpu_ms_)},
      {"ui_frame_cpu_ms", stats(ui_ms_)},
      {"triangle_mpx", stats(triangle_mpx_)},
      {"solid_fill_mpx", stats(solid_fill_mpx_)},
      {"damaged_mpx", stats(damaged_mpx_)},
      {"frame_render_ms", stats(render_ms_)},
      {"frame_swap_ms", stats(swap_ms_)},
      {"slowest_frames", slowest()},
      {"window_drag", window_drags()},
      {"ui_frame_thread_cpu_ms", stats(ui_cpu_ms_)},
      {"panel_recompute", panels_},
      {"idle",
       {{"seconds", idle_seconds_}, {"cpu_percent_of_one_core", idle_cpu_percent_}, {"frames_drawn", idle_frames_}}},
      {"goals",
       {{"frame_wall_p99_ms_all_panels", 16.0},
        {"frame_wall_p99_ms_one_panel", 8.0},
        {"ui_frame_p99_ms", 4.0},
        {"panel_recompute_ms", 16.0},
        {"time_to_first_frame_ms", 250.0},
        {"idle_cpu_percent", 1.0}}},
      {"matmul", {{"backend", matmul_backend()}, {"threads", matmul_threads()}}},
  };
}

bool PerfRecorder::write(const std::string& path, std::string* error) const {
  return write_file_atomic(path, to_json().dump(2) + "\n", error);
}

}  // namespace tw
