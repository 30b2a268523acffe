// LoRA at several ranks against full fine-tuning, every run the same Trainer from the same base weights.
#include "core/experiments/lora_rank_sweep.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/base/i18n.h"
#include "core/train/trainer.h"

namespace tw {

namespace {

TrainSettings settings_of(const LoraSweepParams& p, int rank) {
  TrainSettings s;
  s.model = p.model;
  s.task = p.task;
  s.optimizer.lr = rank > 0 ? p.lr_lora : p.lr_full;
  s.optimizer.total_steps = p.steps;  // cosine to the last step
  s.batch = p.batch;
  s.seed = p.seed;
  s.eval_every = std::max(1, p.eval_every);
  s.sample_every = 0;  // the sweep shows no samples of text
  s.start_weights = p.base;
  s.lora = rank > 0;
  s.lora_spec = {.r = std::max(rank, 1), .alpha = p.alpha, .rslora = p.rslora, .targets = p.targets, .seed = p.seed};
  return s;
}

// Ranks of the sweep this model can take, ascending and distinct.
std::vector<int> usable_ranks(const LoraSweepParams& p) {
  std::vector<int> out;
  for (int r : p.ranks)
    if (check_lora_spec(settings_of(p, r).lora_spec, p.model).empty()) out.push_back(r);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

std::string check_lora_sweep(const LoraSweepParams& p) {
  if (!p.base) return tr("no base model to fine-tune");
  if (p.steps < 1 || p.steps > 100000) return tr("steps must be between 1 and 100000");
  if (!(p.lr_lora > 0.0f) || !(p.lr_full > 0.0f)) return tr("learning rate must be a positive number");
  if (usable_ranks(p).empty() && !p.full) {
    if (std::string e = check_lora_spec(settings_of(p, 1).lora_spec, p.model); !e.empty()) return e;
    return tr("no LoRA rank of the list fits this model's matrices");
  }
  return check_settings(settings_of(p, p.full ? 0 : usable_ranks(p).front()));
}

int lora_sweep_steps(const LoraSweepParams& p) {
  return p.steps * (static_cast<int>(usable_ranks(p).size()) + (p.full ? 1 : 0));
}

LoraSweep run_lora_sweep(const LoraSweepParams& p, const std::function<bool(float)>& progress) {
  LoraSweep out;
  out.base_parameters = parameter_count(p.model);
  out.language = p.task.kind == TaskKind::Language;
  std::vector<int> ranks = usable_ranks(p);
  if (p.full) ranks.push_back(0);
  // The (layer, module) list the spectra cover: the slots of an adapter with these targets.
  LoraModel layout;
  std::string error;
  const bool have_layout = lora_create(p.model, settings_of(p, 1).lora_spec, &layout, &error);
  const double total = std::max(1, lora_sweep_steps(p));
  int done = 0;
  // Every run starts from the same function (the base weights; a new adapter's B is zero), so the base is scored once.
  std::optional<Evaluation> base;
  for (size_t k = 0; k < ranks.size(); ++k) {
    const int rank = ranks[k];
    Trainer t;
    if (!t.init(settings_of(p, rank), &error)) {
      LoraSweepRun run;
      run.rank = rank;
      run.stopped = error;
      out.runs.push_back(std::move(run));
      continue;
    }
    LoraSweepRun run;
    run.rank = rank;
    run.trainable = t.trainable_parameters();
    if (!base) {
      base = t.evaluate();
      out.base_loss = base->loss, out.base_accuracy = base->accuracy, out.base_bits = base->bits_per_char;
    }
    const Evaluation& e0 = *base;
    const auto record = [&](int step, double loss, double bits) {
      run.eval_steps.push_back(step);
      run.val_loss.push_back(loss);
      if (out.language) run.val_bits.push_back(bits);
    };
    record(0, e0.loss, e0.bits_per_char);
    for (int s = 0; s < p.steps; ++s) {
      if (!t.step(&error)) {
        run.stopped = error;
        done += p.steps - s;
        break;
      }
      const MetricsRow& row = t.history().back();
      if (std::isfinite(row.val_loss)) record(row.step, row.val_loss, row.bits_per_char);
      ++done;
      if (progress && !progress(static_cast<float>(done / total))) {
        out.cancelled = true;
        return out;
      }
    }
    // The trainer evaluated after its last step when that step was on the evaluation interval.
    const bool last_evaluated =
        !t.history().empty() && t.history().back().step == t.steps_done() && std::isfinite(t.history().back().val_loss);
    const Evaluation e = last_evaluated ? evaluation_of(t.history().back()) : t.evaluate();
    run.final_loss = e.loss;
    run.final_accuracy = e.accuracy;
    run.final_bits = e.bits_per_char;
    if (run.eval_steps.back() != t.steps_done()) record(t.steps_done(), e.loss, e.bits_per_char);
    if (const LoraModel* lora = t.lora()) {
      for (const LoraSlot& slot : lora->slots) {
        Mat delta;
        lora_delta(delta, slot.adapter);  // s·B A
        run.spectra.push_back({slot.layer, slot.module, singular_values(delta)});
      }
    } else if (have_layout) {
      for (const LoraSlot& slot : layout.slots) {
        const Mat delta =
            lora_base_matrix(t.weights(), slot.layer, slot.module) - lora_base_matrix(*p.base, slot.layer, slot.module);
        run.spectra.push_back({slot.layer, slot.module, singular_values(delta)});
      }
    }
    out.runs.push_back(std::move(run));
  }
  return out;
}

}  // namespace tw
