// Tokenizers: byte-level BPE trained on the user's text, stepped merge by merge, and one sentence cut by BPE,
// WordPiece and Unigram trained on the same text (issue 19).
//
// [SECTION] result and compute (core/text/tokenizer_training, core/text/tokenizer)
// [SECTION] panel
// The state, the result and the figures are in views/tokenizers/.
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "core/base/i18n.h"
#include "core/base/read_file.h"
#include "core/base/utf8.h"
#include "core/text/token_display.h"
#include "core/text/tokenizer.h"
#include "core/text/tokenizer_training.h"
#include "views/presenter_keys.h"
#include "views/recompute.h"
#include "views/tokenizers/tokenizers_state.h"
#include "views/widgets.h"

namespace tw {

namespace tokenizers_panel {

const PanelInfo kInfo = {
    "tokenizers", N_("Tokenizers: BPE, WordPiece, Unigram"), N_("Text"),
    N_("Train byte-level BPE merge by merge and compare BPE, WordPiece and Unigram on a sentence")};

using plot::fmt;

// [SECTION] result and compute

using ResultPtr = std::shared_ptr<const TokenizerResult>;

// The sentence through a tokenizer.json tokenizer: its tokens as shown, as spelled, and their ids.
Segmentation cut_with(const Tokenizer& tok, std::string name, std::string label, const std::string& sentence) {
  Segmentation c{std::move(name), std::move(label), {}, {}, tok.encode(sentence, false)};
  for (int id : c.ids) c.raw.push_back(tok.token_string(id));
  // WordPiece as BERT's tokenize() writes it ("low", "##est"): the "##" is where the word goes on, and without it
  // the words of the sentence would run together.
  if (tok.model() == TokenizerModel::WordPiece)
    c.tokens = c.raw;
  else
    for (const TokenDisplay& d : display_tokens(tok, c.ids)) c.tokens.push_back(d.text);
  return c;
}

Segmentation trained_cut(const std::string& tokenizer_json, std::string name, std::string label,
                         const std::string& sentence, std::string* error) {
  Tokenizer tok;
  if (!tokenizer_from_json(tokenizer_json, &tok, error)) return {std::move(name), std::move(label), {}, {}, {}};
  return cut_with(tok, std::move(name), std::move(label), sentence);
}

const char* model_name(TokenizerModel m) {
  switch (m) {
    case TokenizerModel::BPE: return "BPE";
    case TokenizerModel::WordPiece: return "WordPiece";
    case TokenizerModel::Unigram: return "Unigram";
  }
  return "";
}

ResultPtr compute(const TokenizerState& s, Progress& progress) {
  auto r = std::make_shared<TokenizerResult>();
  r->state = s;
  std::string text = s.text;
  if (!s.file.empty()) {
    // The bounded reader: a FIFO is refused at once, and a file over the training cap is refused before reading.
    if (std::string why; !read_file_bounded(s.file, kMaxTrainingTextBytes, &text, &why)) {
      r->error = why + tr(" (check the path, or clear it to train on the text box)");
      return r;
    }
    if (std::string bad = utf8_error(text, "\"" + s.file + "\""); !bad.empty()) {
      r->error = bad;
      return r;
    }
  }
  r->state.text = text;
  const std::atomic<bool>* cancel = progress.cancel_flag();
  std::string error;
  if (!train_bpe(text, s.merges, &r->bpe, &error, cancel)) {
    r->error = progress.cancelled() ? tr("Training cancelled.") : "BPE: " + error;
    return r;
  }
  progress.set(0.3f);
  if (!train_wordpiece(text, s.vocab, &r->wordpiece, &error, cancel)) {
    r->error = progress.cancelled() ? tr("Training cancelled.") : "WordPiece: " + error;
    return r;
  }
  progress.set(0.5f);
  if (!train_unigram(text, s.vocab, &r->unigram, &error, cancel)) {
    r->error = progress.cancelled() ? tr("Training cancelled.") : "Unigram: " + error;
    return r;
  }
  progress.set(0.8f);
  // The same merges cut short at the shown step: the first `step` merges of a longer run are the same merges.
  const int step = std::clamp(s.step, 1, std::max(1, static_cast<int>(r->bpe.merges.size())));
  BpeTraining partial;
  if (!train_bpe(text, step, &partial, &error, cancel)) {
    r->error = progress.cancelled() ? tr("Training cancelled.") : "BPE: " + error;
    return r;
  }
  // Each trained tokenizer as the tokenizer.json it wrote, encoded by the tokenizer that loads real models.
  const struct {
    const std::string& json;
    std::string name, label;
  } trained[] = {
      {r->bpe.tokenizer_json, subst(tr("BPE, {0} merges"), {std::to_string(r->bpe.merges.size())}), "BPE"},
      {partial.tokenizer_json, subst(tr("BPE after {0} merges"), {std::to_string(step)}),
       "BPE@" + std::to_string(step)},
      {r->wordpiece.tokenizer_json, "WordPiece", "WordPiece"},
      {r->unigram.tokenizer_json, "Unigram", "Unigram"},
  };
  for (const auto& t : trained) {
    r->cuts.push_back(trained_cut(t.json, t.name, t.label, s.sentence, &error));
    if (!error.empty()) {
      r->error = subst(tr("{0} tokenizer: {1}"), {t.label, error});
      return r;
    }
  }
  // A real model's tokenizer.json beside them, when a path is given: a file that cannot be read is reported
  // in one line and the trained tokenizers still show.
  if (!s.tokenizer_json.empty()) {
    Tokenizer tok;
    std::string file_error;
    if (load_tokenizer(s.tokenizer_json, &tok, &file_error)) {
      const std::string base = std::filesystem::path(s.tokenizer_json).parent_path().filename().string();
      const std::string name = (base.empty() ? std::string("tokenizer.json") : base) + " (" + model_name(tok.model()) +
                               ", " + std::to_string(tok.vocab_size()) + ")";
      // A step of the file that gives up on the sentence (a regex past its time limit, ...) is named, not hung on.
      std::vector<int> checked;
      std::string encode_error;
      if (!s.sentence.empty() && !tok.encode_checked(s.sentence, false, &checked, &encode_error)) {
        r->file_message = encode_error;
      } else {
        r->cuts.push_back(cut_with(tok, name, base.empty() ? "file" : base, s.sentence));
        r->cuts.back().from_file = true;
        r->file_message = tok.note();
      }
    } else {
      r->file_message = file_error;
    }
  }
  r->words = count_words(s.sentence);
  r->bytes = static_cast<int>(s.sentence.size());
  return r;
}

std::string error_of(const TokenizerResult& r) { return r.error; }
// A file may be large: read it on the worker. The default text (a paragraph, 60 merges) is milliseconds.
bool quick(const TokenizerState& s) {
  return s.file.empty() && tokenizer_training_work(s.text.size(), s.merges, s.vocab) < 1e6;
}

// [SECTION] panel

class TokenizersPanel final : public RecomputePanel<TokenizerState, TokenizerResult> {
 public:
  TokenizersPanel()
      : RecomputePanel(
            kInfo, two_by_two("candidates", "growth", "counts", "segmentation"),
            {compute, error_of, {candidates_figure, growth_figure, counts_figure, segmentation_figure}, quick}) {}

  // A tokenizer.json that could not be read or gave up on the sentence leaves the trained tokenizers standing;
  // export says why the file's row is missing instead of writing the figures without it in silence.
  std::string problem() const override {
    const auto& r = result();
    if (!r) return "";
    if (!r->error.empty()) return r->error;
    if (r->state.tokenizer_json.empty() || r->file_message.empty()) return "";
    const bool file_cut =
        std::any_of(r->cuts.begin(), r->cuts.end(), [](const Segmentation& c) { return c.from_file; });
    return file_cut ? "" : subst(tr("tokenizer.json not shown: {0}"), {r->file_message});
  }

 protected:
  void prepare() override { s_.step = std::clamp(s_.step, 1, std::max(1, s_.merges)); }

  void after_control(const Control& c) override {
    if (c.key != "step") return;
    if (ImGui::SmallButton(tr("\xE2\x97\x80 previous"))) s_.step = std::max(1, s_.step - 1);
    ImGui::SameLine();
    if (ImGui::SmallButton(tr("next \xE2\x96\xB6"))) s_.step = std::min(s_.merges, s_.step + 1);
    ImGui::SameLine();
    help_marker(tr(
        "One merge back or forward; the \xE2\x86\x90 and \xE2\x86\x92 keys do the same while this window has focus."));
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::IsAnyItemActive())
      apply_presenter_step(take_presenter_step(), &s_.step, 1, s_.merges);
  }

  void draw_summary(const TokenizerResult& r) override {
    ImGui::Separator();
    if (const MergeStep* m = shown_merge(r))
      ImGui::TextWrapped(tr("merge %d: \"%s\" + \"%s\" \xE2\x86\x92 \"%s\" (%lld times), vocabulary %d"),
                         std::clamp(r.state.step, 1, int(r.bpe.merges.size())), visible(m->left).c_str(),
                         visible(m->right).c_str(), visible(m->merged).c_str(), static_cast<long long>(m->count),
                         m->vocab_size);
    if (static_cast<int>(r.bpe.merges.size()) < r.state.merges)
      warning_text(subst(tr("the text supports only {0} merges"), {std::to_string(r.bpe.merges.size())}).c_str());

    ImGui::TextUnformatted(subst(tr("Unigram: {0} tokens kept of {1} seed substrings"),
                                 {std::to_string(r.unigram.tokens.size()), std::to_string(r.unigram.seed_size)})
                               .c_str());
    if (!r.state.tokenizer_json.empty()) {
      if (!r.file_message.empty()) warning_text(r.file_message.c_str());
      for (const Segmentation& c : r.cuts) {
        if (!c.from_file) continue;
        std::string ids;
        for (int id : c.ids) {
          if (!ids.empty()) ids += ' ';  // appended, not `+`: GCC 12 reports a false -Wrestrict on the + form
          ids += std::to_string(id);
        }
        ImGui::TextWrapped("%s", subst(tr("{0}: ids {1}"), {c.name, ids}).c_str());
        ImGui::TextWrapped(
            "%s", subst(tr("{0} tokens, {1} per word, {2} per byte"),
                        {std::to_string(c.ids.size()), fmt("%.3f", r.words > 0 ? double(c.ids.size()) / r.words : 0.0),
                         fmt("%.3f", r.bytes > 0 ? double(c.ids.size()) / r.bytes : 0.0)})
                      .c_str());
      }
    }
  }

  void bind(Controls& c) override {
    c.add_text("text", &s_.text, 8192, N_("training text"), N_("The text all three tokenizers are trained on."));
    c.add_text(
        "file", &s_.file, 1024, N_("or text file"),
        N_("Path of a UTF-8 text file (at most 256 KiB) to train on instead of the text box; empty = text box."));
    c.add_int("merges", &s_.merges, 1, 4096, N_("BPE merges"), N_("How many merges byte-level BPE learns."), true);
    c.add_int("vocab", &s_.vocab, 1, 4096, N_("vocabulary (WP, Unigram)"),
              N_("Target vocabulary size of WordPiece and Unigram (they start from the text's characters)."), true);
    c.add_int("step", &s_.step, 1, 4096, N_("merge shown"), N_("Which BPE merge the figures show (1 = the first)."));
    c.add_text("sentence", &s_.sentence, 512, N_("sentence"), N_("The sentence each tokenizer cuts into tokens."));
    c.add_text("tokenizer_json", &s_.tokenizer_json, 1024, N_("tokenizer.json"),
               N_("Path of a model's tokenizer.json (Llama 3, Qwen3, Gemma 3, GPT-4o, BERT, T5, ...) to cut the "
                  "sentence with beside the tokenizers trained here; no model is needed. Empty = none."));
  }
};

}  // namespace tokenizers_panel

TW_REGISTER_PANEL(tokenizers_panel::TokenizersPanel);

}  // namespace tw
