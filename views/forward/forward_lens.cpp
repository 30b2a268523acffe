// The forward stepper's logit-lens figure: core's LogitLens (core/experiments/logit_lens.h) as a labelled heatmap
// of the top token per position per layer, and lines of the probability each layer gives the final prediction.
#include <algorithm>
#include <cstdio>

#include "core/base/i18n.h"
#include "views/forward/forward_state.h"

namespace tw {

namespace {
// Above this many cells the token names would be unreadably small: the heatmap keeps its colours, the CSV the
// tokens.
constexpr int kMaxLabelledCells = 640;
constexpr uint32_t kDarkText = 0x101010FF, kLightText = 0xF4F4F4FF;
}  // namespace

plot::Figure lens_figure(const ForwardResult& r) {
  plot::Figure fig("lens", tr("Logit lens: what each layer would predict"));
  const LogitLens& lens = r.lens;
  const int R = static_cast<int>(lens.rows.size()), T = lens.T;
  if (R == 0 || T == 0) return fig;
  const TokenVocabulary& vocab = r.request.vocab();
  const int first = static_cast<int>(r.run.tokens.size()) - T;  // the lens reads the newest pass
  const std::vector<std::string> positions = token_axis_labels(vocab, r.run.tokens, first, T);

  // Top token per (layer, position): colour = its probability, text = the token.
  plot::Axes& map = fig.add_axes(tr("top token per position and layer (colour: its probability)"));
  map.setup(tr("position:token read"), "", tr("residual stream after"), "");
  plot::HeatmapOptions o;
  o.vmin = 0;
  o.vmax = 1;
  o.value_label = tr("$p$(top token)");
  o.row_labels = lens.rows;
  if (static_cast<int>(positions.size()) == T) o.col_labels = positions;
  map.heatmap(tr("$p$(top token)"), lens.top_prob.data(), R, T, o);
  if (R * T <= kMaxLabelledCells)
    for (int row = 0; row < R; ++row)
      for (int t = 0; t < T; ++t) {
        const double p = lens.top_prob(row, t);
        plot::TextItem& text = map.text(vocab.label(lens.top(row, t)), t, row);
        text.align_x = 0.5f;
        text.color = p > 0.55 ? kDarkText : kLightText;  // viridis is light above ~0.55
      }

  // Probability of the final prediction, layer by layer: at the last position, and averaged over positions.
  plot::Axes& lines = fig.add_axes(tr("probability of the final prediction per layer"));
  lines.setup(tr("residual stream after"), "", tr("$p$(final prediction)"), "");
  lines.x.categories = lens.rows;
  lines.set_y_range(0, 1);
  std::vector<double> xs(static_cast<size_t>(R)), last(static_cast<size_t>(R)), mean(static_cast<size_t>(R));
  for (int row = 0; row < R; ++row) {
    xs[static_cast<size_t>(row)] = row;
    last[static_cast<size_t>(row)] = lens.final_prob(row, T - 1);
    mean[static_cast<size_t>(row)] = lens.final_prob.row(row).mean();
  }
  const std::string predicted = vocab.label(lens.final_token[static_cast<size_t>(T - 1)]);
  lines.line(subst(tr("last position → \"{0}\""), {predicted}), xs, last).style = plot::LineStyle::LineAndMarkers;
  lines.line(subst(tr("mean over the {0} positions"), {std::to_string(T)}), xs, mean).dashed = true;
  lines.flags |= plot::AxesFlags_LegendOutside;
  fig.grid_cols = 1;
  fig.aspect = 1.1f;

  plot::Table table;
  // Token columns as the vocabulary spells them ("Ġthe"), each followed by its display form ("␣the").
  table.header = {"row",       "position",          "token",    "token_display", "top_token_id",
                  "top_token", "top_token_display", "top_prob", "final_token",   "final_token_display",
                  "final_prob"};
  for (int row = 0; row < R; ++row)
    for (int t = 0; t < T; ++t) {
      const int tok = r.run.tokens[static_cast<size_t>(first + t)], top = lens.top(row, t),
                fin = lens.final_token[static_cast<size_t>(t)];
      table.add_row({lens.rows[static_cast<size_t>(row)], static_cast<double>(first + t), vocab.spelling(tok),
                     vocab.label(tok), static_cast<double>(top), vocab.spelling(top), vocab.label(top),
                     lens.top_prob(row, t), vocab.spelling(fin), vocab.label(fin), lens.final_prob(row, t)});
    }
  fig.table = std::move(table);
  fig.note =
      tr("each row: the residual stream after that layer through the final norm and the LM head; the last row "
         "is the model's own output");
  if (R * T > kMaxLabelledCells) fig.note += tr(" (the tokens are in the CSV)");
  return fig;
}

}  // namespace tw
