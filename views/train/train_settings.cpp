#include "views/train/train_settings.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/base/i18n.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "views/train/train_language.h"

#include <algorithm>

namespace tw {

bool read_text_file(const std::string& path, std::string* out, std::string* error) {
  // The bounded reader: a FIFO or device is refused at once, a file over 16 MiB before a byte is read.
  if (!read_file_bounded(path, size_t{16} << 20, out, error)) return false;
  if (std::string bad = utf8_error(*out, subst(tr("text file {0}"), {path})); !bad.empty()) {
    *error = bad;
    return false;
  }
  if (out->empty()) {
    *error = subst(tr("text file {0} is empty: a text task needs some text"), {path});
    return false;
  }
  return true;
}

// [SECTION] state → settings

bool language_source_of_state(const TrainPanelState& s, LanguageSource* out, std::string* error) {
  *out = s.task.language;
  out->text.clear();
  const std::vector<std::string>& names = language_corpus_names();
  out->corpus = names[size_t(std::clamp(s.corpus, 0, int(names.size()) - 1))];
  if (out->corpus != "file") return true;
  if (s.text_file.empty()) {
    *error = tr("corpus \"file\": choose a UTF-8 text file to train on");
    return false;
  }
  return read_text_file(s.text_file, &out->text, error);
}

bool train_settings_of_state(const TrainPanelState& s, TrainSettings* out, std::string* error) {
  TrainSettings t;
  t.task = s.task;
  if (t.task.kind != TaskKind::Text)
    t.task.text.clear();  // the typed text belongs to the text task alone
  else if (!s.text_file.empty() && !read_text_file(s.text_file, &t.task.text, error))
    return false;
  t.task.language.text.clear();
  if (t.task.kind == TaskKind::Language && !language_source_of_state(s, &t.task.language, error)) return false;
  t.sample_every = s.sample_every;
  Task task;
  if (!Task::create(t.task, &task, error)) {
    *error = subst(tr("task: {0}"), {*error});
    return false;
  }
  t.model = s.model;
  ModelConfig& m = t.model;
  apply_family(m, s.model.family);
  m.hidden = s.hidden > 0 ? s.hidden : 4 * m.dim;
  m.vocab = s.vocab > 0 ? s.vocab : task.vocab();
  m.max_seq = task.seq_len();
  m.capacity_factor = s.capacity_factor;
  m.aux_loss_coef = s.aux_coef;
  t.optimizer = s.optimizer;
  OptimizerConfig& o = t.optimizer;
  o.total_steps = s.steps;
  o.decay_norms = o.decay_embeddings = s.decay_all;
  t.batch = s.batch;
  t.seed = static_cast<uint64_t>(s.seed);
  t.eval_every = s.eval_every;
  t.z_loss = s.z_loss;
  t.dropout = s.dropout;
  if (std::string e = check_settings(t); !e.empty()) {
    *error = e;
    return false;
  }
  *out = std::move(t);
  return true;
}

// [SECTION] settings → state

TrainPanelState train_state_of_settings(const TrainSettings& t, int steps) {
  TrainPanelState s;
  s.task = t.task;
  s.model = t.model;
  s.hidden = t.model.hidden;
  Task task;
  std::string error;
  // 0 = "exactly the task's vocabulary", so a run whose vocabulary is the task's reads back the same way.
  s.vocab = Task::create(t.task, &task, &error) && task.vocab() == t.model.vocab ? 0 : t.model.vocab;
  s.capacity_factor = static_cast<float>(t.model.capacity_factor);
  s.aux_coef = static_cast<float>(t.model.aux_loss_coef);
  s.optimizer = t.optimizer;
  s.decay_all = t.optimizer.decay_norms && t.optimizer.decay_embeddings;
  s.steps = steps;
  s.batch = t.batch;
  s.seed = static_cast<int>(t.seed);
  s.eval_every = t.eval_every;
  s.z_loss = static_cast<float>(t.z_loss);
  s.dropout = static_cast<float>(t.dropout);
  s.sample_every = t.sample_every;
  const std::vector<std::string>& names = language_corpus_names();
  s.corpus = static_cast<int>(std::find(names.begin(), names.end(), t.task.language.corpus) - names.begin()) %
             static_cast<int>(names.size());
  return s;
}

}  // namespace tw
