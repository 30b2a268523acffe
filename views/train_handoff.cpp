#include "views/train_handoff.h"

#include <utility>

#include "views/model_handoff.h"

namespace tw {

namespace {
struct Board {
  std::optional<TrainComparison> comparison;  // posted to the Training panel, not taken yet
  std::shared_ptr<const TrainSnapshot> run;   // the Training panel's latest snapshot
};
Board& board() {
  static Board b;
  return b;
}
}  // namespace

// [SECTION] comparison hand-off

void post_train_comparison(TrainComparison c) {
  board().comparison = std::move(c);
  request_focus("train");
}

std::optional<TrainComparison> take_train_comparison() { return std::exchange(board().comparison, std::nullopt); }

// [SECTION] the latest run

void publish_training_run(std::shared_ptr<const TrainSnapshot> snapshot) { board().run = std::move(snapshot); }
std::shared_ptr<const TrainSnapshot> latest_training_run() { return board().run; }

// [SECTION] Training panel state from settings

TrainPanelState train_state_of_settings(const TrainSettings& t, int steps) {
  TrainPanelState s;
  const TaskConfig& k = t.task;
  s.task = static_cast<int>(k.kind);
  s.length = k.length;
  s.alphabet = k.alphabet;
  s.vary_period = k.vary_period;
  s.modulus = k.modulus;
  s.text = k.text;
  s.text_file.clear();
  s.context = k.context;
  s.val_examples = k.val_examples;
  const ModelConfig& m = t.model;
  s.layers = m.n_layers;
  s.dim = m.dim;
  s.heads = m.n_heads;
  s.kv_heads = m.n_kv_heads;
  s.hidden = m.hidden;
  Task task;
  std::string error;
  // 0 = "exactly the task's vocabulary", so a run whose vocabulary is the task's reads back the same way.
  s.vocab = Task::create(k, &task, &error) && task.vocab() == m.vocab ? 0 : m.vocab;
  s.positions = static_cast<int>(m.positions);
  s.norm = static_cast<int>(m.norm);
  s.placement = static_cast<int>(m.placement);
  s.activation = static_cast<int>(m.activation);
  s.attn_scale = static_cast<int>(m.attn_scale);
  s.qk_norm = m.qk_norm;
  s.softcap = m.attn_softcap;
  s.tie = m.tie_embeddings;
  s.experts = m.experts;
  s.top_k = m.top_k;
  s.capacity_factor = static_cast<float>(m.capacity_factor);
  s.aux_coef = static_cast<float>(m.aux_loss_coef);
  const OptimizerConfig& o = t.optimizer;
  s.optimizer = static_cast<int>(o.kind);
  s.lr = o.lr;
  s.steps = steps;
  s.warmup = o.warmup_steps;
  s.weight_decay = o.weight_decay;
  s.decay_all = o.decay_norms && o.decay_embeddings;
  s.clip = o.clip_norm;
  s.z_loss = static_cast<float>(t.z_loss);
  s.batch = t.batch;
  s.seed = static_cast<int>(t.seed);
  s.eval_every = t.eval_every;
  return s;
}

}  // namespace tw
