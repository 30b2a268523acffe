// The forward stepper's Families figure: core's step comparison of a GPT-2-shaped and a LLaMA-shaped model
// (core/experiments/family_steps.h) as two columns of the formulas each pass recorded, one row per step, coloured by
// whether the step is the same in both, computed differently, or present in one model only.
#include <cmath>
#include <limits>

#include "core/base/i18n.h"
#include "views/forward/forward_state.h"

namespace tw {

namespace {
constexpr uint32_t kDarkText = 0x101010FF, kLightText = 0xF4F4F4FF;

const char* match_name(StepMatch m) {
  switch (m) {
    case StepMatch::Same: return "same";
    case StepMatch::Differs: return "differs";
    case StepMatch::OnlyA: return "only_a";
    case StepMatch::OnlyB: return "only_b";
  }
  return "";
}
}  // namespace

plot::Figure families_figure(const FamilyComparison& cmp) {
  plot::Figure fig("families", tr("GPT-2-shaped and LLaMA-shaped models, step by step"));
  if (!cmp.error.empty() || cmp.rows.empty()) {
    fig.note = cmp.error;
    return fig;
  }
  const int R = static_cast<int>(cmp.rows.size());
  // Level per cell: 0 the same in both, 1 computed differently, 2 only in this model, 3 not in this model.
  std::vector<double> level(static_cast<size_t>(2 * R));
  std::vector<std::string> rows;
  for (int i = 0; i < R; ++i) {
    const FamilyStepRow& r = cmp.rows[static_cast<size_t>(i)];
    const double a = r.match == StepMatch::Same      ? 0
                     : r.match == StepMatch::Differs ? 1
                     : r.match == StepMatch::OnlyA   ? 2
                                                     : 3;
    const double b = r.match == StepMatch::Same      ? 0
                     : r.match == StepMatch::Differs ? 1
                     : r.match == StepMatch::OnlyB   ? 2
                                                     : 3;
    level[static_cast<size_t>(2 * i)] = a;
    level[static_cast<size_t>(2 * i + 1)] = b;
    rows.push_back(r.step);
  }
  plot::Axes& ax = fig.axes();
  ax.setup("", "", tr("step (block steps: layer 0)"), "");
  plot::HeatmapOptions o;
  o.colormap = plot::Colormap::Viridis;
  o.vmin = 0;
  o.vmax = 3;
  o.row_labels = rows;
  o.col_labels = {tr("GPT-2-shaped"), tr("LLaMA-shaped")};
  o.levels = {tr("the same in both"), tr("computed differently"), tr("only in this model"), tr("not in this model")};
  ax.heatmap(tr("step"), level.data(), R, 2, o);
  ax.flags |= plot::AxesFlags_LegendOutside;
  for (int i = 0; i < R; ++i) {
    const FamilyStepRow& r = cmp.rows[static_cast<size_t>(i)];
    for (int col = 0; col < 2; ++col) {
      const std::string& formula = col == 0 ? r.formula_a : r.formula_b;
      if (formula.empty()) continue;
      // Centred in its cell: a formula wider than the cell is shortened to "…" by whole formulas (the CSV has it
      // whole) instead of running into the other model's column on a narrow screen.
      plot::TextItem& t = ax.text(formula, col, i);
      t.align_x = 0.5f;
      t.color = level[static_cast<size_t>(2 * i + col)] >= 2 ? kDarkText : kLightText;  // viridis: light from level 2
    }
  }
  fig.aspect = 0.9f;

  plot::Table table;
  table.header = {"step", "gpt2_title", "gpt2_formula", "llama_title", "llama_formula", "match"};
  for (const FamilyStepRow& r : cmp.rows)
    table.add_row({r.step, r.title_a, r.formula_a, r.title_b, r.formula_b, std::string(match_name(r.match))});
  fig.table = std::move(table);
  fig.note = tr("both run the same forward pass on random weights; each formula is the one its trace recorded");
  return fig;
}

}  // namespace tw
