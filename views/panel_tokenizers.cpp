// Tokenizers: byte-level BPE trained on the user's text, stepped merge by merge, and one sentence cut by BPE,
// WordPiece and Unigram trained on the same text (issue 19).
//
// [SECTION] state
// [SECTION] result and compute (core/text/tokenizer_training, core/text/tokenizer)
// [SECTION] figures
// [SECTION] panel
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
#include "views/widgets.h"

namespace tw {

namespace tokenizers_panel {

const PanelInfo kInfo = {
    "tokenizers", N_("Tokenizers: BPE, WordPiece, Unigram"), N_("Text"),
    N_("Train byte-level BPE merge by merge and compare BPE, WordPiece and Unigram on a sentence")};

using plot::fmt;

// [SECTION] state

constexpr const char* kDefaultText =
    "the lowest of the low and the newest of the new. the widest river is lower than the lowest lake. "
    "newer and newest, wider and widest, lower and lowest: the suffixes -er and -est come back again and again, "
    "so a tokenizer learns them early. the low road is longer than the new road, and the newest road is the widest.";

struct TokenizerState {
  std::string text = kDefaultText;  // training text (used when no file is given)
  std::string file;                 // optional path of a UTF-8 text file to train on instead
  int merges = 60;                  // BPE merges (and WordPiece merges' budget, see vocab)
  int vocab = 80;                   // WordPiece and Unigram vocabulary size
  int step = 12;                    // which BPE merge the figures show (1 … merges)
  std::string sentence = "the newest widest lowest road";
  std::string tokenizer_json;  // optional path of a model's tokenizer.json, compared on the sentence (no model needed)
};

// [SECTION] result and compute

struct Segmentation {
  std::string name;                 // e.g. "BPE, 60 merges"
  std::string label;                // short, for a bar's axis label
  std::vector<std::string> tokens;  // as shown (core/text/token_display): "␣the", "注", "⟨E6 B3⟩"
  std::vector<std::string> raw;     // the vocabulary's own spelling ("Ġthe"), for the CSV
  std::vector<int> ids;             // tokenizer.json ids (empty for the trained WordPiece and Unigram)
  bool from_file = false;           // the tokenizer.json given by path, not one trained here
};

struct TokenizerResult {
  TokenizerState state;  // text replaced by the file's contents when one was read
  std::string error;     // the file or text could not be trained on
  BpeTraining bpe;
  WordPieceTraining wordpiece;
  UnigramTraining unigram;
  std::vector<Segmentation> cuts;  // BPE (all merges), BPE after `step` merges, WordPiece, Unigram
  int words = 0, bytes = 0;        // of the sentence
  std::string file_message;        // the tokenizer.json could not be read (one line), or what it approximates
};
using ResultPtr = std::shared_ptr<const TokenizerResult>;

// The sentence through a tokenizer.json tokenizer: its tokens as shown, as spelled, and their ids.
Segmentation cut_with(const Tokenizer& tok, std::string name, std::string label, const std::string& sentence) {
  Segmentation c{std::move(name), std::move(label), {}, {}, tok.encode(sentence, false)};
  for (const TokenDisplay& d : display_tokens(tok, c.ids)) c.tokens.push_back(d.text);
  for (int id : c.ids) c.raw.push_back(tok.token_string(id));
  return c;
}

Segmentation bpe_cut(const std::string& tokenizer_json, std::string name, std::string label,
                     const std::string& sentence, std::string* error) {
  Tokenizer tok;
  if (!tokenizer_from_json(tokenizer_json, &tok, error)) return {std::move(name), std::move(label), {}, {}, {}};
  return cut_with(tok, std::move(name), std::move(label), sentence);
}

// WordPiece and Unigram tokens as trained here: plain text with ▁ for a space.
Segmentation plain_cut(std::string name, std::vector<std::string> raw) {
  Segmentation c{name, name, {}, std::move(raw), {}};
  for (const std::string& t : c.raw) c.tokens.push_back(display_metaspace(t));
  return c;
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
  r->cuts.push_back(bpe_cut(r->bpe.tokenizer_json, subst(tr("BPE, {0} merges"), {std::to_string(r->bpe.merges.size())}),
                            "BPE", s.sentence, &error));
  r->cuts.push_back(bpe_cut(partial.tokenizer_json, subst(tr("BPE after {0} merges"), {std::to_string(step)}),
                            "BPE@" + std::to_string(step), s.sentence, &error));
  if (!error.empty()) {
    r->error = subst(tr("BPE tokenizer: {0}"), {error});
    return r;
  }
  r->cuts.push_back(plain_cut("WordPiece", wordpiece_encode(r->wordpiece, s.sentence)));
  r->cuts.push_back(plain_cut("Unigram", unigram_encode(r->unigram, s.sentence)));
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

const MergeStep* shown_merge(const TokenizerResult& r) {
  if (r.bpe.merges.empty()) return nullptr;
  const int i = std::clamp(r.state.step, 1, static_cast<int>(r.bpe.merges.size())) - 1;
  return &r.bpe.merges[static_cast<size_t>(i)];
}

// A merge's symbols are spelled in the byte alphabet ('Ġ' for a space): show what they stand for.
std::string visible(const std::string& s) { return display_byte_level(s); }

// Tokens joined by '|' in lines of at most `width` characters (UTF-8 code points), breaking between tokens.
std::vector<std::string> wrap_tokens(const std::vector<std::string>& tokens, int width) {
  std::vector<std::string> lines(1);
  int used = 0;
  for (size_t k = 0; k < tokens.size(); ++k) {
    std::string t = k ? "|" : "";  // appended, not `+`: GCC 12 reports a false -Wrestrict on the + form
    t += tokens[k];
    const int chars = static_cast<int>(utf8_chars(t).size());
    if (used > 0 && used + chars > width) {
      lines.emplace_back();
      used = 0;
    }
    lines.back() += t;
    used += chars;
  }
  return lines;
}

// [SECTION] figures

plot::Figure candidates_figure(const TokenizerResult& r) {
  const MergeStep* m = shown_merge(r);
  const int step = std::clamp(r.state.step, 1, std::max(1, static_cast<int>(r.bpe.merges.size())));
  plot::Figure fig("candidates", subst(tr("BPE merge {0}: the most frequent adjacent pairs"), {std::to_string(step)}));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("pair"), "", tr("occurrences"), "");
  ax.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"rank", "left", "right", "count"};
  if (!m) return fig;
  fig.note = subst(tr("chosen: \"{0}\" + \"{1}\" \xE2\x86\x92 \"{2}\" ({3} times); vocabulary {4}"),
                   {visible(m->left), visible(m->right), visible(m->merged), std::to_string(m->count),
                    std::to_string(m->vocab_size)});
  std::vector<std::string> groups;
  std::vector<double> counts;
  for (size_t i = 0; i < m->candidates.size(); ++i) {
    const PairCount& c = m->candidates[i];
    groups.push_back(visible(c.left) + "+" + visible(c.right));
    counts.push_back(double(c.count));
    t.add_row({double(i + 1), c.left, c.right, double(c.count)});
  }
  ax.bars(groups, {tr("count")}, {counts});
  return fig;
}

plot::Figure growth_figure(const TokenizerResult& r) {
  plot::Figure fig("growth", tr("Merge by merge: the chosen pair's count and the vocabulary"));
  fig.note = tr("BPE starts from 256 bytes, WordPiece from the text's characters and ## forms");
  fig.grid_cols = 2;
  std::vector<double> xs, counts, vocab, wxs, wvocab;
  plot::Table& t = fig.table;
  t.header = {"step", "left", "right", "merged", "count", "vocab_size"};
  for (size_t i = 0; i < r.bpe.merges.size(); ++i) {
    const MergeStep& m = r.bpe.merges[i];
    xs.push_back(double(i + 1));
    counts.push_back(double(m.count));
    vocab.push_back(m.vocab_size);
    t.add_row({double(i + 1), m.left, m.right, m.merged, double(m.count), double(m.vocab_size)});
  }
  for (size_t i = 0; i < r.wordpiece.merges.size(); ++i) {
    wxs.push_back(double(i + 1));
    wvocab.push_back(r.wordpiece.merges[i].vocab_size);
  }
  const double step = std::clamp(r.state.step, 1, std::max(1, static_cast<int>(r.bpe.merges.size())));
  plot::Axes& a = fig.add_axes(tr("count of the merged pair (BPE)"));
  a.setup(tr("merge"), "", tr("occurrences"), "");
  a.flags |= plot::AxesFlags_NoLegend;
  a.step(tr("count"), xs, counts);
  a.vline(tr("shown"), step);
  plot::Axes& b = fig.add_axes(tr("vocabulary size"));
  b.setup(tr("merge"), "", tr("tokens"), "");
  b.flags |= plot::AxesFlags_LegendOutside;
  b.line("BPE", xs, vocab).width = 2.5f;
  b.line("WordPiece", wxs, wvocab);
  b.vline(tr("shown"), step);
  return fig;
}

plot::Figure counts_figure(const TokenizerResult& r) {
  plot::Figure fig("counts", tr("The sentence under each tokenizer"));
  fig.note = subst(tr("\"{0}\": {1} words, {2} bytes; all trained on the same text"),
                   {r.state.sentence, std::to_string(r.words), std::to_string(r.bytes)});
  fig.grid_cols = 2;
  std::vector<std::string> names;
  std::vector<double> tokens, per_word, per_byte;
  plot::Table& t = fig.table;
  t.header = {"tokenizer", "tokens", "tokens_per_word", "tokens_per_byte", "segmentation"};
  for (const Segmentation& c : r.cuts) {
    const double n = double(c.tokens.size());
    std::string joined;
    for (const std::string& tok : c.tokens) {
      if (!joined.empty()) joined += " | ";
      joined += tok;
    }
    names.push_back(c.label);
    tokens.push_back(n);
    per_word.push_back(r.words > 0 ? n / r.words : 0.0);
    per_byte.push_back(r.bytes > 0 ? n / r.bytes : 0.0);
    t.add_row({c.name, n, per_word.back(), per_byte.back(), joined});
  }
  plot::Axes& a = fig.add_axes(tr("tokens"));
  a.setup("", "", tr("tokens"), "");
  a.flags |= plot::AxesFlags_NoLegend;
  a.bars(names, {tr("tokens")}, {tokens});
  plot::Axes& b = fig.add_axes(tr("per word, per byte"));
  b.setup("", "", tr("ratio"), "");
  b.bars(names, {tr("per word"), tr("per byte")}, {per_word, per_byte});
  return fig;
}

plot::Figure segmentation_figure(const TokenizerResult& r) {
  plot::Figure fig("segmentation", tr("Segmentation of the sentence (token boundaries as |)"));
  plot::Axes& ax = fig.axes();
  ax.flags |= plot::AxesFlags_NoGrid | plot::AxesFlags_NoLegend;
  ax.x.hide = true;
  ax.y.hide = true;
  ax.set_x_range(-0.02, 1);
  plot::Table& t = fig.table;
  t.header = {"tokenizer", "index", "token", "token_display", "id"};
  // One text line per row of the axes: a tokenizer's name, then its tokens wrapped to fit a figure's width.
  double y = 0;
  for (const Segmentation& c : r.cuts) {
    for (size_t k = 0; k < c.tokens.size(); ++k)
      t.add_row({c.name, double(k), k < c.raw.size() ? c.raw[k] : c.tokens[k], c.tokens[k],
                 k < c.ids.size() ? double(c.ids[k]) : -1.0});
    ax.text(subst(trn("{0} ({1} token):", "{0} ({1} tokens):", c.tokens.size()),
                  {c.name, std::to_string(c.tokens.size())}),
            0.0, y++)
        .align_y = 0.5f;
    for (const std::string& line : wrap_tokens(c.tokens, 34)) ax.text(line, 0.04, y++).align_y = 0.5f;
  }
  ax.set_y_range(-0.7, std::max(1.0, y - 0.3));
  ax.y.invert = true;
  return fig;
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
    const bool file_cut = std::any_of(r->cuts.begin(), r->cuts.end(), [](const Segmentation& c) { return c.from_file; });
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
