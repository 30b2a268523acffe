#include "views/train/train_settings.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tw {

namespace {

bool read_text_file(const std::string& path, std::string* out, std::string* error) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    *error = "cannot read text file " + path + ": " + ec.message();
    return false;
  }
  if (size > (size_t{16} << 20)) {
    *error = "text file " + path + " is larger than 16 MB";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) {
    *error = "cannot read text file " + path;
    return false;
  }
  *out = ss.str();
  if (out->empty()) {
    *error = "text file " + path + " is empty: a text task needs some text";
    return false;
  }
  return true;
}

}  // namespace

bool train_settings_of_state(const TrainPanelState& s, TrainSettings* out, std::string* error) {
  TrainSettings t;
  t.task.kind = static_cast<TaskKind>(s.task);
  t.task.length = s.length;
  t.task.alphabet = s.alphabet;
  t.task.vary_period = s.vary_period;
  t.task.modulus = s.modulus;
  t.task.context = s.context;
  t.task.val_examples = s.val_examples;
  if (t.task.kind == TaskKind::Text) {
    if (!s.text_file.empty()) {
      if (!read_text_file(s.text_file, &t.task.text, error)) return false;
    } else {
      t.task.text = s.text;
    }
  }
  Task task;
  if (!Task::create(t.task, &task, error)) {
    *error = "task: " + *error;
    return false;
  }
  ModelConfig& m = t.model;
  m.n_layers = s.layers;
  m.dim = s.dim;
  m.n_heads = s.heads;
  m.n_kv_heads = s.kv_heads;
  m.hidden = s.hidden > 0 ? s.hidden : 4 * s.dim;
  m.vocab = s.vocab > 0 ? s.vocab : task.vocab();
  m.max_seq = task.seq_len();
  m.positions = static_cast<PositionType>(s.positions);
  m.norm = static_cast<NormType>(s.norm);
  m.placement = static_cast<NormPlacement>(s.placement);
  m.activation = static_cast<ActivationKind>(s.activation);
  m.attn_scale = static_cast<ScaleMode>(s.attn_scale);
  m.qk_norm = s.qk_norm;
  m.attn_softcap = s.softcap;
  m.tie_embeddings = s.tie;
  m.experts = s.experts;
  m.top_k = s.top_k;
  m.capacity_factor = s.capacity_factor;
  m.aux_loss_coef = s.aux_coef;
  OptimizerConfig& o = t.optimizer;
  o.kind = static_cast<OptimizerKind>(s.optimizer);
  o.lr = s.lr;
  o.warmup_steps = s.warmup;
  o.total_steps = s.steps;
  o.weight_decay = s.weight_decay;
  o.decay_norms = o.decay_embeddings = s.decay_all;
  o.clip_norm = s.clip;
  t.z_loss = s.z_loss;
  t.batch = s.batch;
  t.seed = static_cast<uint64_t>(s.seed);
  t.eval_every = s.eval_every;
  if (std::string e = check_settings(t); !e.empty()) {
    *error = e;
    return false;
  }
  *out = std::move(t);
  return true;
}

}  // namespace tw
