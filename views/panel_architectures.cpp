// Architectures and hyperparameters: what published models chose (width, depth, heads, MLP ratio, vocabulary),
// their parameter counts computed from the configuration beside the published ones, and your own configuration
// placed among them; and a shipped language model run with serial and parallel blocks on the same weights.
//
// [SECTION] state
// [SECTION] compute
// [SECTION] figures (built from core/experiments/architectures)
// [SECTION] panel: controls, the table of models
#include <imgui.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/base/i18n.h"
#include "core/experiments/architecture_settings.h"
#include "core/experiments/architectures.h"
#include "core/experiments/architectures_block.h"
#include "core/text/corpus.h"
#include "core/train/model_folder.h"
#include "views/bind_settings.h"
#include "views/recompute.h"

namespace tw {

namespace architectures_panel {

const PanelInfo kInfo = {"architectures", N_("Architectures and hyperparameters"), N_("Foundations"),
                         N_("What real models choose: MLP ratio, head dimension, depth vs width, vocabulary; parameter "
                            "counts from their configurations")};

// [SECTION] state

// Your own configuration (core/experiments/architecture_settings.h), placed on every plot.
struct ArchitecturesState : ArchitectureSettings {
  // A workbench model placed on the plots beside the published ones: none, a shipped one, or a folder's config.json.
  enum class Placed { None, Sort, Induction, Folder } placed = Placed::Sort;
  std::string model_dir;
  // The shipped language model run serial and parallel on its own corpus's held-out records.
  enum class BlockModel { None, Quotes, Poems } block_model = BlockModel::Quotes;
};

constexpr const char* kPlacedNames[] = {N_("none"), N_("sort model"), N_("induction model"), N_("folder")};
constexpr const char* kBlockModelNames[] = {N_("none"), N_("quotes"), N_("poems")};

// Core's settings, then the panel's own.
template <class F>
void for_each_setting(ArchitecturesState& s, F&& f) {
  for_each_setting(static_cast<ArchitectureSettings&>(s), f);
  f("placed", s.placed,
    OptionsSpec{kPlacedNames, N_("model on the plots"),
                N_("A workbench model placed on every plot beside the published ones: a shipped model, or the "
                   "config.json of a model folder.")});
  f("model_dir", s.model_dir,
    TextSpec{1024, N_("model folder"),
             N_("Folder with the config.json of the model to place (e.g. one the Training panel saved).")});
  f("block_model", s.block_model,
    OptionsSpec{kBlockModelNames, N_("serial vs parallel"),
                N_("A shipped language model run on its corpus's held-out text twice with the same weights: serial "
                   "blocks as it was trained, and parallel blocks $x + \\mathrm{Attn}(\\mathrm{Norm}_1(x)) + "
                   "\\mathrm{MLP}(\\mathrm{Norm}_2(x))$ (GPT-NeoX; GPT-J and PaLM share one norm).")});
}

// The config.json the state names ("" for none).
std::string placed_config_path(const ArchitecturesState& s) {
  switch (s.placed) {
    case ArchitecturesState::Placed::None: return "";
    case ArchitecturesState::Placed::Sort: return shipped_models_dir() + "/sort/config.json";
    case ArchitecturesState::Placed::Induction: return shipped_models_dir() + "/induction/config.json";
    case ArchitecturesState::Placed::Folder: return s.model_dir.empty() ? "" : s.model_dir + "/config.json";
  }
  return "";
}

// [SECTION] compute

// The serial vs parallel comparison of a shipped language model, computed once per model (a few hundred forward
// passes): moving the other sliders does not run it again.
struct BlockRun {
  std::string model;  // "quotes", "poems"
  BlockLayoutComparison comparison;
};
std::mutex g_block_mutex;
std::map<ArchitecturesState::BlockModel, std::shared_ptr<const BlockRun>> g_block_runs;

std::shared_ptr<const BlockRun> cached_block_run(ArchitecturesState::BlockModel which) {
  std::lock_guard<std::mutex> lock(g_block_mutex);
  const auto it = g_block_runs.find(which);
  return it == g_block_runs.end() ? nullptr : it->second;
}

std::shared_ptr<const BlockRun> block_run(ArchitecturesState::BlockModel which, Progress& progress) {
  if (which == ArchitecturesState::BlockModel::None) return nullptr;
  if (auto cached = cached_block_run(which)) return cached;
  const bool quotes = which == ArchitecturesState::BlockModel::Quotes;
  auto run = std::make_shared<BlockRun>();
  run->model = quotes ? "quotes" : "poems";
  Corpus corpus;
  StepperModel m;
  std::string error = load_corpus(quotes ? CorpusId::EnglishQuotes : CorpusId::TangPoems, &corpus);
  if (error.empty() &&
      !load_hf_stepper_model(
          shipped_models_dir() + "/" + run->model, [&](double) { return !progress.cancelled(); }, &m, &error) &&
      progress.cancelled())
    return nullptr;  // not cached: the next run tries again
  if (error.empty())
    run->comparison = compare_block_layouts(m, corpus.heldout);
  else
    run->comparison.error = error;
  std::lock_guard<std::mutex> lock(g_block_mutex);
  g_block_runs[which] = run;
  return run;
}

struct Row {
  ArchitectureConfig config;
  ParameterBreakdown count;
};
struct ArchitecturesResult {
  std::vector<Row> rows;  // the published models
  Row own;
  std::string error;                      // validate(own)
  std::optional<Row> placed;              // the model placed beside them, when one is chosen and loads
  std::string placed_error;               // why it did not load (the figures still show the rest)
  std::shared_ptr<const BlockRun> block;  // serial vs parallel (null when no model is chosen)
};
using ResultPtr = std::shared_ptr<const ArchitecturesResult>;

ResultPtr compute(const ArchitecturesState& s, Progress& progress) {
  auto r = std::make_shared<ArchitecturesResult>();
  for (const ArchitectureConfig& c : published_architectures()) r->rows.push_back({c, count_parameters(c)});
  r->own.config = params_of(s);
  r->error = validate(r->own.config);
  if (r->error.empty()) r->own.count = count_parameters(r->own.config);
  if (const std::string path = placed_config_path(s); !path.empty()) {
    ModelConfig m;
    std::string error;
    if (load_config(path, &m, &error)) {
      const ArchitectureConfig c = architecture_of(m, tr("loaded model"));
      r->placed = Row{c, count_parameters(c)};
    } else {
      r->placed_error = error;
    }
  }
  r->block = block_run(s.block_model, progress);
  return r;
}
// A few hundred multiplications, unless the serial vs parallel runs are still to be made.
bool quick(const ArchitecturesState& s) {
  return s.block_model == ArchitecturesState::BlockModel::None || cached_block_run(s.block_model) != nullptr;
}
std::string error_of(const ArchitecturesResult& r) { return r.error; }

// [SECTION] figures

// One ratio against the parameter count: plain MLPs, gated MLPs and your model, with the conventional values.
plot::Figure ratio_figure(const ArchitecturesResult& r, const char* id, const std::string& title,
                          const std::string& y_label, double (*ratio)(const ArchitectureConfig&),
                          std::initializer_list<std::pair<std::string, double>> refs, bool log_y) {
  plot::Figure fig(id, title);
  fig.note = tr("each point a published model; dashed lines are the conventional choices");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("parameters"), "", y_label, "");
  ax.x.scale = plot::Scale::Log10;
  if (log_y) ax.y.scale = plot::Scale::Log10;
  std::vector<double> px, py, gx, gy;
  for (const Row& row : r.rows) {
    const double n = static_cast<double>(row.count.total), v = ratio(row.config);
    (row.config.gated ? gx : px).push_back(n);
    (row.config.gated ? gy : py).push_back(v);
  }
  ax.scatter(tr("plain MLP"), px, py);
  ax.scatter(tr("gated MLP (GLU)"), gx, gy);
  ax.scatter(tr("your model"), {double(r.own.count.total)}, {ratio(r.own.config)});
  if (r.placed) ax.scatter(tr("loaded model"), {double(r.placed->count.total)}, {ratio(r.placed->config)});
  for (const auto& [label, value] : refs) ax.hline(label, value);
  plot::Table& t = fig.table;
  t.header = {"model", "params_computed", "value"};
  for (const Row& row : r.rows) t.add_row({row.config.name, double(row.count.total), ratio(row.config)});
  t.add_row({"your model", double(r.own.count.total), ratio(r.own.config)});
  if (r.placed) t.add_row({"loaded model", double(r.placed->count.total), ratio(r.placed->config)});
  return fig;
}

plot::Figure mlp_ratio_figure(const ArchitecturesResult& r) {
  return ratio_figure(
      r, "mlp_ratio", tr("MLP ratio $d_{ff}/d_{model}$ against size"), tr("$d_{ff}/d_{model}$"),
      [](const ArchitectureConfig& c) { return double(c.d_ff) / double(c.d_model); },
      {{tr("4 (plain)"), 4.0}, {tr("$8/3$ (GLU)"), 8.0 / 3.0}}, false);
}
plot::Figure head_dim_figure(const ArchitecturesResult& r) {
  return ratio_figure(
      r, "head_dim", tr("Head dimension $d_{model}/H$ against size"), tr("$d_h$"),
      [](const ArchitectureConfig& c) { return double(c.head_dim); }, {{tr("128"), 128.0}}, false);
}
plot::Figure aspect_figure(const ArchitecturesResult& r) {
  return ratio_figure(
      r, "aspect", tr("Width per layer $d_{model}/L$ against size"), tr("$d_{model}/L$"),
      [](const ArchitectureConfig& c) { return double(c.d_model) / c.layers; }, {{tr("128"), 128.0}}, true);
}
plot::Figure vocab_figure(const ArchitecturesResult& r) {
  return ratio_figure(
      r, "vocab", tr("Vocabulary against size"), tr("tokens"),
      [](const ArchitectureConfig& c) { return double(c.vocab); }, {{tr("32k"), 32000.0}}, true);
}

plot::Figure counts_figure(const ArchitecturesResult& r) {
  plot::Figure fig("counts", tr("Parameters computed from the configuration vs published"));
  fig.note =
      tr("on the diagonal: the configuration accounts for every published parameter; rounded published sizes "
         "(\"70B\") sit a little off it");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("published"), tr("parameters"), tr("computed"), tr("parameters"));
  ax.x.scale = ax.y.scale = plot::Scale::Log10;
  std::vector<double> ex, ey, rx, ry;
  for (const Row& row : r.rows) {
    (row.config.published_exact ? ex : rx).push_back(row.config.published_params);
    (row.config.published_exact ? ey : ry).push_back(double(row.count.total));
  }
  ax.line(tr("computed = published"), {5e7, 1e12}, {5e7, 1e12}).dashed = true;
  ax.scatter(tr("exact count published"), ex, ey);
  ax.scatter(tr("rounded size published"), rx, ry);
  // The CSV: every model's configuration and counts, with its source.
  plot::Table& t = fig.table;
  t.header = {"model",           "year",
              "d_model",         "layers",
              "heads",           "kv_heads",
              "head_dim",        "d_ff",
              "activation",      "vocab",
              "context",         "params_computed",
              "params_active",   "params_published",
              "published_exact", "source"};
  for (const Row& row : r.rows) {
    const ArchitectureConfig& c = row.config;
    t.add_row({c.name, double(c.year), double(c.d_model), double(c.layers), double(c.heads), double(c.kv_heads),
               double(c.head_dim), double(c.d_ff), c.activation, double(c.vocab), double(c.context),
               double(row.count.total), double(row.count.active), c.published_params, c.published_exact ? "yes" : "no",
               c.source});
  }
  return fig;
}

plot::Figure breakdown_figure(const ArchitecturesResult& r) {
  const ParameterBreakdown& b = r.own.count;
  plot::Figure fig("breakdown", subst(tr("Your model: {0} parameters"), {plot::fmt("%.4g", double(b.total))}));
  fig.note = tr("embedding, attention (GQA shrinks $k$ and $v$), MLP, norms and the output head");
  plot::Axes& ax = fig.axes();
  ax.setup(tr("part"), "", tr("parameters"), "");
  ax.bars({tr("embedding"), tr("attention"), tr("MLP"), tr("norms"), tr("head")}, {tr("parameters")},
          {{double(b.embedding), double(b.attention), double(b.mlp), double(b.norms), double(b.head)}});
  ax.flags |= plot::AxesFlags_NoLegend;
  return fig;
}

// Serial vs parallel: held-out bits per character of the same weights run both ways.
plot::Figure block_loss_figure(const ArchitecturesResult& r) {
  plot::Figure fig("block_loss", tr("Serial vs parallel block: the same weights, held-out bits per character"));
  if (!r.block) {
    fig.note = tr("choose a shipped language model to run both ways");
    return fig;
  }
  const BlockLayoutComparison& b = r.block->comparison;
  if (!b.error.empty()) {
    fig.note = subst(tr("not run: {0}"), {b.error});
    return fig;
  }
  fig.note = subst(tr("{0} model, {1} held-out records, {2} tokens: logits differ by {3} (relative norm), the most "
                      "likely next token agrees at {4}, $\\mathrm{KL}$ = {5} bits per token"),
                   {r.block->model, std::to_string(b.records), std::to_string(b.tokens_scored),
                    plot::fmt("%.1f%%", 100 * b.logit_rel_diff), plot::fmt("%.1f%%", 100 * b.top1_agreement),
                    plot::fmt("%.3f", b.kl_bits)});
  plot::Axes& ax = fig.axes();
  ax.setup(tr("block"), "", tr("bits per character"), "");
  ax.bars({tr("serial (as trained)"), tr("parallel")}, {tr("bits per character")},
          {{b.serial.bits_per_char, b.parallel.bits_per_char}});
  ax.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"model",          "block",          "loss_nats_per_token", "bits_per_char",
              "logit_rel_diff", "top1_agreement", "kl_bits_per_token",   "tokens",
              "chars"};
  for (const bool parallel : {false, true}) {
    const BlockLayoutRun& run = parallel ? b.parallel : b.serial;
    t.add_row({r.block->model, parallel ? "parallel" : "serial", run.loss, run.bits_per_char, b.logit_rel_diff,
               b.top1_agreement, b.kl_bits, double(b.tokens_scored), double(b.chars)});
  }
  return fig;
}

// Where the two runs part: the residual stream after each block, parallel against serial.
plot::Figure block_layers_figure(const ArchitecturesResult& r) {
  plot::Figure fig("block_layers", tr("Serial vs parallel block: difference of the residual stream after each block"));
  fig.note =
      tr("$\\|x_{par} - x_{ser}\\| / \\|x_{ser}\\|$ over every held-out token; layer 0's attention half is "
         "shared, its MLP already reads $\\mathrm{Norm}(x)$ instead of $\\mathrm{Norm}(h)$");
  if (!r.block || !r.block->comparison.error.empty()) return fig;
  const std::vector<double>& d = r.block->comparison.layer_rel_diff;
  std::vector<std::string> layers;  // whole blocks: categories, not a continuous axis
  for (size_t l = 0; l < d.size(); ++l) layers.push_back(std::to_string(l));
  plot::Axes& ax = fig.axes();
  ax.setup(tr("block"), "", tr("relative difference"), "");
  ax.bars(layers, {tr("parallel vs serial")}, {d});
  ax.flags |= plot::AxesFlags_NoLegend;
  plot::Table& t = fig.table;
  t.header = {"layer", "residual_rel_diff"};
  for (size_t l = 0; l < d.size(); ++l) t.add_row({double(l), d[l]});
  return fig;
}

std::string grouped(double n) {
  if (n >= 1e9) return plot::fmt("%.2fB", n / 1e9);
  if (n >= 1e6) return plot::fmt("%.1fM", n / 1e6);
  return plot::fmt("%.0f", n);
}

// [SECTION] panel

class ArchitecturesPanel : public RecomputePanel<ArchitecturesState, ArchitecturesResult> {
 public:
  ArchitecturesPanel()
      : RecomputePanel(kInfo,
                       {.rows = {{{"mlp_ratio", "head_dim"}},
                                 {{"aspect", "vocab"}},
                                 {{"counts", "breakdown"}},
                                 {{"block_loss", "block_layers"}}}},
                       {compute,
                        error_of,
                        {mlp_ratio_figure, head_dim_figure, aspect_figure, vocab_figure, counts_figure,
                         breakdown_figure, block_loss_figure, block_layers_figure},
                        quick}) {}

 protected:
  void bind(Controls& c) override { bind_settings(c, s_); }

  bool control_visible(const Control& c) const override {
    return c.key != "model_dir" || s_.placed == ArchitecturesState::Placed::Folder;
  }

  void draw_figures(const DrawContext& ctx, const std::vector<plot::Figure>& figs) override {
    RecomputePanel::draw_figures(ctx, figs);
    const ResultPtr& r = result();
    if (!r) return;
    if (!r->placed_error.empty())
      warning_text(subst(tr("Model not placed: {0}"), {r->placed_error}).c_str());
    else if (r->placed)
      math_text(subst(tr("Loaded model: {0} parameters computed from its config.json, $d_{model}$ = {1}, {2} layers."),
                      {grouped(double(r->placed->count.total)), std::to_string(r->placed->config.d_model),
                       std::to_string(r->placed->config.layers)})
                    .c_str());
    ImGui::Separator();
    ImGui::TextUnformatted(tr("Published configurations"));
    constexpr ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                      ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    const char* columns[] = {N_("model"),   N_("year"),     N_("d_model"),   N_("layers"), N_("heads"),
                             N_("KV"),      N_("d_head"),   N_("d_ff"),      N_("MLP"),    N_("vocab"),
                             N_("context"), N_("computed"), N_("published"), N_("source")};
    if (!ImGui::BeginTable("models", IM_ARRAYSIZE(columns), flags)) return;
    for (const char* col : columns) ImGui::TableSetupColumn(tr(col));
    ImGui::TableHeadersRow();
    for (const Row& row : r->rows) {
      const ArchitectureConfig& c = row.config;
      ImGui::TableNextRow();
      int col = 0;
      auto cell = [&](const std::string& text) {
        ImGui::TableSetColumnIndex(col++);
        ImGui::TextUnformatted(text.c_str());
      };
      cell(c.name);
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c.source.c_str());
      cell(std::to_string(c.year));
      cell(std::to_string(c.d_model));
      cell(std::to_string(c.layers));
      cell(std::to_string(c.heads));
      cell(std::to_string(c.kv_heads));
      cell(std::to_string(c.head_dim));
      cell(std::to_string(c.d_ff));
      cell(c.activation);
      cell(std::to_string(c.vocab));
      cell(std::to_string(c.context));
      cell(grouped(double(row.count.total)) +
           (c.experts > 1 ? subst(tr(" ({0} active)"), {grouped(double(row.count.active))}) : std::string()));
      cell((c.published_exact ? plot::fmt("%.0f", c.published_params) : grouped(c.published_params)));
    }
    ImGui::EndTable();
  }
};

}  // namespace architectures_panel

TW_REGISTER_PANEL(architectures_panel::ArchitecturesPanel);

}  // namespace tw
