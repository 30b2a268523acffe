// The n-gram panel's figures, built from core's n-gram counts, Kneser–Ney and the shipped models' cards.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "views/ngram/ngram_state.h"

namespace tw::ngram_panel {

plot::Figure bits_figure(const NgramResult& r) {
  plot::Figure fig("bits", subst(tr("Held-out bits per character of {0}"), {tr(corpus_info(r.state.corpus).title)}));
  fig.note = subst(tr("{0} training and {1} held-out characters (every tenth record held out); {2} symbols"),
                   {std::to_string(r.train_chars), std::to_string(r.heldout_chars), std::to_string(r.vocab)});
  if (r.orders_pending) fig.note += "\n" + std::string(tr("(counting orders 3 to 5...)"));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("order $n$"), "", tr("bits per character"), "");
  std::vector<double> ns, wb, kn, addk, train;
  for (const OrderResult& o : r.orders) {
    ns.push_back(o.n);
    wb.push_back(o.heldout_wb);
    kn.push_back(o.heldout_kn);
    addk.push_back(o.heldout_addk);
    train.push_back(o.train_wb);
  }
  ax.line(tr("held-out, Witten–Bell interpolation"), ns, wb).style = plot::LineStyle::LineAndMarkers;
  // Kneser–Ney comes with orders 3 … 5 (core/experiments/ngram_baselines.h): its best order, and what characters
  // never seen in training cost it (Witten–Bell gives them one UNK symbol's probability instead).
  const OrderResult* best_kn = nullptr;
  for (const OrderResult& o : r.orders)
    if (std::isfinite(o.heldout_kn) && (!best_kn || o.heldout_kn < best_kn->heldout_kn)) best_kn = &o;
  if (best_kn) {
    ax.line(tr("held-out, Kneser–Ney (modified, interpolated)"), ns, kn).style = plot::LineStyle::LineAndMarkers;
    fig.note +=
        tr("; ") + subst(tr("Kneser–Ney's best, $n$ = {0}: {1} bits per character, {2} of them for the {3} "
                            "characters never seen in training"),
                         {std::to_string(best_kn->n), plot::fmt("%.3f", best_kn->heldout_kn),
                          plot::fmt("%.3f", best_kn->heldout_kn_unseen), std::to_string(best_kn->unseen_chars)});
  }
  ax.line(subst(tr("held-out, add-$k$ ($k$ = {0})"), {plot::fmt("%.3g", r.state.k)}), ns, addk).style =
      plot::LineStyle::LineAndMarkers;
  ax.line(tr("training text, Witten–Bell"), ns, train).dashed = true;
  if (r.model) {
    ax.hline(subst(tr("{0}: {1} bits per character"), {r.model_name, plot::fmt("%.3f", r.model->bits_per_char)}),
             r.model->bits_per_char);
    fig.note += "\n" + subst(tr("the transformer scored on the first {0} held-out characters ({1} records)"),
                             {std::to_string(r.model->chars), std::to_string(r.model->records)});
  } else if (!r.model_error.empty()) {
    fig.note += "\n" + subst(tr("Model not scored: {0}"), {r.model_error});
  }
  ax.hline(subst(tr("uniform: $\\log_2 V$ = {0}"), {plot::fmt("%.2f", std::log2(double(r.vocab)))}),
           std::log2(double(r.vocab)));
  plot::Table& t = fig.table;
  t.header = {"n",
              "heldout_bits_witten_bell",
              "heldout_bits_add_k",
              "train_bits_witten_bell",
              "heldout_perplexity_witten_bell",
              "heldout_bits_kneser_ney"};
  for (const OrderResult& o : r.orders)
    t.add_row({double(o.n), o.heldout_wb, o.heldout_addk, o.train_wb, std::exp2(o.heldout_wb), o.heldout_kn});
  return fig;
}

plot::Figure sparsity_figure(const NgramResult& r) {
  plot::Figure fig("sparsity", tr("Why counting runs out: the table gets sparse"));
  fig.note = tr("a neural model shares what it learns between similar contexts; a count table cannot");
  if (r.orders_pending) fig.note += std::string(" ") + tr("(counting orders 3 to 5...)");
  fig.grid_cols = 2;
  std::vector<double> ns, unseen, distinct;
  for (const OrderResult& o : r.orders) {
    ns.push_back(o.n);
    unseen.push_back(o.unseen);
    distinct.push_back(double(o.distinct));
  }
  plot::Axes& a = fig.add_axes(tr("held-out $n$-grams never seen in training"));
  a.setup(tr("order $n$"), "", tr("fraction"), "");
  a.set_y_range(0, 1);
  a.line(tr("unseen"), ns, unseen).style = plot::LineStyle::LineAndMarkers;
  a.flags |= plot::AxesFlags_NoLegend;
  plot::Axes& b = fig.add_axes(tr("distinct $n$-grams in training"));
  b.setup(tr("order $n$"), "", tr("count"), "");
  b.y.scale = plot::Scale::Log10;
  b.line(tr("distinct"), ns, distinct).style = plot::LineStyle::LineAndMarkers;
  b.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"n", "distinct_ngrams", "heldout_unseen_fraction"};
  for (const OrderResult& o : r.orders) t.add_row({double(o.n), double(o.distinct), o.unseen});
  return fig;
}

namespace {

// A sample on one line: line breaks shown as " / ".
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string(" / ") : std::string(1, c);
  return out;
}

}  // namespace

plot::Figure samples_figure(const NgramResult& r) {
  plot::Figure fig("samples", tr("Samples from each order (Witten–Bell, temperature 1)"));
  fig.note = subst(tr("seed {0}; the first 60 characters; \" / \" is a line break"), {std::to_string(r.state.seed)});
  if (r.samples_pending) fig.note += std::string(" ") + tr("(drawing the samples...)");
  if (r.orders_pending) fig.note += std::string(" ") + tr("(counting orders 3 to 5...)");
  plot::Axes& ax = fig.axes();
  ax.x.hide = ax.y.hide = true;
  ax.flags |= plot::AxesFlags_NoGrid | plot::AxesFlags_NoLegend;
  ax.set_x_range(0, 1).set_y_range(0, double(r.orders.size()) + 0.5);
  plot::Table& t = fig.table;
  t.header = {"n", "sample"};
  for (const OrderResult& o : r.orders) {
    const double y = double(r.orders.size()) - o.n + 1;
    ax.text(subst(tr("$n = {0}$: {1}"), {std::to_string(o.n), one_line(o.sample)}), 0.01, y);
    t.add_row({double(o.n), o.sample});
  }
  return fig;
}

plot::Figure masked_figure(const NgramResult& r) {
  const MaskedComparison& m = r.masked;
  plot::Figure fig("masked", tr("Causal vs bidirectional: probability of each true character"));
  fig.note =
      tr("causal: two characters before (it can generate); bidirectional: one before and one after, as a "
         "masked model like BERT sees them (it cannot generate)");
  plot::Axes& ax = fig.axes();
  fig.aspect = 0.55f;
  ax.setup(tr("character"), "", tr("probability"), "");
  ax.set_y_range(0, 1);
  if (r.orders_pending) {  // the trigram is not counted yet
    fig.note += "\n" + std::string(tr("(counting orders 3 to 5...)"));
    ax.flags |= plot::AxesFlags_NoLegend;
    return fig;
  }
  ax.x.categories = m.chars;
  std::vector<double> xs;
  for (size_t i = 0; i < m.chars.size(); ++i) xs.push_back(double(i));
  ax.line(tr("causal (trigram)"), xs, m.p_causal).style = plot::LineStyle::LineAndMarkers;
  // The bidirectional model has no right neighbour at END: its line stops one position earlier.
  const size_t inner = m.chars.empty() ? 0 : m.chars.size() - 1;
  ax.line(tr("bidirectional (masked)"), std::vector<double>(xs.begin(), xs.begin() + long(inner)),
          std::vector<double>(m.p_bidirectional.begin(), m.p_bidirectional.begin() + long(inner)))
      .style = plot::LineStyle::LineAndMarkers;
  plot::Table& t = fig.table;
  t.header = {"position", "char", "p_causal", "p_bidirectional"};
  for (size_t i = 0; i < m.chars.size(); ++i) t.add_row({double(i), m.chars[i], m.p_causal[i], m.p_bidirectional[i]});
  return fig;
}

// The corpora above are small enough to count live; the shipped transformers were trained on millions of
// characters. This figure compares each of them with Kneser–Ney counted on that same training part and scored on
// the same held-out text, never trained on: the numbers of its model card, computed by this app offline.
plot::Figure transformer_figure(const NgramResult& r) {
  plot::Figure fig("transformer", tr("The shipped transformers against Kneser–Ney on their own held-out text"));
  fig.grid_cols = 1;  // one model per row: the six bars' labels stay horizontal
  fig.cell_aspect = 0.42f;
  plot::Table& t = fig.table;
  t.header = {"model", "heldout_chars", "order", "heldout_bits_kneser_ney", "heldout_bits_transformer"};
  std::vector<std::string> sizes;
  for (const ShippedLanguageModel& lm : r.shipped ? *r.shipped : std::vector<ShippedLanguageModel>{}) {
    const ModelCard& c = lm.card;
    if (c.kneser_ney_bits.empty() || c.heldout_bits_per_char <= 0) continue;
    const std::string corpus = c.corpus.empty() ? lm.name : tr(c.corpus.c_str());
    const std::string below = plot::fmt("%.1f", percent_below_best_kneser_ney(c));
    // xgettext:no-c-format
    plot::Axes& ax = fig.add_axes(subst(tr("{0}: the transformer {1}% below the best $n$-gram"), {corpus, below}));
    ax.setup(tr("Kneser–Ney of order $n$, and the transformer"), "", tr("bits per character"), "");
    // One bar per Kneser–Ney order and the transformer's beside them, its level drawn across to compare each with.
    std::vector<std::string> groups;
    for (size_t n = 1; n <= c.kneser_ney_bits.size(); ++n) groups.push_back(std::to_string(n));
    groups.push_back(tr("transformer"));
    std::vector<double> bits = c.kneser_ney_bits;
    bits.push_back(c.heldout_bits_per_char);
    ax.bars(groups, {tr("bits per character")}, {bits});
    ax.flags |= plot::AxesFlags_NoLegend;
    ax.hline("", c.heldout_bits_per_char);
    if (c.heldout_chars > 0) sizes.push_back(corpus + " " + std::to_string(c.heldout_chars));
    for (size_t n = 0; n < c.kneser_ney_bits.size(); ++n)
      t.add_row({lm.name, double(c.heldout_chars), double(n + 1), c.kneser_ney_bits[n], c.heldout_bits_per_char});
  }
  if (fig.grid.empty()) {
    fig.note = tr("No shipped language model's card gives Kneser–Ney numbers (assets/models/*/README.md).");
    return fig;
  }
  std::string joined;
  for (const std::string& x : sizes) joined += (joined.empty() ? "" : tr(", ")) + x;
  fig.note = subst(tr("bits per character on held-out text never trained on ({0} characters); Kneser–Ney counted on "
                      "the same training part"),
                   {joined});
  return fig;
}

plot::Figure masks_figure(const NgramResult& r) {
  const std::vector<std::string>& chars = r.masked.chars;
  const int T = static_cast<int>(chars.size());
  plot::Figure fig("masks", tr("Which characters each position may look at"));
  fig.note =
      tr("decoder-only (causal): the past only; encoder-only (bidirectional): everything but itself, which is "
         "masked out as the prediction target");
  if (T == 0) fig.note += "\n" + std::string(tr("(counting orders 3 to 5...)"));
  fig.grid_cols = 2;
  fig.aspect = 0.6f;
  for (int bidirectional = 0; bidirectional < 2; ++bidirectional) {
    plot::Axes& ax = fig.add_axes(bidirectional ? tr("bidirectional (BERT)") : tr("causal (GPT, LLaMA)"));
    ax.setup(tr("key"), "", tr("predicting"), "");
    if (T == 0) continue;  // the first answer of a corpus: the record is compared once orders 3 … 5 are counted
    std::vector<double> v(size_t(T) * T);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) v[size_t(i) * T + j] = bidirectional ? (i != j) : (j < i);
    ax.heatmap(tr("visible"), v.data(), T, T,
               {.colormap = plot::Colormap::Viridis,
                .vmin = 0,
                .vmax = 1,
                .value_label = tr("visible"),
                .row_labels = chars,
                .col_labels = chars,
                .levels = {tr("hidden"), tr("visible")}});
  }
  return fig;
}

}  // namespace tw::ngram_panel
