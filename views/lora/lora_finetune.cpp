// The LoRA panel's fine-tuning mode: its base model, its new task or text, and the sweep over ranks
// (core/experiments/lora_rank_sweep) on the worker thread.
#include <algorithm>
#include <filesystem>

#include "core/text/corpus.h"
#include "core/train/model_folder.h"
#include "views/lora/lora_state.h"
#include "views/train/train_settings.h"

namespace tw::lora_panel {

namespace {

// The base model of the fine-tuning mode; false + one line when it cannot be had.
bool finetune_base(const LoraState& s, Progress& progress, StepperModel* out, std::string* error) {
  if (s.ft_base == FinetuneBase::TrainingRun) {
    if (!s.run_model) return *error = tr("no model in the Training panel yet: train or load one there"), false;
    *out = *s.run_model;
    return true;
  }
  const std::string dir = shipped_models_dir();
  if (dir.empty()) return *error = tr("the shipped models (assets/models) were not found"), false;
  if (s.ft_base == FinetuneBase::Poems || s.ft_base == FinetuneBase::Quotes)  // as the stepper opens them
    return load_hf_stepper_model(
        dir + (s.ft_base == FinetuneBase::Poems ? "/poems" : "/quotes"), [&](double) { return !progress.cancelled(); },
        out, error);
  return load_task_checkpoint(dir + (s.ft_base == FinetuneBase::Sort ? "/sort" : "/induction"), out, error);
}

// The new text of a language model: the corpus (or the user's file) and its name for titles. Auto: the Song ci for
// every model but quotes, which gets the text file (by default the GPL-3 text, English it never saw).
bool finetune_text(const LoraState& s, LanguageSource* out, std::string* name, std::string* error) {
  FinetuneText text = s.ft_text;
  if (text == FinetuneText::Auto) text = s.ft_base == FinetuneBase::Quotes ? FinetuneText::File : FinetuneText::SongCi;
  if (text != FinetuneText::File) {
    const CorpusId id = text == FinetuneText::SongCi      ? CorpusId::SongCi
                        : text == FinetuneText::TangPoems ? CorpusId::TangPoems
                                                          : CorpusId::EnglishQuotes;
    out->corpus = corpus_info(id).name;
    *name = tr(corpus_info(id).title);
    return true;
  }
  if (s.ft_text_file.empty()) return *error = tr("new text: choose a UTF-8 text file"), false;
  out->corpus = "file";
  *name = std::filesystem::path(s.ft_text_file).filename().string();
  return read_text_file(s.ft_text_file, &out->text, error);
}

}  // namespace

ResultPtr compute_finetune(const LoraState& s, Progress& progress) {
  auto r = std::make_shared<LoraResult>();
  r->mode = LoraMode::Finetune;
  StepperModel base;
  if (!finetune_base(s, progress, &base, &r->ft_error)) return r;
  LoraSweepParams& p = r->ft_params;
  p.model = base.config;
  p.base = base.weights;
  // A language model reads text through its tokenizer.json; a task model reads its task's symbols.
  const bool language_model = !base.tokenizer_json.empty();
  if (s.ft_task == FinetuneTask::Text) {
    if (!language_model) {
      r->ft_error =
          subst(tr("{0} has no tokenizer.json: a new text needs a language model (poems, quotes)"), {base.name});
      return r;
    }
    p.task.kind = TaskKind::Language;
    p.task.context = std::min(32, base.config.max_seq);  // the shipped language models' context; keeps it seconds
    if (!finetune_text(s, &p.task.language, &r->ft_task, &r->ft_error)) return r;
    p.task.language.tokenizer_json = base.tokenizer_json;  // the vocabulary stays the model's
  } else {
    if (language_model) {
      r->ft_error =
          subst(tr("{0} is a language model: fine-tune it on a new text (the toy tasks are for sort and induction)"),
                {base.name});
      return r;
    }
    static const TaskKind kinds[] = {TaskKind::Reverse, TaskKind::Copy, TaskKind::Sort};
    p.task = {.kind = kinds[static_cast<int>(s.ft_task)],
              .length = s.ft_length,
              .alphabet = s.ft_alphabet,
              .val_examples = 128};
    r->ft_task = tr(to_string(p.task.kind));
  }
  p.alpha = s.ft_alpha;
  p.rslora = s.ft_rslora;
  p.steps = s.ft_steps;
  p.batch = s.ft_batch;
  p.lr_lora = s.ft_lr;
  p.lr_full = s.ft_lr_full;
  p.seed = static_cast<uint64_t>(s.seed);
  r->ft_base = base.name;
  r->ft_error = check_lora_sweep(p);
  if (!r->ft_error.empty()) return r;
  r->ft = run_lora_sweep(p, [&progress](float f) {
    progress.set(f);
    return !progress.cancelled();
  });
  return r;
}

}  // namespace tw::lora_panel
