#pragma once
// The Training panel's language-model task: its controls (corpus, tokenizer kind and vocabulary, sample interval)
// and what the panel shows for it (held-out bits per character against the unigram and bigram baselines, and the
// samples the model wrote as it trained). The training itself is core's (TaskKind::Language, core/train/trainer.h).

#include <optional>
#include <string>

#include "core/train/language_data.h"
#include "core/train/trainer_session.h"
#include "views/async_job.h"
#include "views/controls.h"
#include "views/train/train_settings.h"

namespace tw {

// The corpora the control offers, by the names core/train/language_data.h takes ("file" last).
const std::vector<std::string>& language_corpus_names();

void bind_language_controls(Controls& c, TrainPanelState& s);
// Whether the language task shows the control `key` (false for keys that are not the language task's own).
bool language_control_shown(const TrainPanelState& s, const std::string& key);

// Bits per character now and the baselines, then the samples, newest first. Draws nothing for other tasks.
void draw_language_run(const TrainSnapshot& snap);

// Builds a language run's data (split, tokenizer training, baselines: core/train/language_data.h) on a worker, so
// choosing a BPE tokenizer never stalls the panel; core caches the data, so the run then starts at once.
class LanguageDataJob {
 public:
  // True when the data of `source` is not built yet: building starts (replacing any earlier request) and the
  // caller starts its run when take() says it is built.
  bool start_if_needed(const LanguageSource& source);
  // When the build of the last request has ended: true, with *error empty when the data is built (and cached), or
  // why not (a failure, or the user's Cancel).
  bool take(std::string* error);
  bool busy() const { return job_.busy(); }
  void wait() { job_.wait(); }
  // The progress bar with Cancel while it builds.
  void draw_progress();

 private:
  struct Built {
    std::string error;  // "" when the data is built (and cached)
  };
  AsyncJob<Built> job_;
  std::optional<LanguageSource> pending_;  // what the running build is for
  bool cancelled_ = false;
};

}  // namespace tw
