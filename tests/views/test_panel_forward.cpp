// The forward stepper headless: controls in, figures out, every number checked against an independent core run.
// Walks every step of the panel's step tree for two architectures (GQA + RoPE; ALiBi + post-norm + LayerNorm)
// and checks the shape of each step's figure against the config.
#include <gtest/gtest.h>

#include "views/panel_test_util.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "core/experiments/forward_inspect.h"
#include "core/experiments/forward_session.h"
#include "core/model/stepper_model.h"
#include "core/model/weights.h"
#include "core/text/byte_tokenizer.h"
#include "scratch_dir.h"
#include "views/forward/forward_state.h"
#include "views/panel.h"
#include "views/plot/export.h"

namespace tw {
namespace {

using testing::figure_by_id;
using testing::heatmap;
using testing::run;
using testing::set;

// The same model the panel should be running, computed directly in core.
ForwardRun core_run(const ModelConfig& c, const std::string& text, uint64_t seed = 1) {
  const LoadedModel m = load_model(c, {.seed = seed});
  EXPECT_TRUE(m.error.empty()) << m.error;
  return run_prompt(c, m.weights, ByteTokenizer::encode(text));
}

// The seeded tiny preset on the text these tests were written for (the panel itself opens on the trained sort
// model: tests/views/test_panel_forward_models.cpp).
std::unique_ptr<Panel> tiny_panel() {
  auto p = make_panel("forward");
  set(*p, "model", "tiny");
  set(*p, "text", "The cat sat on");
  return p;
}

TEST(PanelForward, TinyFiguresMatchCore) {
  auto p = tiny_panel();
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  std::set<std::string> ids;
  for (const auto& f : figs) ids.insert(f.id);
  EXPECT_EQ(ids, (std::set<std::string>{"step", "strip", "residual", "next", "params", "lens", "families"}));

  const ForwardRun ref = core_run(tiny_config(), "The cat sat on");
  const TraceStep* probs = ref.trace.find("layers.0.attn.probs");
  ASSERT_NE(probs, nullptr);
  const plot::Figure& step = figure_by_id(figs, "step");
  const int T = 14, H = 4;
  ASSERT_EQ(step.grid.size(), size_t(H));  // one map per query head
  EXPECT_EQ(step.grid[0].title, "head 0 · kv 0");
  EXPECT_EQ(step.grid[3].title, "head 3 · kv 1");  // GQA ratio 2: heads 2 and 3 read KV head 1
  for (int h = 0; h < H; ++h) {
    const plot::HeatmapItem& m = heatmap(step.grid[static_cast<size_t>(h)]);
    ASSERT_EQ(m.rows, T);
    ASSERT_EQ(m.cols, T);
    for (int i = 0; i < T; ++i)
      for (int j = 0; j < T; ++j) EXPECT_EQ(m.data[static_cast<size_t>(i * T + j)], probs->value(h * T + i, j));
  }
  EXPECT_EQ(heatmap(step.grid[0]).options.row_labels.front(), "0:T");

  // Residual stream: one line per token, the norms core computes.
  const ResidualNorms norms = residual_norms(ref.trace, NormPlacement::Pre);
  const plot::Figure& res = figure_by_id(figs, "residual");
  int lines = 0;
  for (const auto& item : res.grid.at(0).items)
    if (const auto* line = std::get_if<plot::LineItem>(&item)) {
      ASSERT_EQ(line->ys.size(), norms.steps.size());
      for (size_t s = 0; s < line->ys.size(); ++s)
        EXPECT_NEAR(line->ys[s], norms.norms(static_cast<Eigen::Index>(s), lines), 1e-9);
      ++lines;
    }
  EXPECT_EQ(lines, T);

  // Parameter table: the tiny config's total.
  const plot::Figure& params = figure_by_id(figs, "params");
  ASSERT_FALSE(params.table.rows.empty());
  EXPECT_EQ(std::get<double>(params.table.rows.back().back()), double(parameter_count(tiny_config())));
}

TEST(PanelForward, TinyFollowsAKeystrokeWithinTheSameUpdate) {
  auto p = tiny_panel();
  run(*p);
  set(*p, "text", "ab");
  p->update();  // no wait_idle: the tiny model must already be current
  const plot::Figure step = p->figures().at(0);
  ASSERT_FALSE(step.grid.empty());
  EXPECT_EQ(heatmap(step.grid[0]).rows, 2);
}

// Walks every step the panel offers and checks its figure against the config.
void walk_every_step(Panel& p, const ModelConfig& c, int T) {
  const ForwardRun ref = core_run(c, "héllo!");
  ASSERT_TRUE(ref.ok()) << ref.error;
  const auto groups = step_groups(ref.trace);
  size_t visited = 0;
  for (const StepGroup& g : groups)
    for (int index : g.steps) {
      const TraceStep& s = ref.trace.steps()[static_cast<size_t>(index)];
      SCOPED_TRACE(s.name);
      set(p, "step", s.name);
      const auto figs = run(p);
      EXPECT_EQ(p.controls().find("step")->get(), s.name);  // the name exists, so the panel stays on it
      const plot::Figure& fig = figure_by_id(figs, "step");
      EXPECT_NE(fig.title.find(s.name), std::string::npos);
      EXPECT_NE(fig.note.find(s.formula), std::string::npos);
      ++visited;
      if (is_attention_map(s)) {
        ASSERT_EQ(fig.grid.size(), size_t(c.n_heads));
        for (const plot::Axes& ax : fig.grid) {
          EXPECT_EQ(heatmap(ax).rows, T);
          EXPECT_EQ(heatmap(ax).cols, T);
        }
        continue;
      }
      ASSERT_EQ(fig.grid.size(), 1u);
      const plot::HeatmapItem& m = heatmap(fig.grid[0]);
      EXPECT_EQ(m.rows, T);
      const std::string sub = sub_step_name(s.name);
      int cols = c.dim;
      if (sub == "attn.q" || sub == "attn.q_rope" || sub == "attn.out") cols = c.n_heads * c.head_dim();
      if (sub == "attn.k" || sub == "attn.v" || sub == "attn.k_rope") cols = c.n_kv_heads * c.head_dim();
      if (sub == "mlp.gate" || sub == "mlp.up" || sub == "mlp.hidden") cols = c.hidden;
      if (sub == "logits") cols = c.vocab;
      EXPECT_EQ(m.cols, cols);
      for (int i = 0; i < m.rows * m.cols; i += 7)  // the values are the step's output
        EXPECT_EQ(m.data[static_cast<size_t>(i)], s.value.data()[i]);
    }
  EXPECT_EQ(visited, ref.trace.steps().size());
}

TEST(PanelForward, WalkEveryStepGqaRope) {
  auto p = tiny_panel();
  set(*p, "text", "héllo!");
  ModelConfig c = tiny_config();  // RoPE, pre-norm, SwiGLU, 4 heads over 2 KV heads
  walk_every_step(*p, c, 7);
}

TEST(PanelForward, WalkEveryStepAlibiPostNorm) {
  auto p = tiny_panel();
  set(*p, "text", "héllo!");
  set(*p, "positions", "alibi");
  set(*p, "placement", "post");
  set(*p, "norm", "layernorm");
  set(*p, "activation", "gelu");
  set(*p, "gqa_ratio", 1);
  set(*p, "pattern", "interleaved");
  set(*p, "window", 3);
  set(*p, "full_every", 2);
  ModelConfig c = tiny_config();
  c.positions = PositionType::ALiBi;
  c.placement = NormPlacement::Post;
  c.norm = NormType::LayerNorm;
  c.activation = ActivationKind::GELU;
  c.n_kv_heads = 4;
  c.attention = AttentionPattern::Sliding;
  c.window = 3;
  c.full_every = 2;
  walk_every_step(*p, c, 7);
  // A step name this architecture lacks (no RoPE) falls back to a real step instead of failing.
  set(*p, "step", "layers.0.attn.q_rope");
  run(*p);
  EXPECT_NE(p->controls().find("step")->get(), "layers.0.attn.q_rope");
}

TEST(PanelForward, InvalidConfigKeepsTheLastValidModel) {
  auto p = tiny_panel();
  const auto before = run(*p);
  set(*p, "model", "custom");
  set(*p, "n_heads", 3);  // 64 is not divisible by 3
  const auto during = run(*p);
  ASSERT_EQ(during.size(), before.size());
  EXPECT_EQ(figure_by_id(during, "step").grid.size(), 4u);  // still the 4-head model
  EXPECT_EQ(heatmap(figure_by_id(during, "step").grid[0]).data, heatmap(figure_by_id(before, "step").grid[0]).data);
  set(*p, "n_heads", 8);
  set(*p, "gqa_ratio", 4);
  const auto after = run(*p);
  EXPECT_EQ(figure_by_id(after, "step").grid.size(), 8u);
  // Text the model cannot take (longer than max_seq) also keeps the shown run.
  set(*p, "max_seq", 4);
  set(*p, "text", "too long for four");
  const auto too_long = run(*p);
  EXPECT_EQ(figure_by_id(too_long, "step").grid.size(), 8u);
  EXPECT_EQ(heatmap(figure_by_id(too_long, "step").grid[0]).rows, 14);
}

TEST(PanelForward, EachConfigProblemIsDrawnBesideItsOwnField) {
  ForwardState s;
  s.model = ForwardModel::Custom;
  s.config.n_heads = 6;  // dim 64 / 6 heads: not a whole head_dim
  s.gqa_ratio = 4;       // does not divide 6 (the message names n_heads too, but belongs to the ratio slider)
  s.pattern = ForwardPattern::Interleaved;
  s.full_every = 0;
  std::vector<ConfigProblem> problems;
  forward_config(s, &problems);
  ASSERT_GE(problems.size(), 3u);
  const auto ratio = messages_for_field(problems, "gqa_ratio");
  ASSERT_EQ(ratio.size(), 1u);
  EXPECT_NE(ratio[0].find("gqa_ratio 4 must divide n_heads 6"), std::string::npos) << ratio[0];
  EXPECT_EQ(messages_for_field(problems, "full_every").size(), 1u);
  for (const std::string& m : messages_for_field(problems, "n_heads"))
    EXPECT_EQ(m.find("gqa_ratio"), std::string::npos);
  EXPECT_TRUE(messages_for_field(problems, "").empty());  // every one of them has a control to stand beside
  ForwardState tiny;
  tiny.model = ForwardModel::Tiny;
  std::vector<ConfigProblem> none;
  forward_config(tiny, &none);
  EXPECT_TRUE(none.empty());
}

TEST(PanelForward, MissingCheckpointIsAMessageNotACrash) {
  auto p = tiny_panel();
  run(*p);
  set(*p, "weights", "checkpoint");
  set(*p, "checkpoint", "/nonexistent/model.safetensors");
  const auto figs = run(*p);
  EXPECT_EQ(figure_by_id(figs, "step").grid.size(), 4u);  // the seeded model stays
}

TEST(PanelForward, AppendAndContinueUsesTheKvCache) {
  auto p = tiny_panel();
  set(*p, "text", "ab");
  set(*p, "temperature", 0.7);
  set(*p, "top_k", 5);
  set(*p, "sample_seed", 3);
  set(*p, "step", "layers.1.attn.scores");
  const auto first = run(*p);
  // The sampled token shown now is the one the next append adds.
  int shown = -1;
  for (const auto& row : figure_by_id(first, "next").table.rows)
    if (std::get<double>(row.back()) == 1.0) shown = static_cast<int>(std::get<double>(row.front()));
  ASSERT_GE(shown, 0);
  set(*p, "generated", 2);
  const auto figs = run(*p);

  // Independently: prompt, then two sampled tokens through the cache with the same settings.
  const ModelConfig c = tiny_config();
  const LoadedModel m = load_model(c, {.seed = 1});
  ForwardRun ref = run_prompt(c, m.weights, ByteTokenizer::encode("ab"));
  SamplingConfig sc;
  sc.temperature = 0.7f;
  sc.top_k = 5;
  std::vector<int> appended;
  for (int i = 0; i < 2; ++i) {
    // The panel's byte model draws only bytes that keep the text valid UTF-8.
    const NextTokenChoice next = choose_next_token(ref, sc, 3, i, TokenVocabulary::bytes().get());
    ASSERT_TRUE(next.error.empty()) << next.error;
    EXPECT_LE(next.filter.n_top_k, 5 + 2);  // ties at the 5th value may add a few; float logits rarely tie
    appended.push_back(next.sampled);
    ref = run_append(ref, next.sampled);
  }
  EXPECT_EQ(appended.front(), shown);
  const plot::Figure& step = figure_by_id(figs, "step");
  ASSERT_EQ(step.grid.size(), 4u);
  EXPECT_EQ(heatmap(step.grid[0]).rows, 1);  // only the newest token is a query
  EXPECT_EQ(heatmap(step.grid[0]).cols, 4);  // it attends to the prompt and both appended tokens
  const Mat& scores = ref.trace.find("layers.1.attn.scores")->value;
  for (int j = 0; j < 4; ++j) EXPECT_EQ(heatmap(step.grid[2]).data[static_cast<size_t>(j)], scores(2, j));
  EXPECT_EQ(heatmap(step.grid[0]).options.col_labels.back(), "3:" + ByteTokenizer::label(appended.back()));
  EXPECT_LT(ref.cache_check, 1e-4);
}

// The byte tokenizer on Chinese text: every byte is a token, so a character is three tokens; each shows its byte
// as ⟨E5⟩ (as a tokenizer.json model's partial tokens do) and names the character its neighbours complete, never
// as \xE5.
TEST(PanelForward, ByteTokensOfAChinesePoemShowTheirBytesAndCharacter) {
  const std::string poem = "床前明月光，疑是地上霜。";
  auto p = make_panel("forward");
  set(*p, "model", "tiny");
  set(*p, "text", poem);
  const auto figs = run(*p);
  EXPECT_EQ(p->error(), "");
  const std::vector<int> ids = ByteTokenizer::encode(poem);
  const auto vocab = TokenVocabulary::bytes();
  const TokenDisplay first = vocab->display(ids, 0), second = vocab->display(ids, 1);
  EXPECT_EQ(first.text,
            "\xE2\x9F\xA8"
            "E5"
            "\xE2\x9F\xA9");  // ⟨E5⟩
  EXPECT_EQ(second.text,
            "\xE2\x9F\xA8"
            "BA"
            "\xE2\x9F\xA9");
  EXPECT_TRUE(first.partial);
  EXPECT_EQ(first.character, "床");
  EXPECT_EQ(vocab->display(ids, 2).character, "床");
  EXPECT_EQ(vocab->display(ids, 3).character, "前");
  EXPECT_EQ(vocab->display(ids, 15).character, "，");
  EXPECT_EQ(vocab->display(ids, ids.size() - 1).character, "。");
  // The step figure's key labels are the same display, position by position (a <bos> may lead).
  const auto& keys = heatmap(figure_by_id(figs, "step").grid[0]).options.col_labels;
  ASSERT_GE(keys.size(), ids.size());
  const size_t lead = keys.size() - ids.size();
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(keys[lead + i], std::to_string(lead + i) + ":" + vocab->display(ids, i).text) << i;
    EXPECT_EQ(keys[lead + i].find("\\x"), std::string::npos) << keys[lead + i];
  }
}

TEST(PanelForward, SmallConfigRecomputesOffTheUiThread) {
  auto p = tiny_panel();
  run(*p);
  set(*p, "model", "small");
  const auto t0 = std::chrono::steady_clock::now();
  p->update();  // must return at once: initialising 7.3M weights takes far longer than a frame
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 100.0);
  EXPECT_EQ(p->figures().at(0).grid.size(), 4u);  // the tiny model stays on screen meanwhile
  p->wait_idle();
  EXPECT_EQ(p->figures().at(0).grid.size(), 8u);  // then Small's 8 heads
}

TEST(PanelForward, SmallConfigAndExportedStrip) {
  auto p = tiny_panel();
  set(*p, "model", "small");
  set(*p, "text", "Hi");
  set(*p, "strip_layer", 3);
  const auto figs = run(*p);
  const plot::Figure& params = figure_by_id(figs, "params");
  EXPECT_EQ(std::get<double>(params.table.rows.back().back()), double(parameter_count(small_config())));
  EXPECT_EQ(parameter_count(small_config()), 7342336);  // 2·8192·256 + 4·786944 + 256
  const plot::Figure& strip = figure_by_id(figs, "strip");
  EXPECT_EQ(strip.title, "Layer 3, step by step");
  // Pre-norm RoPE SwiGLU block: 17 steps (norm, q, k, v, 2 rope, scores, probs, out, proj, add, norm, gate, up,
  // act, down, add).
  EXPECT_EQ(strip.grid.size(), 17u);
  const plot::RenderedPng png = plot::render_png(strip, {});
  EXPECT_TRUE(png.error.empty()) << png.error;
  EXPECT_GT(png.width, 0);
  EXPECT_GT(png.png.size(), 1000u);
}

// The Families figure is core's comparison of the two shapes, row for row: the step names, the level of
// each cell (same / differs / one model only) and the formulas each trace recorded, on screen and in the CSV; and it
// exports to PNG, SVG and CSV headless.
TEST(PanelForward, FamiliesFigureIsCoresComparisonAndExports) {
  auto p = tiny_panel();
  set(*p, "tab", "families");
  const auto figs = run(*p);
  const plot::Figure& fig = figure_by_id(figs, "families");
  const FamilyComparison cmp = compare_family_steps(gpt2_shaped_config(), llama_shaped_config());
  ASSERT_TRUE(cmp.error.empty()) << cmp.error;
  const int R = static_cast<int>(cmp.rows.size());
  ASSERT_GT(R, 10);
  const plot::HeatmapItem& h = heatmap(fig.grid.at(0));
  ASSERT_EQ(h.rows, R);
  ASSERT_EQ(h.cols, 2);
  std::vector<std::string> texts;
  for (const plot::Item& it : fig.grid[0].items)
    if (const auto* t = std::get_if<plot::TextItem>(&it)) texts.push_back(t->text);
  size_t text_index = 0;
  for (int i = 0; i < R; ++i) {
    const FamilyStepRow& r = cmp.rows[static_cast<size_t>(i)];
    EXPECT_EQ(h.options.row_labels.at(static_cast<size_t>(i)), r.step);
    const double a = h.data[static_cast<size_t>(2 * i)], b = h.data[static_cast<size_t>(2 * i + 1)];
    EXPECT_EQ(a == 0, r.match == StepMatch::Same) << r.step;
    EXPECT_EQ(a == 1, r.match == StepMatch::Differs) << r.step;
    EXPECT_EQ(a == 2, r.match == StepMatch::OnlyA) << r.step;
    EXPECT_EQ(b == 2, r.match == StepMatch::OnlyB) << r.step;
    EXPECT_EQ(a == 3, r.match == StepMatch::OnlyB) << r.step;
    EXPECT_EQ(b == 3, r.match == StepMatch::OnlyA) << r.step;
    for (const std::string* f : {&r.formula_a, &r.formula_b}) {
      if (f->empty()) continue;
      ASSERT_LT(text_index, texts.size());
      EXPECT_EQ(texts[text_index++], *f) << r.step;
    }
  }
  EXPECT_EQ(text_index, texts.size());
  const plot::Table csv = plot::figure_table(fig);
  ASSERT_EQ(csv.rows.size(), cmp.rows.size());
  for (size_t i = 0; i < cmp.rows.size(); ++i) {
    EXPECT_EQ(testing::str(csv.rows[i][0]), cmp.rows[i].step);
    EXPECT_EQ(testing::str(csv.rows[i][2]), cmp.rows[i].formula_a);
    EXPECT_EQ(testing::str(csv.rows[i][4]), cmp.rows[i].formula_b);
  }
  testing::ScratchDir dir("tw-families-export");
  std::vector<std::string> written;
  EXPECT_EQ(plot::export_figure(fig, dir.path(), "forward", plot::ExportFormat_All, {}, &written), "");
  ASSERT_EQ(written.size(), 3u);
  for (const std::string& path : written) EXPECT_GT(std::filesystem::file_size(path), 500u) << path;
}

}  // namespace
}  // namespace tw
