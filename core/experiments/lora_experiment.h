#pragma once
// The math behind the LoRA panel: a target update ΔW with a chosen spectrum, how well rank r can capture it
// (truncated SVD, the Eckart–Young optimum, against a LoRA adapter trained by gradient descent from the peft
// init), the trainable-parameter budget, the training loss curve, the step-0 and merge checks, and how the
// scale α/r vs α/√r (rsLoRA) changes the update's size as r grows.
//
// Target: ΔW = U diag(σ) Vᵀ + noise · G / √d_in, U (d_out, k) and V (d_in, k) random orthonormal, k = true rank,
// σ_i = decay^i (σ_0 = 1), G i.i.d. standard normal.
// Training minimises L = ‖ΔW − s·B A‖²_F / ‖ΔW‖²_F over A and B (a linear layer fitted on whitened inputs);
// the reported error is √L = ‖ΔW − s·B A‖_F / ‖ΔW‖_F.
// Update size: with A and B of fixed per-entry scale, ‖B A‖_F grows like √r, so ‖(α/r)·B A‖ shrinks like 1/√r
// while ‖(α/√r)·B A‖ stays flat — the rsLoRA argument.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/ops/lora.h"
#include "core/tensor.h"

namespace tw {

enum class LoraOptimizer { Adam, Sgd };

struct LoraExperimentParams {
  int d_in = 64;        // columns of ΔW (≤ 1024 in the panel)
  int d_out = 64;       // rows of ΔW
  int rank = 4;         // r of the adapter being trained and shown
  float alpha = 8.0f;   // lora_alpha
  bool rslora = false;  // s = α/√r instead of α/r
  int true_rank = 8;    // rank of the signal part of ΔW
  double decay = 0.7;   // σ_i = decay^i
  double noise = 0.02;  // full-rank noise level added to ΔW
  int steps = 300;      // gradient steps per trained adapter
  double lr = 0.01;     // learning rate
  LoraOptimizer optimizer = LoraOptimizer::Adam;
  uint64_t seed = 1;
  int max_sweep_rank = 64;  // the error-vs-rank sweep stops here (and at min(d_in, d_out))
  bool train_sweep = true;  // train an adapter at every sweep rank (false: only the SVD curve)
};

struct LoraExperiment {
  Mat target;              // (d_out, d_in) ΔW
  VecD sigma;              // (min(d_in, d_out)) singular values of ΔW, descending
  double target_norm = 0;  // ‖ΔW‖_F
  double target_rms = 0;   // root mean square of ΔW's entries: ‖ΔW‖_F / √(d_out·d_in)

  std::vector<int> ranks;          // sweep ranks (always includes params.rank)
  std::vector<double> svd_error;   // ‖ΔW − best rank r‖_F / ‖ΔW‖_F
  std::vector<double> lora_error;  // ‖ΔW − s·B A‖_F / ‖ΔW‖_F after training (NaN when not trained)
  std::vector<int64_t> params;     // r·(d_in + d_out) trainable weights
  int64_t full_params = 0;         // d_in·d_out
  double param_percent = 0;        // 100 · r(d_in + d_out) / (d_in d_out) at params.rank

  std::vector<double> loss;      // (steps + 1) relative squared error at params.rank, step 0 first
  LoraAdapter adapter;           // trained adapter at params.rank
  Mat delta;                     // (d_out, d_in) s·B A of that adapter
  Mat residual;                  // (d_out, d_in) ΔW − s·B A
  double final_error = 0;        // ‖residual‖_F / ‖ΔW‖_F
  double svd_error_at_rank = 0;  // the optimum at params.rank

  double step0_error = 0;  // max |adapted − base| output at initialisation (B = 0)
  bool step0_equals_base = false;
  double merge_error = 0;  // max |merged − unmerged| output after training, relative to the output's max
  bool merged_equals_unmerged = false;

  std::vector<int> scale_ranks;                  // 1 … 64
  std::vector<double> update_norm_alpha_r;       // ‖(α/r)·B A‖_F for random A, B of fixed entry scale
  std::vector<double> update_norm_alpha_sqrt_r;  // ‖(α/√r)·B A‖_F, same A, B

  bool cancelled = false;      // the progress callback asked to stop; the result is incomplete
  bool diverged = false;       // some fit blew up (its error is NaN); lower the learning rate
  bool sweep_pending = false;  // run_lora_experiment_first: the sweep's other ranks are not trained yet (NaN)
};

// Empty when usable; otherwise one sentence naming the bad field.
std::string validate(const LoraExperimentParams& p);

// Trainable weights of a rank-r adapter: r·(d_in + d_out) (A and B); the frozen layer has d_in·d_out.
inline int64_t lora_trainable_params(int d_in, int d_out, int r) { return int64_t{r} * (int64_t{d_in} + d_out); }

// Trainable weights r(d_in + d_out) as a percentage of d_in·d_out (0.390625 % at d = 4096, r = 8).
double lora_param_percent(int d_in, int d_out, int r);

// Builds ΔW as described above (deterministic for a seed).
Mat lora_target_update(int d_in, int d_out, int true_rank, double decay, double noise, uint64_t seed);

enum class FitStatus {
  Done,
  Cancelled,  // progress returned false
  Diverged,   // the loss became non-finite or exceeded 1e6 (learning rate too large); training stopped
};

// Trains a rank-r adapter from the peft init (seeded) to fit target; loss gets steps + 1 entries when Done
// (fewer when stopped early). progress(fraction_of_this_fit) may return false to stop.
FitStatus train_lora_fit(LoraAdapter& adapter, std::vector<double>& loss, const Mat& target, int r, float alpha,
                         bool rslora, int steps, double lr, LoraOptimizer opt, uint64_t seed,
                         const std::function<bool(float)>& progress = {});

// Work of run_lora_experiment in multiply-adds (order of magnitude): 3·d_in·d_out per step of every trained
// adapter (Σ r over the sweep ladder up to 64 is about 220) plus the SVD. The panel waits for a result only when
// this is small (3e7 is a few milliseconds); the largest setting (1024 × 1024) runs for tens of seconds.
double lora_experiment_work(const LoraExperimentParams& p);

// One trained adapter: the status, the adapter and its loss curve (train_lora_fit's outputs).
struct LoraFit {
  FitStatus status = FitStatus::Done;
  LoraAdapter adapter;
  std::vector<double> loss;
};

// Adapters already trained for one target and training setting, by rank: a change of the chosen rank, of whether
// the sweep is trained, or of nothing the fits read, trains only what is missing (issue 27, "compute what
// changed"). A fit is a deterministic function of its inputs, so a kept one equals a retrained one bit for bit.
// Holds one setting at a time (a new one drops the old fits); safe to share between threads.
class LoraFitMemo {
 public:
  // The fit of `r` under `p`'s setting (p.rank, p.train_sweep and p.max_sweep_rank are not part of it), or null.
  std::shared_ptr<const LoraFit> find(const LoraExperimentParams& p, int r) const;
  void keep(const LoraExperimentParams& p, int r, std::shared_ptr<const LoraFit> fit);
  // Whether every fit run_lora_experiment(p) needs is kept.
  bool holds_all(const LoraExperimentParams& p, const std::vector<int>& ranks) const;

 private:
  mutable std::mutex mutex_;
  bool has_setting_ = false;
  LoraExperimentParams setting_;
  std::map<int, std::shared_ptr<const LoraFit>> fits_;
};

// The sweep's ranks for p: a roughly geometric ladder up to min(d_in, d_out, max_sweep_rank), plus p.rank.
std::vector<int> lora_sweep_ranks(const LoraExperimentParams& p);

// Assumes validate(p) is empty. progress(fraction) is called during training; returning false cancels. `memo`
// (optional) supplies fits already trained and keeps the new ones.
// = run_lora_experiment_first followed by complete_lora_sweep.
LoraExperiment run_lora_experiment(const LoraExperimentParams& p, const std::function<bool(float)>& progress = {},
                                   LoraFitMemo* memo = nullptr);
// Everything but the adapters of the sweep's other ranks, which cost about 50 times the chosen rank's at the
// defaults: their lora_error stays NaN (unless memo has them) and sweep_pending says so. A first answer.
LoraExperiment run_lora_experiment_first(const LoraExperimentParams& p, const std::function<bool(float)>& progress = {},
                                         LoraFitMemo* memo = nullptr);
// Trains the ranks run_lora_experiment_first left out (e must come from it with the same p).
void complete_lora_sweep(LoraExperiment& e, const LoraExperimentParams& p,
                         const std::function<bool(float)>& progress = {}, LoraFitMemo* memo = nullptr);

}  // namespace tw
