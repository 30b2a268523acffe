#pragma once
// The Training panel's language-model task: its controls (corpus, tokenizer kind and vocabulary, sample interval)
// and what the panel shows for it (held-out bits per character against the unigram and bigram baselines, and the
// samples the model wrote as it trained). The training itself is core's (TaskKind::Language, core/train/trainer.h).

#include <string>

#include "core/train/trainer_session.h"
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

}  // namespace tw
