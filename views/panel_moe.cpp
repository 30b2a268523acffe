// Mixture of experts: a router's top-k gating over E experts, load per expert, capacity and dropped tokens, the
// load-balancing loss, and active vs total parameters (issue 19).
//
// [SECTION] state
// [SECTION] result and compute (core/experiments/moe_routing)
// [SECTION] figures
// [SECTION] panel
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "core/experiments/moe_routing.h"
#include "core/experiments/moe_settings.h"
#include "views/bind_settings.h"
#include "views/handoffs.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace moe_panel {

const PanelInfo kInfo = {"moe", N_("Mixture of experts"), N_("Blocks"),
                         N_("Top-k routing over experts: load, capacity and dropped tokens, balance loss, active vs "
                            "total parameters")};

using plot::fmt;

// [SECTION] state

// The settings and their mapping to MoeParams live in core (the lessons read the same ones).
using MoeState = MoeSettings;

// [SECTION] result and compute

struct BiasPoint {
  double bias = 0, balance_loss = 0, dropped_fraction = 0;
};

// The routing at these settings, and the same tokens and router as expert 0's bias grows.
struct MoeAnalysis {
  MoeRouting routing;
  std::vector<BiasPoint> sweep;
};
using MoeResult = Checked<MoeParams, MoeAnalysis>;
using ResultPtr = std::shared_ptr<const MoeResult>;

ResultPtr compute(const MoeState& s, Progress& progress) {
  return run_checked(params_of(s), [&progress](const MoeParams& p) {
    MoeAnalysis a;
    a.routing = moe_experiment(p);
    for (int i = 0; i <= 20; ++i) {
      if (progress.cancelled()) break;
      progress.set(float(i) / 20);
      MoeParams q = p;
      q.router_bias = 0.25 * i;
      const MoeRouting m = moe_experiment(q);
      a.sweep.push_back({q.router_bias, m.balance_loss, double(m.n_dropped) / (double(q.tokens) * q.top_k)});
    }
    return a;
  });
}

// The routing at these settings and 21 more along the bias sweep.
bool quick(const MoeState& s) { return 22.0 * moe_experiment_work(s.params) < 2e6; }

// [SECTION] figures

plot::Figure routing_figure(const MoeResult& r) {
  const MoeParams& p = r.params;
  const MoeRouting& m = r.a.routing;
  plot::Figure fig("routing", subst(tr("Router probabilities and combine weights (top-{0} of {1})"),
                                    {std::to_string(p.top_k), std::to_string(p.experts)}));
  fig.note =
      subst(tr("gates renormalised over the chosen; grey: dropped (capacity {0})"), {std::to_string(m.capacity)});
  fig.grid_cols = 2;
  plot::HeatmapOptions opt;
  opt.vmin = 0;
  opt.vmax = 1;
  opt.value_label = tr("weight");
  plot::Axes& a = fig.add_axes(tr("router softmax $P$"));
  a.setup(tr("expert"), "", tr("token"), "");
  a.heatmap("$P$", m.probs.data(), int(m.probs.rows()), int(m.probs.cols()), opt);
  std::vector<double> gates(m.gates.data(), m.gates.data() + m.gates.size());
  for (int t = 0; t < p.tokens; ++t)
    for (int j = 0; j < p.top_k; ++j) {
      const size_t k = size_t(t) * p.top_k + j;
      if (m.dropped[k]) gates[size_t(t) * p.experts + m.choice[k]] = -std::numeric_limits<double>::infinity();
    }
  plot::Axes& b = fig.add_axes(tr("combine weights $g$"));
  b.setup(tr("expert"), "", tr("token"), "");
  b.heatmap("$g$", gates.data(), p.tokens, p.experts, opt);
  fig.shared_colorbar = true;
  plot::Table& t = fig.table;
  t.header = {"token", "rank", "expert", "probability", "gate", "dropped"};
  for (int tok = 0; tok < p.tokens; ++tok)
    for (int j = 0; j < p.top_k; ++j) {
      const size_t k = size_t(tok) * p.top_k + j;
      const int e = m.choice[k];
      t.add_row(
          {double(tok), double(j), double(e), double(m.probs(tok, e)), double(m.gates(tok, e)), double(m.dropped[k])});
    }
  return fig;
}

plot::Figure load_figure(const MoeResult& r) {
  const MoeRouting& m = r.a.routing;
  const int wanted = r.params.tokens * r.params.top_k;
  plot::Figure fig("load", tr("Load per expert: assignments wanted and accepted"));
  fig.note = subst(tr("{0} assignments ($N\\cdot k$), {1} dropped; balance loss {2} (uniform router: $k$ = {3})"),
                   {std::to_string(wanted), std::to_string(m.n_dropped), fmt("%.4g", m.balance_loss),
                    std::to_string(r.params.top_k)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("expert"), "", tr("assignments"), tr("tokens"));
  std::vector<std::string> groups;
  std::vector<double> w, l;
  plot::Table& t = fig.table;
  t.header = {"expert", "wanted", "accepted", "capacity"};
  for (size_t e = 0; e < m.load.size(); ++e) {
    groups.push_back(std::to_string(e));
    w.push_back(m.wanted[e]);
    l.push_back(m.load[e]);
    t.add_row({double(e), double(m.wanted[e]), double(m.load[e]), double(m.capacity)});
  }
  ax.bars(groups, {tr("wanted"), tr("accepted")}, {w, l});
  ax.hline(subst(tr("capacity {0}"), {std::to_string(m.capacity)}), m.capacity);
  return fig;
}

plot::Figure balance_figure(const MoeResult& r) {
  plot::Figure fig("balance", tr("A popular expert: balance loss and dropped assignments"));
  fig.note = subst(tr("same tokens and router, expert 0's logit raised by the bias; capacity factor {0}"),
                   {fmt("%.3g", r.params.capacity_factor)});
  fig.grid_cols = 2;
  std::vector<double> xs, loss, drop;
  plot::Table& t = fig.table;
  t.header = {"router_bias", "balance_loss", "dropped_fraction"};
  for (const BiasPoint& b : r.a.sweep) {
    xs.push_back(b.bias);
    loss.push_back(b.balance_loss);
    drop.push_back(b.dropped_fraction);
    t.add_row({b.bias, b.balance_loss, b.dropped_fraction});
  }
  plot::Axes& a = fig.add_axes(tr("balance loss $E\\cdot\\sum f\\cdot P$"));
  a.setup(tr("router bias"), "", tr("loss"), "");
  a.flags |= plot::AxesFlags_NoLegend;
  a.line(tr("loss"), xs, loss).style = plot::LineStyle::LineAndMarkers;
  a.vline(tr("now"), r.params.router_bias);
  plot::Axes& b = fig.add_axes(tr("dropped assignments"));
  b.setup(tr("router bias"), "", tr("fraction"), "");
  b.flags |= plot::AxesFlags_NoLegend;
  b.line(tr("dropped"), xs, drop).style = plot::LineStyle::LineAndMarkers;
  b.vline(tr("now"), r.params.router_bias);
  b.set_y_range(0, 1);
  return fig;
}

plot::Figure params_figure(const MoeResult& r) {
  const MoeRouting& m = r.a.routing;
  plot::Figure fig("params", tr("Parameters of one MoE layer: stored vs used per token"));
  fig.note = subst(tr("total {0}, active {1} ({2} %)"),
                   {fmt("%.4g", double(m.total_params)), fmt("%.4g", double(m.active_params)),
                    fmt("%.3g", 100.0 * double(m.active_params) / double(m.total_params))});
  plot::Axes& ax = fig.axes();
  ax.setup("", "", tr("parameters"), tr("thousands"));
  ax.flags |= plot::AxesFlags_NoLegend;
  ax.bars({tr("total (all experts)"), tr("active ($k$ experts)")}, {tr("parameters")},
          {{double(m.total_params) / 1e3, double(m.active_params) / 1e3}});
  plot::Table& t = fig.table;
  t.header = {"kind", "parameters"};
  t.add_row({std::string("total"), double(m.total_params)});
  t.add_row({std::string("active"), double(m.active_params)});
  return fig;
}

// [SECTION] panel

class MoePanel final : public RecomputePanel<MoeState, MoeResult> {
 public:
  MoePanel()
      : RecomputePanel(
            kInfo, two_by_two("routing", "load", "balance", "params"),
            {compute, checked_error<MoeResult>, {routing_figure, load_figure, balance_figure, params_figure}, quick}) {}

 protected:
  void draw_summary(const MoeResult& r) override {
    const MoeRouting& m = r.a.routing;
    ImGui::Separator();
    ImGui::Text(tr("capacity %d tokens per expert, %d dropped"), m.capacity, m.n_dropped);
    int accepted = 0;
    for (int l : m.load) accepted += l;
    check_mark(accepted == r.params.tokens * r.params.top_k - m.n_dropped,
               tr("$\\sum \\text{load} = N k - \\text{dropped}$"));

    ImGui::Text(tr("balance loss %.4g"), m.balance_loss);
    ImGui::Text(tr("parameters: %lld active of %lld"), static_cast<long long>(m.active_params),
                static_cast<long long>(m.total_params));
    // The same layer, trained: the Training panel's sort task with these experts, top-k and capacity.
    if (ImGui::Button(tr("Train this in the Training panel")))
      handoffs().post_values("train", {{"task", "sort"},
                                       {"experts", s_.params.experts},
                                       {"top_k", s_.params.top_k},
                                       {"capacity_factor", s_.capacity_factor},
                                       {"activation", s_.params.gated ? "swiglu" : "gelu"}});
    ImGui::SameLine();
    help_marker(
        tr("Opens the Training panel on the sort task with a mixture of these experts in every block (as the "
           "train-moe preset): watch the load per expert and the balance loss while it learns."));
  }

  void bind(Controls& c) override { bind_settings(c, s_); }
};

}  // namespace moe_panel

TW_REGISTER_PANEL(moe_panel::MoePanel);

}  // namespace tw
