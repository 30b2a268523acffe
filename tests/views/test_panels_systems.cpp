// The flash, roofline, moe and tokenizers panels headless: figure tables equal the core calls they come from,
// error states show no figures, and every figure lays out without problems at its on-screen and export sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "core/experiments/flash_walkthrough.h"
#include "core/experiments/moe_routing.h"
#include "core/experiments/roofline.h"
#include "core/text/tokenizer.h"
#include "core/text/tokenizer_training.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"

namespace tw {
namespace {

using namespace testing;  // by_id, num, run, set, str

// [SECTION] flash

TEST(PanelFlash, RunningStateAndTrafficFromCore) {
  auto p = panel_with("flash", {{"T", 12}, {"tile_q", 4}, {"tile_k", 3}, {"step", 6}, {"seed", 3}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  const FlashWalkParams q{.T = 12, .D = 8, .tile_q = 4, .tile_k = 3, .causal = true, .seed = 3};
  const FlashWalkthrough w = flash_walkthrough(q);
  // The schedule lists every step of the kernel; the running figure shows step 6's m and ℓ.
  const plot::Figure* sched = by_id(figs, "schedule");
  ASSERT_NE(sched, nullptr);
  ASSERT_EQ(sched->table.rows.size(), w.steps.size());
  const plot::Figure* run_fig = by_id(figs, "running");
  ASSERT_NE(run_fig, nullptr);
  const FlashStep& st = w.steps[6];
  ASSERT_EQ(run_fig->table.rows.size(), size_t(st.nq));
  for (int i = 0; i < st.nq; ++i) {
    EXPECT_EQ(num(run_fig->table.rows[size_t(i)][0]), st.q0 + i);
    EXPECT_EQ(num(run_fig->table.rows[size_t(i)][1]), st.m[size_t(i)]);
    EXPECT_EQ(num(run_fig->table.rows[size_t(i)][2]), st.l[size_t(i)]);
  }
  // Traffic: the curve is the core formula, and at the walked T it equals the kernel's count.
  const plot::Figure* traffic = by_id(figs, "traffic");
  ASSERT_NE(traffic, nullptr);
  EXPECT_EQ(traffic->table.header, (std::vector<std::string>{"T", "standard_floats", "tiled_floats",
                                                             "tiled_causal_floats", "tiled_causal_64_floats"}));
  bool saw_walked = false;
  for (const auto& row : traffic->table.rows) {
    const int T = int(num(row[0]));
    EXPECT_EQ(num(row[1]), standard_attention_floats(T, 8));
    EXPECT_EQ(num(row[3]), tiled_attention_floats(T, 8, std::min(4, T), std::min(3, T), true));
    EXPECT_EQ(num(row[4]), tiled_attention_floats(T, 8, std::min(64, T), std::min(64, T), true));
    if (T == 12) {
      saw_walked = true;
      EXPECT_EQ(num(row[3]), w.tiled_floats_counted);
    }
  }
  EXPECT_TRUE(saw_walked);
}

// The closed form of the traffic curve equals counting the kernel's tiles one by one.
TEST(PanelFlash, TrafficCurveMatchesCountedTilesForOddSizes) {
  for (int T : {1, 5, 13, 32})
    for (int tq : {1, 3, 4})
      for (int tk : {1, 2, 5}) {
        if (tq > T || tk > T) continue;
        FlashWalkParams q;
        q.T = T, q.D = 4, q.tile_q = tq, q.tile_k = tk, q.causal = true;
        EXPECT_EQ(tiled_attention_floats(T, 4, tq, tk, true), flash_walkthrough(q).tiled_floats_counted)
            << T << " " << tq << " " << tk;
        q.causal = false;
        EXPECT_EQ(tiled_attention_floats(T, 4, tq, tk, false), flash_walkthrough(q).tiled_floats_counted);
      }
}

TEST(PanelFlash, TileLargerThanTIsAnErrorWithoutFigures) {
  auto p = panel_with("flash", {{"T", 8}, {"tile_q", 16}});
  expect_error_without_figures(p, "query tile");
  set(*p, "tile_q", 4);
  EXPECT_FALSE(run(*p).empty());
  EXPECT_EQ(p->error(), "");
}

// [SECTION] roofline

TEST(PanelRoofline, DecodeCurveFromCore) {
  auto p = panel_with(
      "roofline",
      {{"measure", false}, {"model", "Llama-3-8B"}, {"device", "NVIDIA A100 SXM 80GB (bf16)"}, {"batch", 4}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  const plot::Figure* decode = by_id(figs, "decode");
  ASSERT_NE(decode, nullptr);
  EXPECT_EQ(decode->table.header, (std::vector<std::string>{"context", "tok_s_fp32", "tok_s_bf16", "tok_s_int8",
                                                            "tok_s_int4", "kv_cache_bytes"}));
  InferenceShape s;
  s.model = inference_model_presets()[0].config;
  s.batch = 4;
  const Device a100 = device_presets()[1];
  ASSERT_FALSE(decode->table.rows.empty());
  for (const auto& row : decode->table.rows) {
    s.context = int(num(row[0]));
    s.weights = WeightFormat::Int4;
    EXPECT_EQ(num(row[4]), decode_cost(s, a100).tokens_per_s);
    s.weights = WeightFormat::BF16;
    EXPECT_EQ(num(row[2]), decode_cost(s, a100).tokens_per_s);
    EXPECT_EQ(num(row[5]), kv_cache_bytes(s, s.context));
    // Fewer bytes per weight never decode slower.
    EXPECT_GE(num(row[4]), num(row[3]));
    EXPECT_GE(num(row[3]), num(row[2]));
  }
  // The roofline's two points are the phases' intensities.
  const plot::Figure* roof = by_id(figs, "roofline");
  ASSERT_NE(roof, nullptr);
  s.context = 4096;
  const auto& last = roof->table.rows.back();
  EXPECT_EQ(str(last[0]), "decode");
  EXPECT_EQ(num(last[1]), decode_cost(s, a100).intensity);
  // Measurement off: the measured figure is an empty state with a table header only.
  const plot::Figure* measured = by_id(figs, "measured");
  ASSERT_NE(measured, nullptr);
  EXPECT_TRUE(measured->table.rows.empty());
}

TEST(PanelRoofline, MeasuredNumbersAreFinitePositive) {
  auto p = make_panel("roofline");
  set(*p, "model", "Tiny (this app)");
  set(*p, "device", "this machine (measured)");
  set(*p, "measure", true);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  const plot::Figure* measured = by_id(figs, "measured");
  ASSERT_NE(measured, nullptr);
  ASSERT_EQ(measured->table.rows.size(), 2u);
  for (const auto& row : measured->table.rows)
    for (size_t c = 1; c < 3; ++c) {
      EXPECT_TRUE(std::isfinite(num(row[c])));
      EXPECT_GT(num(row[c]), 0);
    }
  // The measured device's roofline is what the probe found: its ridge is finite and positive.
  const plot::Figure* roof = by_id(figs, "roofline");
  ASSERT_NE(roof, nullptr);
  EXPECT_NE(roof->title.find("this machine"), std::string::npos);
}

// [SECTION] moe

TEST(PanelMoe, LoadsSumToTokensTimesKMinusDrops) {
  auto p = panel_with("moe", {{"tokens", 40}, {"router_bias", 2.0}, {"capacity_factor", 1.0}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  const MoeParams q{.tokens = 40,
                    .dim = 16,
                    .experts = 8,
                    .top_k = 2,
                    .capacity_factor = 1.0,
                    .hidden = 64,
                    .gated = true,
                    .router_bias = 2.0,
                    .seed = 1};
  const MoeRouting m = moe_experiment(q);
  const plot::Figure* load = by_id(figs, "load");
  ASSERT_NE(load, nullptr);
  ASSERT_EQ(load->table.rows.size(), 8u);
  double accepted = 0, wanted = 0;
  for (size_t e = 0; e < 8; ++e) {
    EXPECT_EQ(num(load->table.rows[e][1]), m.wanted[e]);
    EXPECT_EQ(num(load->table.rows[e][2]), m.load[e]);
    EXPECT_LE(num(load->table.rows[e][2]), num(load->table.rows[e][3]));
    wanted += num(load->table.rows[e][1]);
    accepted += num(load->table.rows[e][2]);
  }
  EXPECT_EQ(wanted, 40 * 2);
  EXPECT_EQ(accepted, 40 * 2 - m.n_dropped);
  EXPECT_GT(m.n_dropped, 0);  // bias 2 on expert 0 overflows it
  const plot::Figure* params = by_id(figs, "params");
  ASSERT_NE(params, nullptr);
  EXPECT_EQ(num(params->table.rows[0][1]), double(m.total_params));
  EXPECT_EQ(num(params->table.rows[1][1]), double(m.active_params));
}

TEST(PanelMoe, TopKAboveExpertsIsAnError) {
  expect_error_without_figures(panel_with("moe", {{"experts", 4}, {"top_k", 6}}), "top_k");
}

// [SECTION] tokenizers

TEST(PanelTokenizers, MergesAndCountsFromCore) {
  auto p = make_panel("tokenizers");
  ASSERT_NE(p, nullptr);
  const std::string text = "low lower lowest newest widest low low new new";
  set(*p, "text", text);
  set(*p, "merges", 10);
  set(*p, "vocab", 40);
  set(*p, "step", 3);
  set(*p, "sentence", "lowest new");
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  BpeTraining bpe;
  std::string error;
  ASSERT_TRUE(train_bpe(text, 10, &bpe, &error)) << error;
  const plot::Figure* growth = by_id(figs, "growth");
  ASSERT_NE(growth, nullptr);
  ASSERT_EQ(growth->table.rows.size(), bpe.merges.size());
  for (size_t i = 0; i < bpe.merges.size(); ++i) {
    EXPECT_EQ(str(growth->table.rows[i][3]), bpe.merges[i].merged);
    EXPECT_EQ(num(growth->table.rows[i][4]), double(bpe.merges[i].count));
    EXPECT_EQ(num(growth->table.rows[i][5]), bpe.merges[i].vocab_size);
  }
  // The candidates figure shows merge 3's pairs, the chosen one first.
  const plot::Figure* cand = by_id(figs, "candidates");
  ASSERT_NE(cand, nullptr);
  ASSERT_FALSE(cand->table.rows.empty());
  EXPECT_EQ(str(cand->table.rows[0][1]), bpe.merges[2].left);
  EXPECT_EQ(str(cand->table.rows[0][2]), bpe.merges[2].right);
  // Token counts: BPE's from the trained tokenizer.json loaded into the model-loading encoder; per word, per byte.
  Tokenizer tok;
  ASSERT_TRUE(tokenizer_from_json(bpe.tokenizer_json, &tok, &error)) << error;
  const double n = double(tok.encode("lowest new", false).size());
  const plot::Figure* counts = by_id(figs, "counts");
  ASSERT_NE(counts, nullptr);
  ASSERT_EQ(counts->table.rows.size(), 4u);
  EXPECT_EQ(num(counts->table.rows[0][1]), n);
  EXPECT_DOUBLE_EQ(num(counts->table.rows[0][2]), n / 2);
  EXPECT_DOUBLE_EQ(num(counts->table.rows[0][3]), n / 10);
  WordPieceTraining wp;
  ASSERT_TRUE(train_wordpiece(text, 40, &wp, &error)) << error;
  Tokenizer wp_tok;
  ASSERT_TRUE(tokenizer_from_json(wp.tokenizer_json, &wp_tok, &error)) << error;
  EXPECT_EQ(num(counts->table.rows[2][1]), double(wp_tok.encode("lowest new", false).size()));
}

TEST(PanelTokenizers, MissingFileAndEmptyTextAreErrors) {
  auto p = panel_with("tokenizers", {{"file", "/nonexistent/corpus.txt"}});
  expect_error_without_figures(p, "/nonexistent/corpus.txt: cannot open (No such file or directory) (check the path");
  set(*p, "file", "");
  set(*p, "text", "   ");
  EXPECT_TRUE(run(*p).empty());
  EXPECT_NE(p->error(), "");
  set(*p, "text", "a small text to train on");
  EXPECT_FALSE(run(*p).empty());
}

TEST(PanelTokenizers, OpensATokenizerJsonWithoutAModel) {
  // A BERT-style WordPiece file beside the trained tokenizers: its tokens as text, its ids, its counts.
  const std::string path = std::string(TW_SOURCE_DIR) + "/tests/fuzz/corpus/fuzz_tokenizer_json/wordpiece_bert.json";
  auto p = panel_with("tokenizers", {{"tokenizer_json", path}, {"sentence", "Unaffable!"}});
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  const plot::Figure* counts = by_id(figs, "counts");
  ASSERT_NE(counts, nullptr);
  ASSERT_EQ(counts->table.rows.size(), 5u);
  EXPECT_EQ(str(counts->table.rows[4][0]), "fuzz_tokenizer_json (WordPiece, 7)");
  EXPECT_EQ(num(counts->table.rows[4][1]), 4.0);  // un ##aff ##able !
  EXPECT_DOUBLE_EQ(num(counts->table.rows[4][2]), 4.0);
  EXPECT_DOUBLE_EQ(num(counts->table.rows[4][3]), 4.0 / 10);
  const plot::Figure* seg = by_id(figs, "segmentation");
  ASSERT_NE(seg, nullptr);
  std::vector<std::string> raw;
  std::vector<double> ids;
  for (const auto& row : seg->table.rows)
    if (str(row[0]) == "fuzz_tokenizer_json (WordPiece, 7)") raw.push_back(str(row[2])), ids.push_back(num(row[4]));
  EXPECT_EQ(raw, (std::vector<std::string>{"un", "##aff", "##able", "!"}));
  EXPECT_EQ(ids, (std::vector<double>{3, 4, 5, 6}));
  // A file that cannot be read leaves the trained tokenizers showing.
  set(*p, "tokenizer_json", "/nonexistent/tokenizer.json");
  EXPECT_EQ(by_id(run(*p), "counts")->table.rows.size(), 4u);
  EXPECT_EQ(p->error(), "");
}

// [SECTION] figure quality

// On screen each of these panels draws two figures per row at width w and height 0.62·w; w is at least 380 logical
// pixels (FigureLayout::min_width: narrower windows scroll sideways) and about 620 in a maximised 1600-wide window.
// Exports use default_figure_size.
TEST(PanelSystemsLayout, NoProblemsOnScreenOrExported) {
  for (const char* id : {"flash", "roofline", "moe", "tokenizers"}) {
    auto p = make_panel(id);
    ASSERT_NE(p, nullptr) << id;
    if (std::string(id) == "roofline") set(*p, "measure", false);
    const auto figs = run(*p);
    ASSERT_FALSE(figs.empty()) << id << ": " << p->error();
    for (const plot::Figure& f : figs) {
      const plot::Vec2 exp = plot::default_figure_size(f);
      const std::vector<std::pair<plot::Vec2, plot::Theme>> sizes = {
          {{380, 380 * 0.62f}, plot::Theme::Dark}, {{620, 620 * 0.62f}, plot::Theme::Dark}, {exp, plot::Theme::Print}};
      for (const auto& [size, theme] : sizes) {
        const plot::Layout l = plot::layout_figure(f, {.width = size.x, .height = size.y, .theme = theme});
        std::string all;
        for (const auto& s : l.problems) all += s + "; ";
        EXPECT_TRUE(l.problems.empty()) << id << "-" << f.id << " at " << size.x << "x" << size.y << ": " << all;
      }
    }
  }
}

}  // namespace
}  // namespace tw
