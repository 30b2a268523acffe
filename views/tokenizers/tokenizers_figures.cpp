// The tokenizers panel's figures: the merge candidates, the vocabulary's growth, the token counts and the sentence
// cut by each tokenizer.
#include <algorithm>
#include <string>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/text/token_display.h"
#include "views/tokenizers/tokenizers_state.h"

namespace tw::tokenizers_panel {

using plot::fmt;

const MergeStep* shown_merge(const TokenizerResult& r) {
  if (r.bpe.merges.empty()) return nullptr;
  const int i = std::clamp(r.state.step, 1, static_cast<int>(r.bpe.merges.size())) - 1;
  return &r.bpe.merges[static_cast<size_t>(i)];
}

std::string visible(const std::string& s) { return display_byte_level(s); }

namespace {

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

}  // namespace

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

}  // namespace tw::tokenizers_panel
