// What the heads do: probes run through a model, every attention head scored for six roles (previous token,
// induction, first token; on a poem's lines previous line, line start, rhyme) and named by the best one; the clearest
// example of each role.
//
// [SECTION] state and result
// [SECTION] compute (worker thread): load the model, build the probes, score the heads
// [SECTION] figures (built from core/experiments/head_roles results)
// [SECTION] panel: controls, hand-off from the forward stepper, summary
#include <imgui.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>

#include "core/experiments/head_roles.h"
#include "core/train/model_folder.h"
#include "views/handoffs.h"
#include "views/plot/plot_imgui.h"
#include "views/recompute.h"
#include "views/widgets.h"

namespace tw {

namespace heads_panel {

const PanelInfo kInfo = {"heads", N_("What the heads do"), N_("Model"),
                         N_("Probes score every attention head of a model for previous-token, induction and "
                            "first-token roles, and on a poem's lines for previous-line, line-start and rhyme roles")};

// [SECTION] state and result

enum class HeadsModel { Induction, Sort, Stepper, Folder };

// The last folder loaded, kept so that changing a probe setting does not reload a large model. Shared by the
// state's copies (the worker gets one); the newest load replaces it.
struct FolderCache {
  std::mutex mutex;
  std::string dir;
  std::shared_ptr<const StepperModel> model;
};

struct HeadsState {
  HeadsModel model = HeadsModel::Induction;
  std::string model_dir;  // HeadsModel::Folder
  // Lines of equal length for the previous-line role, one per text line (a poem: each line the same count).
  std::string lines = "床前明月光，/疑是地上霜。/举头望明月，/低头思故乡。";
  int length = 24;                              // tokens of a random probe (cut to the model's max_seq)
  int samples = 4;                              // random probes averaged
  float threshold = 0.4f;                       // a head takes a role when its score reaches this
  int seed = 1;                                 // the random probes
  std::shared_ptr<const StepperModel> stepper;  // the forward stepper's model, handed over (not a control)
  std::shared_ptr<FolderCache> folder_cache = std::make_shared<FolderCache>();  // (not a control)
};

struct HeadsResult {
  std::string error;       // one line when nothing can be shown
  std::string model_name;  // what was probed, one line
  std::shared_ptr<const TokenVocabulary> vocab;
  HeadRoleMap map;
  std::string lines_note;  // why the previous-line role was not measured ("" when it was)
  // The default poem on a toy-task checkpoint, whose symbols cannot spell it: not a problem to warn about, a hint.
  bool lines_hint = false;
};
using HeadsPtr = std::shared_ptr<const HeadsResult>;

// [SECTION] compute

bool load_chosen(const HeadsState& s, Progress& progress, StepperModel* out, std::string* error) {
  switch (s.model) {
    case HeadsModel::Stepper:
      if (!s.stepper) {
        *error = tr("No model from the forward stepper yet: open one there and press \"What do the heads do?\".");
        return false;
      }
      *out = *s.stepper;
      return true;
    case HeadsModel::Folder:
      if (s.model_dir.empty()) {
        *error = tr("Type the path of a model folder (config.json, model.safetensors, tokenizer.json).");
        return false;
      }
      {
        const std::lock_guard<std::mutex> lock(s.folder_cache->mutex);
        if (s.folder_cache->model && s.folder_cache->dir == s.model_dir) {
          *out = *s.folder_cache->model;
          return true;
        }
      }
      if (!load_hf_stepper_model(
              s.model_dir,
              [&](double f) {
                progress.set(0.5f * static_cast<float>(f));
                return !progress.cancelled();
              },
              out, error))
        return false;
      {
        const std::lock_guard<std::mutex> lock(s.folder_cache->mutex);
        s.folder_cache->dir = s.model_dir;
        s.folder_cache->model = std::make_shared<const StepperModel>(*out);
      }
      return true;
    default: {
      const std::string shipped = shipped_models_dir();
      if (shipped.empty()) {
        *error = tr("The shipped checkpoints (assets/models) were not found next to the program.");
        return false;
      }
      return load_task_checkpoint(shipped + (s.model == HeadsModel::Sort ? "/sort" : "/induction"), out, error);
    }
  }
}

// The lines probe: each text line through the model's vocabulary; usable when every line has the same count.
void lines_probe(const std::string& text, const TokenVocabulary& vocab, HeadRoleParams* p, std::string* note) {
  std::vector<int> all;
  int per_line = -1;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of("/\n", start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    std::vector<int> ids;
    std::string why;
    if (!vocab.encode(line, false, &ids, &why)) {
      *note = subst(tr("previous line not measured: {0}"), {why});
      return;
    }
    if (per_line >= 0 && static_cast<int>(ids.size()) != per_line) {
      *note = subst(tr("previous line not measured: the lines have {0} and {1} tokens (they must be equal)"),
                    {std::to_string(per_line), std::to_string(ids.size())});
      return;
    }
    per_line = static_cast<int>(ids.size());
    all.insert(all.end(), ids.begin(), ids.end());
  }
  if (per_line <= 0 || static_cast<int>(all.size()) < 2 * per_line) {
    *note = tr("previous line not measured: give at least two lines of text");
    return;
  }
  p->lines = std::move(all);
  p->line_length = per_line;
}

HeadsPtr compute(const HeadsState& s, Progress& progress) {
  auto r = std::make_shared<HeadsResult>();
  StepperModel model;
  if (!load_chosen(s, progress, &model, &r->error)) return r;
  r->model_name = model.source.empty() ? model.name : model.source;
  r->vocab = model.vocabulary ? model.vocabulary : TokenVocabulary::bytes();
  HeadRoleParams p;
  p.length = s.length;
  p.samples = s.samples;
  p.seed = static_cast<uint64_t>(s.seed);
  p.threshold = s.threshold;
  // Random probes draw ordinary tokens: no <bos>, <unk> or other special token.
  const int V = std::min(model.config.vocab, r->vocab->size());
  for (int id = 0; id < V; ++id)
    if (!r->vocab->display({id}, 0).special) p.pool.push_back(id);
  lines_probe(s.lines, *r->vocab, &p, &r->lines_note);
  if (!r->lines_note.empty()) p.lines.clear();
  const bool toy = s.model == HeadsModel::Induction || s.model == HeadsModel::Sort;
  r->lines_hint = toy && !r->lines_note.empty() && s.lines == HeadsState{}.lines;
  if (const std::string e = validate(p, model.config); !e.empty() && !p.lines.empty()) {
    r->lines_note = subst(tr("previous line not measured: {0}"), {e});  // e.g. two lines longer than max_seq
    p.lines.clear();
    p.line_length = 0;
  }
  r->map = score_head_roles(model.config, *model.weights, p, [&](float f) {
    progress.set(0.5f + 0.5f * f);
    return !progress.cancelled();
  });
  if (r->error.empty()) r->error = r->map.error;
  return r;
}

std::string error_of(const HeadsResult& r) { return r.error; }

bool quick(const HeadsState& s) { return s.model == HeadsModel::Induction || s.model == HeadsModel::Sort; }

// [SECTION] figures

constexpr uint32_t kDarkText = 0x101010FF, kLightText = 0xF4F4F4FF;
constexpr const char* kShortRole[] = {N_("prev"), N_("induct"), N_("sink"), N_("line"), N_("start"), N_("rhyme")};
static_assert(std::size(kShortRole) == kHeadRoleCount);

std::vector<std::string> head_labels(int heads) {
  std::vector<std::string> out;
  for (int h = 0; h < heads; ++h) out.push_back(std::string("H").append(std::to_string(h)));
  return out;
}
std::vector<std::string> layer_labels(int layers) {
  std::vector<std::string> out;
  for (int l = 0; l < layers; ++l) out.push_back(std::string("L").append(std::to_string(l)));
  return out;
}

// The options of a 0 … 1 heatmap; with a map, labelled as its layer × head grid (rows layers, columns heads).
plot::HeatmapOptions unit_heatmap(const char* value_label, const HeadRoleMap* m = nullptr) {
  plot::HeatmapOptions o;
  o.vmin = 0;
  o.vmax = 1;
  o.value_label = value_label;
  if (m) {
    o.row_labels = layer_labels(m->layers);
    o.col_labels = head_labels(m->heads);
  }
  return o;
}

plot::Figure map_figure(const HeadsResult& r) {
  const HeadRoleMap& m = r.map;
  plot::Figure fig("map", tr("Head roles: the best-matching role of every head"));
  const int L = m.layers, H = m.heads;
  std::vector<double> top(static_cast<size_t>(L * H), 0.0);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      double best = 0;
      for (int k = 0; k < kHeadRoleCount; ++k)
        if (m.measured[static_cast<size_t>(k)]) best = std::max(best, double(m.score[static_cast<size_t>(k)](l, h)));
      top[static_cast<size_t>(l * H + h)] = best;
    }
  plot::Axes& ax = fig.axes();
  ax.setup(tr("head"), "", tr("layer"), "");
  ax.heatmap(tr("best score"), top.data(), L, H, unit_heatmap(tr("score"), &m));
  if (L * H <= 400)
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) {
        const int b = m.best[static_cast<size_t>(l * H + h)];
        const double v = top[static_cast<size_t>(l * H + h)];
        plot::TextItem& t = ax.text(
            (b >= 0 ? std::string(tr(kShortRole[b])) : std::string("\xE2\x80\x94")) + " " + plot::fmt("%.2f", v), h, l);
        t.align_x = 0.5f;
        t.color = v > 0.55 ? kDarkText : kLightText;  // viridis is light above ~0.55
      }
  fig.note = subst(tr("{0}: a head takes the role with the highest score when it reaches {1}; \xE2\x80\x94 = none"),
                   {r.model_name, plot::fmt("%.2f", m.threshold)});
  plot::Table& t = fig.table;
  t.header = {"layer", "head"};
  for (int k = 0; k < kHeadRoleCount; ++k) t.header.push_back(head_role_key(static_cast<HeadRole>(k)));
  for (const char* c : {"best_role", "example_role", "example_query", "example_key", "example_weight"})
    t.header.push_back(c);
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      const size_t i = static_cast<size_t>(l * H + h);
      std::vector<plot::Cell> row = {double(l), double(h)};
      for (int k = 0; k < kHeadRoleCount; ++k)
        row.push_back(m.measured[static_cast<size_t>(k)] ? plot::Cell(double(m.score[static_cast<size_t>(k)](l, h)))
                                                         : plot::Cell(std::string()));
      const HeadExample& ex = m.example[i];
      row.push_back(std::string(m.best[i] >= 0 ? head_role_key(static_cast<HeadRole>(m.best[i])) : "none"));
      row.push_back(std::string(head_role_key(ex.role)));
      row.push_back(double(ex.query));
      row.push_back(double(ex.key));
      row.push_back(double(ex.weight));
      t.add_row(std::move(row));
    }
  return fig;
}

plot::Figure scores_figure(const HeadsResult& r) {
  const HeadRoleMap& m = r.map;
  plot::Figure fig("scores", tr("Score of every head for each role"));
  fig.shared_colorbar = true;
  const plot::HeatmapOptions o = unit_heatmap(tr("score"), &m);
  for (int k = 0; k < kHeadRoleCount; ++k) {
    if (!m.measured[static_cast<size_t>(k)]) continue;
    const HeadRole role = static_cast<HeadRole>(k);
    plot::Axes& ax =
        fig.add_axes(subst(tr("{0}: {1} heads"), {tr(head_role_name(role)), std::to_string(m.heads_with_role(role))}));
    ax.setup(tr("head"), "", tr("layer"), "");
    const Mat& s = m.score[static_cast<size_t>(k)];
    ax.heatmap(tr(head_role_name(role)), s.data(), m.layers, m.heads, o);
  }
  if (!r.lines_note.empty()) fig.note = r.lines_note;
  fig.grid_cols = static_cast<int>(fig.grid.size());  // one row: a few layers still leave room for the axis label
  fig.aspect = 0.4f;
  return fig;
}

plot::Figure examples_figure(const HeadsResult& r) {
  const HeadRoleMap& m = r.map;
  plot::Figure fig("examples", tr("The clearest head of each role on its probe"));
  fig.shared_colorbar = true;
  plot::Table& t = fig.table;
  t.header = {"role", "layer", "head", "score", "query", "key", "weight", "tokens"};
  for (int k = 0; k < kHeadRoleCount; ++k) {
    if (!m.measured[static_cast<size_t>(k)]) continue;
    // The head with the highest score for this role, on the probe where it shows the role best.
    const HeadRole role = static_cast<HeadRole>(k);
    const int best_l = m.top_layer[static_cast<size_t>(k)], best_h = m.top_head[static_cast<size_t>(k)];
    const Mat& s = m.score[static_cast<size_t>(k)];
    const HeadExample& ex = m.top_example[static_cast<size_t>(k)];
    plot::Axes& ax = fig.add_axes(subst(tr("{0}: layer {1}, head {2}, score {3}"),
                                        {tr(head_role_name(role)), std::to_string(best_l), std::to_string(best_h),
                                         plot::fmt("%.2f", s(best_l, best_h))}));
    ax.setup(tr("key $j$"), "", tr("query $i$"), "").csv_columns("key $j$", "query $i$");  // CSV: as in English
    const int T = static_cast<int>(ex.tokens.size());
    std::vector<std::string> labels;
    for (int p = 0; p < T; ++p) labels.push_back(std::to_string(p) + ":" + r.vocab->label(ex.tokens[size_t(p)]));
    plot::HeatmapOptions eo = unit_heatmap(tr("probability"));
    eo.row_labels = labels;
    eo.col_labels = labels;
    ax.heatmap("$P$", ex.probs.data(), T, T, eo);
    if (ex.query >= 0) {
      plot::TextItem& mark = ax.text("\xE2\x97\x8B", ex.key, ex.query);  // ○ on the clearest instance
      mark.align_x = 0.5f;
      mark.color = 0xE03030FF;
    }
    std::string tokens;
    for (int p = 0; p < T; ++p) tokens += (p ? " " : "") + r.vocab->spelling(ex.tokens[size_t(p)]);
    t.add_row({std::string(head_role_key(role)), double(best_l), double(best_h), double(s(best_l, best_h)),
               double(ex.query), double(ex.key), double(ex.weight), tokens});
  }
  fig.grid_cols = 2;  // the titles name role, head and score: two maps per row leave them room
  fig.aspect = 0.9f;
  return fig;
}

// [SECTION] panel

class HeadsPanel final : public RecomputePanel<HeadsState, HeadsResult> {
 public:
  HeadsPanel()
      : RecomputePanel(kInfo, {.rows = {{{"map"}, 0.9f}, {{"scores"}, 0.9f}, {{"examples"}, 1.8f}}, .min_width = 360},
                       {compute, error_of, {map_figure, scores_figure, examples_figure}, quick}) {}

 protected:
  void prepare() override {
    if (std::optional<StepperModel> posted = handoffs().take_posted_model(kInfo.id)) {
      s_.stepper = std::make_shared<const StepperModel>(std::move(*posted));
      s_.model = HeadsModel::Stepper;
      request_recompute();
    }
  }
  bool control_visible(const Control& c) const override {
    return c.key != "model_dir" || s_.model == HeadsModel::Folder;
  }
  void draw_summary(const HeadsResult& r) override {
    ImGui::Separator();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", r.model_name.c_str());
    for (int k = 0; k < kHeadRoleCount; ++k) {
      const HeadRole role = static_cast<HeadRole>(k);
      if (!r.map.measured[static_cast<size_t>(k)]) continue;
      ImGui::TextUnformatted(
          subst(tr("{0}: {1} of {2} heads"), {tr(head_role_name(role)), std::to_string(r.map.heads_with_role(role)),
                                              std::to_string(r.map.layers * r.map.heads)})
              .c_str());
    }
    if (r.lines_hint)  // the default state: a hint, not a warning
      ImGui::TextDisabled("%s", tr("The previous-line role needs lines the model can spell: open a text model in "
                                   "the forward stepper (\"What do the heads do?\"), or type lines of this task's "
                                   "symbols (e.g. ABCA/BCAB)."));
    else if (!r.lines_note.empty())
      warning_text(r.lines_note.c_str());
    ImGui::PopTextWrapPos();
  }
  void bind(Controls& c) override {
    c.add_enum("model", &s_.model, {N_("induction"), N_("sort"), N_("stepper"), N_("folder")}, N_("model"),
               N_("induction and sort: the trained checkpoints in assets/models; stepper: the model the forward "
                  "stepper handed over; folder: a Hugging Face model folder."));
    c.add_text("model_dir", &s_.model_dir, 4096, N_("model folder"),
               N_("A Hugging Face folder: config.json, model.safetensors and tokenizer.json."));
    c.add_text("lines", &s_.lines, 2048, N_("lines"),
               N_("Lines with the same number of tokens (a poem), separated by / or a line break, for the line "
                  "roles: the same place one line earlier (previous line), the mark that closed the previous line "
                  "(line start), and from four lines on the previous rhyme character (rhyme)."));
    c.add_int("length", &s_.length, 4, 256, N_("probe length"),
              N_("Tokens of a random probe; the induction probe repeats half of them. Cut to the model's max_seq."));
    c.add_int("samples", &s_.samples, 1, 16, N_("samples"), N_("Random probes averaged for each score."));
    c.add_float("threshold", &s_.threshold, 0.05f, 1.0f, N_("threshold"),
                N_("A head takes its best role when the mean attention on the role's key reaches this; a uniform "
                   "head scores about $\\ln(T)/T$."),
                false, "%.2f");
    c.add_seed(&s_.seed, N_("Seed of the random probes' tokens."));
  }
};

}  // namespace heads_panel

TW_REGISTER_PANEL(heads_panel::HeadsPanel);

}  // namespace tw
