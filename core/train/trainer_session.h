#pragma once
// TrainerSession: a Trainer on a worker thread, for the GUI. The UI thread sends commands (reset, play, pause,
// single step) and reads immutable snapshots; it never waits for a training step.
//
//   session.reset(settings, &error);   // validated on the caller's thread; a bad setting keeps the current run
//   session.play();                    // the worker trains until paused, stopped or at max_steps
//   auto snap = session.snapshot();    // shared_ptr to the latest published state (never blocks on training)
//
// TrainSnapshot is also what `train` (app/cli/cmd_train.cpp) builds after a headless run, so the panel's figures and
// the exported figures come from the same data.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/train/trainer.h"

namespace tw {

// A run's curves kept for comparison (faded overlays in the panel).
struct PinnedRun {
  std::string label;                // "run 2: lr 0.003, pre-norm" ...
  std::vector<MetricsRow> history;  // its metrics when pinned
};

struct TrainSnapshot {
  uint64_t version = 0;                   // increases with every publish
  bool ready = false;                     // a run exists
  bool running = false;                   // the worker is training
  int step = 0;                           // optimizer steps taken
  std::string message;                    // divergence / error message, empty when fine
  TrainSettings settings;                 // of the current run (model config, task, optimizer, ...)
  Task task;                              // token strings, vocabulary
  std::vector<MetricsRow> history;        // one row per step
  std::vector<TrainSample> samples;       // language task: texts sampled during training
  TaskSample probe;                       // the fixed probe example
  std::vector<int> probe_predictions;     // (T) arg-max prediction at each probe position
  std::vector<Mat> attention;             // (n_layers) × (H*T, T) attention on the probe
  HeadScores scores;                      // previous-token / induction score per head
  MoeStats moe;                           // MoE: routing of the last training batch (empty when dense)
  ModelWeights weights;                   // copy of the current weights (save, open in the stepper)
  std::shared_ptr<const LoraModel> lora;  // LoRA runs: the adapters (weights is then the merged model), else null
  std::vector<PinnedRun> pinned;          // up to kMaxPinnedRuns earlier runs
  double ms_per_step = 0;                 // median wall time of the last 64 steps
};

constexpr int kMaxPinnedRuns = 4;

// Builds a snapshot from a trainer (runs the probe forward passes).
TrainSnapshot make_snapshot(Trainer& trainer);

class TrainerSession {
 public:
  TrainerSession();
  ~TrainerSession();  // stops and joins the worker
  TrainerSession(const TrainerSession&) = delete;
  TrainerSession& operator=(const TrainerSession&) = delete;

  // Starts a new run (paused). Invalid settings: false + one-line *error; the current run continues untouched.
  bool reset(const TrainSettings& settings, std::string* error);
  void play();
  void pause();
  void step_once();                       // one step, then paused
  void set_steps_per_publish(int steps);  // steps between snapshots (the panel's "steps per frame")
  void set_max_steps(int steps);          // pause at this step (0 = no limit)
  // Pins the current run's curves (oldest dropped beyond kMaxPinnedRuns); clear_pins forgets them all.
  void pin_current(const std::string& label);
  void clear_pins();
  // Replaces the model by a checkpoint directory (config.json + model.safetensors); paused afterwards.
  bool load_checkpoint(const std::string& dir, std::string* error);

  std::shared_ptr<const TrainSnapshot> snapshot() const;
  // Called on the worker thread after each new snapshot (the GUI wakes its main loop to draw it); may be null.
  void set_on_publish(void (*on_publish)()) { on_publish_.store(on_publish); }
  bool running() const { return playing_.load(); }
  // Blocks until the worker is idle (tests, headless use).
  void wait_idle();

 private:
  void worker_loop();
  void publish_locked();  // trainer_mutex_ held

  mutable std::mutex trainer_mutex_;  // guards trainer_ and pinned_ (held by the worker while stepping)
  Trainer trainer_;
  std::vector<PinnedRun> pinned_;

  std::mutex command_mutex_;
  std::condition_variable wake_, idle_cv_;
  bool quit_ = false;
  int pending_steps_ = 0;  // single steps requested
  bool busy_ = false;
  std::atomic<bool> playing_{false};
  std::atomic<int> steps_per_publish_{1};
  std::atomic<int> max_steps_{0};
  std::atomic<void (*)()> on_publish_{nullptr};

  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const TrainSnapshot> snapshot_;
  uint64_t version_ = 0;
  std::vector<double> step_ms_;

  std::thread worker_;
};

}  // namespace tw
