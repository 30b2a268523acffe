// The language-model task in the Training panel (views/train/train_language.h).
#include "views/train/train_language.h"

#include <imgui.h>

#include <cmath>

#include "core/base/i18n.h"
#include "core/base/text_in_use.h"
#include "core/train/language_data.h"
#include "views/widgets.h"

namespace tw {

const std::vector<std::string>& language_corpus_names() {
  static const std::vector<std::string> names = {"tang300", "song100", "quotes", "file"};
  return names;
}

void bind_language_controls(Controls& c, TrainPanelState& s) {
  c.add_enum("corpus", &s.corpus, {N_("tang300"), N_("song100"), N_("quotes"), N_("file")}, N_("corpus"),
             N_("language: 300 Tang poems, 100 Song ci (Debian fortunes-zh), English quotations (fortunes), or your "
                "own UTF-8 text file (text file below). Every tenth record is held out and never trained on."));
  c.add_enum("tokenizer", &s.task.language.tokenizer, LmTokenizerKind::Bpe, N_("tokenizer"),
             N_("character: each character one token, rare ones as their UTF-8 bytes (good for Chinese); bpe: "
                "byte-level BPE trained on the training part (good for English)."));
  c.add_int("lm_vocab", &s.task.language.vocab_size, 257, 8192, N_("tokenizer vocabulary"),
            N_("Tokens of the tokenizer: 256 bytes plus characters (character) or merges (bpe)."), true);
  c.add_int("sample_every", &s.sample_every, 0, 100000, N_("sample every"),
            N_("Steps between samples of the model's text (temperature 0.8, same seed each time); 0 = never."), true);
}

bool language_control_shown(const TrainPanelState& s, const std::string& key) {
  const bool lm = s.task.kind == TaskKind::Language;
  if (key == "corpus" || key == "tokenizer" || key == "lm_vocab" || key == "sample_every") return lm;
  if (key == "text_file") return lm && s.corpus == static_cast<int>(language_corpus_names().size()) - 1;
  if (key == "context") return lm;
  return false;
}

void draw_language_run(const TrainSnapshot& snap) {
  const std::shared_ptr<const LanguageData>& lm = snap.task.language();
  if (!lm) return;
  double bits = kNoValue;
  for (auto it = snap.history.rbegin(); it != snap.history.rend(); ++it)
    if (!std::isnan(it->bits_per_char)) {
      bits = it->bits_per_char;
      break;
    }
  const std::string now = std::isnan(bits) ? "–" : subst("{0}", {std::to_string(bits).substr(0, 5)});
  ImGui::TextWrapped(
      "%s", subst(tr("held-out bits per character: {0}   (unigram {1}, bigram {2})"),
                  {now, std::to_string(lm->unigram_bits).substr(0, 5), std::to_string(lm->bigram_bits).substr(0, 5)})
                .c_str());
  ImGui::SameLine();
  help_marker(
      tr("Total $-\\log_2 p$ of every held-out token divided by the held-out characters; the baselines are "
         "unigram and bigram models (Witten–Bell) of the same tokens counted on the same training part."));
  ImGui::TextDisabled(
      "%s", subst(tr("{0} training records, {1} held out ({2} characters), vocabulary {3}; {4}"),
                  {std::to_string(lm->train_records), std::to_string(lm->heldout_records),
                   std::to_string(lm->heldout_chars), std::to_string(lm->tokenizer.vocab_size()), lm->licence})
                .c_str());
  if (snap.samples.empty()) return;
  ImGui::TextUnformatted(tr("Samples (temperature 0.8):"));
  ImGui::BeginChild("##lm_samples", ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * 9), true);
  for (auto it = snap.samples.rbegin(); it != snap.samples.rend(); ++it) {
    ImGui::TextDisabled("%s", subst(tr("step {0}"), {std::to_string(it->step)}).c_str());
    note_text_in_use(it->text);  // the font atlas gets its characters (Han characters are added on demand)
    ImGui::TextWrapped("%s", it->text.c_str());
  }
  ImGui::EndChild();
}

// [SECTION] building the data on a worker

bool LanguageDataJob::start_if_needed(const LanguageSource& source) {
  if (language_data_ready(source)) return false;
  if (pending_ && job_.busy() && pending_->corpus == source.corpus && pending_->tokenizer == source.tokenizer &&
      pending_->vocab_size == source.vocab_size && pending_->text == source.text)
    return true;  // another setting changed while this data builds: keep building it
  pending_ = source;
  cancelled_ = false;
  job_.request([source](Progress& p) {
    std::shared_ptr<const LanguageData> data;
    Built b;
    if (!load_language_data(source, &data, &b.error, p.cancel_flag(), p.fraction_target()) && b.error.empty())
      b.error = tr("the language data could not be built");
    return b;
  });
  return true;
}

bool LanguageDataJob::take(std::string* error) {
  if (!pending_ || job_.busy()) return false;
  const bool fresh = job_.poll();
  const Built* b = job_.latest();
  if (cancelled_ || !fresh || !b) {
    *error = cancelled_ ? tr("Tokenizer training cancelled: the previous run stays; change a setting to try again.")
                        : job_.failure();
    if (error->empty()) *error = tr("the language data could not be built");
  } else {
    *error = b->error;
  }
  pending_.reset();
  return true;
}

void LanguageDataJob::draw_progress() {
  if (!job_.busy()) return;
  const std::string label =
      pending_ && pending_->tokenizer == LmTokenizerKind::Bpe
          ? subst(tr("training the BPE tokenizer ({0} tokens)"), {std::to_string(pending_->vocab_size)})
          : std::string(tr("preparing the corpus"));
  if (job_progress(job_.progress(), label.c_str())) {
    cancelled_ = true;
    job_.cancel();
  }
}

}  // namespace tw
