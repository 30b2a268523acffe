// TrainerSession: the worker thread around a Trainer. Commands are flags the worker reads between steps; results
// leave through immutable snapshots, so neither side ever holds a lock the other needs for long.
#include "core/train/trainer_session.h"

#include <algorithm>
#include <chrono>

namespace tw {

namespace {
// A chunk of steps between two snapshots stops early after this long, so commands (pause, reset) take effect
// quickly even at a high steps-per-frame setting.
constexpr double kMaxChunkMs = 40.0;
}  // namespace

TrainSnapshot make_snapshot(Trainer& t) {
  TrainSnapshot s;
  s.ready = t.ready();
  if (!s.ready) return s;
  s.step = t.steps_done();
  s.message = t.stop_message();
  s.settings = t.settings();
  s.task = t.task();
  s.history = t.history();
  s.samples = t.samples();
  s.probe = t.probe();
  s.probe_predictions = t.probe_predictions();
  s.attention = t.probe_attention();
  s.scores = t.head_scores();
  s.moe = t.moe_stats();
  s.weights = t.weights();
  if (const LoraModel* lora = t.lora()) s.lora = std::make_shared<const LoraModel>(*lora);
  return s;
}

TrainerSession::TrainerSession() {
  snapshot_ = std::make_shared<const TrainSnapshot>();
  worker_ = std::thread([this] { worker_loop(); });
}

TrainerSession::~TrainerSession() {
  {
    std::lock_guard<std::mutex> lock(command_mutex_);
    quit_ = true;
    playing_ = false;
  }
  wake_.notify_all();
  worker_.join();
}

bool TrainerSession::reset(const TrainSettings& settings, std::string* error) {
  if (std::string e = check_settings(settings); !e.empty()) {
    *error = e;
    return false;
  }
  playing_ = false;
  {
    std::lock_guard<std::mutex> lock(command_mutex_);
    pending_steps_ = 0;
  }
  std::lock_guard<std::mutex> lock(trainer_mutex_);
  if (!trainer_.init(settings, error)) return false;
  step_ms_.clear();
  publish_locked();
  return true;
}

void TrainerSession::play() {
  {
    std::lock_guard<std::mutex> lock(command_mutex_);
    playing_ = true;
  }
  wake_.notify_all();
}

void TrainerSession::pause() { playing_ = false; }

void TrainerSession::step_once() {
  {
    std::lock_guard<std::mutex> lock(command_mutex_);
    playing_ = false;
    ++pending_steps_;
  }
  wake_.notify_all();
}

void TrainerSession::set_steps_per_publish(int steps) { steps_per_publish_ = std::clamp(steps, 1, 10000); }
void TrainerSession::set_max_steps(int steps) { max_steps_ = std::max(steps, 0); }

void TrainerSession::pin_current(const std::string& label) {
  std::lock_guard<std::mutex> lock(trainer_mutex_);
  if (!trainer_.ready() || trainer_.history().empty()) return;
  pinned_.push_back({label, trainer_.history()});
  if (pinned_.size() > size_t(kMaxPinnedRuns)) pinned_.erase(pinned_.begin());
  publish_locked();
}

void TrainerSession::clear_pins() {
  std::lock_guard<std::mutex> lock(trainer_mutex_);
  pinned_.clear();
  publish_locked();
}

bool TrainerSession::load_checkpoint(const std::string& dir, std::string* error) {
  playing_ = false;
  std::lock_guard<std::mutex> lock(trainer_mutex_);
  if (!trainer_.load_checkpoint(dir, error)) return false;
  step_ms_.clear();
  publish_locked();
  return true;
}

std::shared_ptr<const TrainSnapshot> TrainerSession::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
}

void TrainerSession::wait_idle() {
  std::unique_lock<std::mutex> lock(command_mutex_);
  idle_cv_.wait(lock, [&] { return quit_ || (!busy_ && !playing_ && pending_steps_ == 0); });
}

void TrainerSession::publish_locked() {
  auto s = std::make_shared<TrainSnapshot>(make_snapshot(trainer_));
  s->pinned = pinned_;
  s->running = playing_;
  if (!step_ms_.empty()) {
    std::vector<double> ms = step_ms_;
    std::nth_element(ms.begin(), ms.begin() + long(ms.size() / 2), ms.end());
    s->ms_per_step = ms[ms.size() / 2];
  }
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    s->version = ++version_;
    snapshot_ = std::move(s);
  }
  if (void (*on_publish)() = on_publish_.load()) on_publish();
}

void TrainerSession::worker_loop() {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    int steps = 0;
    {
      std::unique_lock<std::mutex> lock(command_mutex_);
      wake_.wait(lock, [&] { return quit_ || playing_ || pending_steps_ > 0; });
      if (quit_) break;
      if (playing_) {
        steps = steps_per_publish_;
      } else {
        steps = 1;
        --pending_steps_;
      }
      busy_ = true;
    }
    {
      std::lock_guard<std::mutex> lock(trainer_mutex_);
      const auto chunk_start = Clock::now();
      for (int i = 0; i < steps && trainer_.ready(); ++i) {
        if (max_steps_ > 0 && trainer_.steps_done() >= max_steps_) {
          playing_ = false;
          break;
        }
        const auto t0 = Clock::now();
        std::string error;
        const bool ok = trainer_.step(&error);
        // The last 64 step times: a rolling median that survives chunks without steps (paused at max_steps).
        if (step_ms_.size() >= 64) step_ms_.erase(step_ms_.begin());
        step_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        if (!ok) {
          playing_ = false;
          break;
        }
        if (std::chrono::duration<double, std::milli>(Clock::now() - chunk_start).count() > kMaxChunkMs) break;
      }
      if (!trainer_.ready()) playing_ = false;
      publish_locked();
    }
    {
      std::lock_guard<std::mutex> lock(command_mutex_);
      busy_ = false;
    }
    idle_cv_.notify_all();
  }
  idle_cv_.notify_all();
}

}  // namespace tw
