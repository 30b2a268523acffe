// Figures of the forward stepper: the current step, a layer's strip of steps, the residual stream, the
// parameter table. Plain plot::Figure values built from core results; the panel draws them and `export` writes them.
#include <algorithm>
#include <cstdio>

#include "core/base/i18n.h"
#include "core/model/weights.h"
#include "views/forward/forward_state.h"

namespace tw {

namespace {

std::string si(double v) {
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.3g G", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3g M", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.3g k", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3g ", v);
  return buf;
}

// The symbol of the last logical dimension tells what a column of a (T, ·) heatmap is.
std::string column_axis_label(const TraceStep& s) {
  if (s.shape.size() == 3) return tr("head · dim  (column $h D + d$)");
  if (s.shape.empty()) return tr("column");
  const std::string& sym = s.shape.back().symbol;
  if (sym == "C") return tr("channel");
  if (sym == "F") return tr("hidden unit");
  if (sym == "V") return tr("token id (next-token logit)");
  return tr(s.shape.back().meaning.c_str());
}

bool is_probs(const TraceStep& s) {
  return s.name.size() >= 10 && s.name.compare(s.name.size() - 10, 10, "attn.probs") == 0;
}

bool ends_with(const std::string& name, const char* tail) {
  const std::string t(tail);
  return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
}

// A MoE routing step of shape (T, E) whose values lie in [0, 1]: the router's probabilities or the k gates.
bool is_routing_probs(const TraceStep& s) {
  return ends_with(s.name, "mlp.router_probs") || ends_with(s.name, "mlp.expert_gates");
}

// A step with one value per expert, shape (E): the load or the dropped assignments of a MoE block.
bool is_per_expert(const TraceStep& s) { return s.shape.size() == 1 && s.shape[0].symbol == "E"; }

plot::HeatmapOptions map_options(const TraceStep& s) {
  plot::HeatmapOptions o;
  if (is_probs(s) || is_routing_probs(s)) {  // probabilities and gates: a sequential scale fixed to [0, 1]
    o.colormap = plot::Colormap::Viridis;
    o.vmin = 0;
    o.vmax = 1;
    o.value_label = ends_with(s.name, "mlp.expert_gates") ? tr("gate") : tr("probability");
  } else if (is_attention_map(s)) {
    o.colormap = plot::Colormap::Diverging;
    o.value_label = tr("score");
  } else {
    o.colormap = plot::Colormap::Diverging;
    o.value_label = tr("value");
  }
  return o;
}

// An (E)-shaped step as one bar per expert: E0, E1, ... on the x axis, the step's count on the y axis.
void expert_bars(plot::Axes& ax, const TraceStep& s) {
  std::vector<std::string> experts;
  std::vector<double> values;
  for (Eigen::Index e = 0; e < s.value.size(); ++e) {
    experts.push_back(plot::fmt("E%.0f", static_cast<double>(e)));
    values.push_back(static_cast<double>(s.value(e)));
  }
  const std::string what = ends_with(s.name, "mlp.expert_dropped") ? tr("dropped assignments") : tr("tokens routed");
  ax.setup(tr("expert"), "", what, "");
  ax.bars(experts, {what}, {values});
  ax.flags |= plot::AxesFlags_NoLegend;  // one series, named by the y axis
  // Counts start at 0; nothing dropped still shows an axis from 0, not one around 0.
  double top = 1.0;
  for (double v : values) top = std::max(top, v);
  ax.set_y_range(0, 1.08 * top);
}

// Tokens of the newest pass (queries) and of every cached position (keys).
struct PassTokens {
  int T = 0, Tk = 0;
  std::vector<std::string> queries, keys;
};
PassTokens pass_tokens(const ForwardResult& r) {
  PassTokens p;
  const TraceStep* first = r.run.trace.steps().empty() ? nullptr : &r.run.trace.steps().front();
  p.T = first ? static_cast<int>(first->value.rows()) : 0;
  p.Tk = static_cast<int>(r.run.tokens.size());
  p.queries = token_axis_labels(r.request.vocab(), r.run.tokens, p.Tk - p.T, p.T);
  p.keys = token_axis_labels(r.request.vocab(), r.run.tokens, 0, p.Tk);
  return p;
}

// "($H = 4$, $T = 22$, $T_k = 22$)": the symbols only, so the one-line note fits under a figure (meanings are on the
// axes); typeset like the formula beside it.
std::string compact_shape(const TraceStep& s) {
  std::string out = "(";
  for (size_t d = 0; d < s.shape.size(); ++d)
    out.append(d ? ", $" : "$")
        .append(s.shape[d].tex())
        .append(" = ")
        .append(std::to_string(s.shape[d].size))
        .append("$");
  return out + ")";
}

std::string cost_note(const TraceStep& s) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3g FLOP/B", s.intensity());
  return si(s.flops) + "FLOP · " + si(s.bytes) + "B · " + buf;
}

}  // namespace

std::vector<std::string> token_axis_labels(const TokenVocabulary& vocab, const std::vector<int>& tokens, int first,
                                           int count) {
  std::vector<std::string> out;
  for (int i = std::max(first, 0); i < first + count && i < static_cast<int>(tokens.size()); ++i)
    out.push_back(std::to_string(i) + ":" + vocab.display(tokens, static_cast<size_t>(i)).text);
  return out;
}

plot::Figure step_figure(const ForwardResult& r, int step_index) {
  plot::Figure fig("step", tr("Current step"));
  const auto& steps = r.run.trace.steps();
  if (step_index < 0 || step_index >= static_cast<int>(steps.size())) return fig;
  const TraceStep& s = steps[static_cast<size_t>(step_index)];
  const PassTokens tok = pass_tokens(r);
  fig.title = std::string(tr(s.title.c_str())) + "  (" + s.name + ")";
  fig.subject = s.name;  // exported as forward-step-layers.1.attn.probs.png
  fig.note = s.formula + "  →  " + compact_shape(s) + "  ·  " + cost_note(s);

  if (is_attention_map(s)) {
    // One map per query head, grouped by the KV head it reads: each row of the grid is one KV group.
    const int H = r.run.config.n_heads, KV = r.run.config.n_kv_heads;
    const int rows = static_cast<int>(s.value.rows()) / std::max(H, 1), cols = static_cast<int>(s.value.cols());
    const auto groups = heads_by_kv_head(H, KV);
    const int n_rep = std::max(H / std::max(KV, 1), 1);
    // A KV group per row; without groups two maps per row up to eight heads (the trained sort model's three, the
    // shipped language models' eight), three beyond, in square cells: a map's rotated key labels take height its
    // query axis needs, and beside a lesson column a narrower map could not hold its token labels.
    fig.grid_cols = n_rep > 1 ? n_rep : std::min(H, H <= 8 ? 2 : 3);
    fig.cell_aspect = 1.0f;
    plot::HeatmapOptions o = map_options(s);
    fig.shared_colorbar = is_probs(s);  // probabilities share [0, 1]; scores keep a scale per head
    if (rows == static_cast<int>(tok.queries.size())) o.row_labels = tok.queries;
    if (cols == static_cast<int>(tok.keys.size())) o.col_labels = tok.keys;
    for (size_t g = 0; g < groups.size(); ++g)
      for (int h : groups[g]) {
        plot::Axes& ax = fig.add_axes(subst(tr("head {0} · kv {1}"), {std::to_string(h), std::to_string(g)}));
        ax.setup(tr("key position $j$"), "", tr("query position $i$"), "");
        ax.heatmap("", s.value.data() + static_cast<size_t>(h) * rows * cols, rows, cols, o);
      }
    return fig;
  }

  plot::Axes& ax = fig.axes();
  if (is_per_expert(s)) {
    expert_bars(ax, s);
    return fig;
  }
  ax.setup(column_axis_label(s), "", tr("token (position:label)"), "");
  plot::HeatmapOptions o = map_options(s);
  if (s.value.rows() == static_cast<Eigen::Index>(tok.queries.size())) o.row_labels = tok.queries;
  if (is_routing_probs(s))  // E0, E1, ... as the load and drop bars name them
    for (Eigen::Index e = 0; e < s.value.cols(); ++e) o.col_labels.push_back(plot::fmt("E%.0f", double(e)));
  ax.heatmap(s.name, s.value.data(), static_cast<int>(s.value.rows()), static_cast<int>(s.value.cols()), o);
  return fig;
}

plot::Figure strip_figure(const ForwardResult& r, int layer) {
  plot::Figure fig("strip", subst(tr("Layer {0}, step by step"), {std::to_string(layer)}));
  const auto& steps = r.run.trace.steps();
  int count = 0;
  for (const TraceStep& s : steps) {
    if (s.layer != layer) continue;
    ++count;
    plot::Axes& ax = fig.add_axes(sub_step_name(s.name));
    if (is_per_expert(s)) {
      expert_bars(ax, s);
      continue;
    }
    const bool map = is_attention_map(s);
    ax.setup(map ? tr("key $j$") : column_axis_label(s), "", map ? tr("head · query") : tr("token"), "");
    plot::HeatmapOptions o = map_options(s);
    ax.heatmap("", s.value.data(), static_cast<int>(s.value.rows()), static_cast<int>(s.value.cols()), o);
  }
  fig.grid_cols = count > 12 ? 5 : 4;
  const ModelConfig& c = r.run.config;
  fig.note = subst(tr("{0}, {1}-norm, {2}, {3}, $H$ = {4}, $H_{kv}$ = {5}; attention maps stack the heads vertically "
                      "($H \\cdot T$ rows)"),
                   {tr(to_string(c.norm)), tr(to_string(c.placement)), tr(to_string(c.positions)),
                    tr(to_string(c.activation)),
                    std::to_string(c.n_heads), std::to_string(c.n_kv_heads)});
  return fig;
}

plot::Figure residual_figure(const ForwardResult& r, int step_index) {
  plot::Figure fig("residual", tr("Residual stream: norm of each token's vector"));
  const ResidualNorms& n = r.residual;
  if (n.steps.empty()) return fig;
  plot::Axes& ax = fig.axes();
  ax.setup(tr("step on the residual stream"), "", "$\\|x_t\\|_2$", "");
  ax.x.categories = n.labels;
  const PassTokens tok = pass_tokens(r);
  std::vector<double> xs(n.steps.size());
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i);
  for (Eigen::Index t = 0; t < n.norms.cols(); ++t) {
    std::vector<double> ys(n.steps.size());
    for (size_t i = 0; i < ys.size(); ++i) ys[i] = n.norms(static_cast<Eigen::Index>(i), t);
    const std::string label = t < static_cast<Eigen::Index>(tok.queries.size())
                                  ? tok.queries[static_cast<size_t>(t)]
                                  : subst(tr("token {0}"), {std::to_string(t)});
    ax.line(label, xs, ys).style = plot::LineStyle::LineAndMarkers;
  }
  if (n.norms.cols() > 12)
    ax.flags |= plot::AxesFlags_NoLegend;
  else
    ax.flags |= plot::AxesFlags_LegendOutside;
  // The stream value the current step reads or produced: the last stream step at or before it.
  int marker = -1;
  for (size_t i = 0; i < n.steps.size(); ++i)
    if (n.steps[i] <= step_index) marker = static_cast<int>(i);
  if (marker >= 0) ax.vline(tr("current step"), marker);
  fig.note =
      r.run.config.placement == NormPlacement::Pre
          ? tr("pre-norm: the stream is never normalised, so its norm can grow layer after layer")
          : tr("post-norm: the stream is normalised after every residual add, so its norm stays near $\\sqrt{C}$");
  return fig;
}

plot::Figure next_token_figure(const ForwardResult& r, const NextTokenChoice& choice) {
  plot::Figure fig("next", tr("Next-token distribution"));
  const SamplingTrace& f = choice.filter;
  const int V = static_cast<int>(f.probs_before.size());
  if (!choice.error.empty() || V == 0) return fig;
  const std::vector<int> order = shown_candidates(choice);
  std::vector<std::string> groups;
  std::vector<double> before, after;
  plot::Table table;
  table.header = {"token_id",   "label",      "logit",      "scaled_logit", "p_temperature",
                  "kept_top_k", "kept_top_p", "kept_min_p", "p_final",      "sampled"};
  const RowVec logits = r.run.next_logits();
  for (int id : order) {
    const size_t i = static_cast<size_t>(id);
    std::string label = r.request.vocab().label(id);
    if (id == choice.sampled) label += " *";
    groups.push_back(label);
    before.push_back(f.probs_before[i]);
    after.push_back(f.probs[i]);
    table.add_row({static_cast<double>(id), r.request.vocab().label(id),
                   id < logits.size() ? static_cast<double>(logits(id)) : 0.0, static_cast<double>(f.scaled_logits[i]),
                   static_cast<double>(f.probs_before[i]), static_cast<double>(f.kept_top_k[i]),
                   static_cast<double>(f.kept_top_p[i]), static_cast<double>(f.kept_min_p[i]),
                   static_cast<double>(f.probs[i]), id == choice.sampled ? 1.0 : 0.0});
  }
  plot::Axes& ax = fig.axes();
  ax.setup(tr("token (* = sampled)"), "", tr("probability"), "");
  ax.bars(groups,
          {tr("$\\softmax(\\text{logits} / \\text{temperature})$"), tr("after top-k, top-p and min-p (renormalised)")},
          {before, after});
  fig.table = std::move(table);
  fig.note =
      subst(tr("{0} of {1} tokens survive top-k, {2} survive top-p, {3} survive min-p; sampled id {4} ($p = {5}$)"),
            {std::to_string(f.n_top_k), std::to_string(V), std::to_string(f.n_top_p), std::to_string(f.n_final),
             std::to_string(choice.sampled), plot::fmt("%.3g", static_cast<double>(choice.probability))});
  return fig;
}

plot::Figure params_figure(const ModelConfig& config) {
  plot::Figure fig("params", tr("Parameters per component"));
  const auto rows = parameter_table(config);
  std::vector<std::string> groups;
  std::vector<double> totals;
  plot::Table table;
  table.header = {"component", "formula", "per_instance", "instances", "total"};
  for (const ParamGroup& g : rows) {
    groups.push_back(tr(g.name.c_str()));  // a msgid for the named rows; W_q (q_proj) … stay as written
    totals.push_back(static_cast<double>(g.total()));
    table.add_row({g.name, g.formula, static_cast<double>(g.count), static_cast<double>(g.instances),
                   static_cast<double>(g.total())});
  }
  table.add_row({std::string("Total"), std::string(""), 0.0, 1.0, static_cast<double>(parameter_count(config))});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("component"), "", tr("parameters"), "");
  ax.y.scale = plot::Scale::Log10;
  ax.bars(groups, {tr("parameters (all layers)")}, {totals});
  fig.table = std::move(table);
  fig.note = subst(tr("total {0} parameters"), {std::to_string(parameter_count(config))});
  return fig;
}

}  // namespace tw
