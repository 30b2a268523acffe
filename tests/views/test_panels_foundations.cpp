// The panels of the lessons' foundations (geometry, architectures, n-gram baselines) headless: the CSV columns
// docs/panels.md names, and the numbers in them against independent core calls.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/experiments/architectures.h"
#include "core/experiments/high_dim_geometry.h"
#include "core/experiments/model_bits.h"
#include "core/experiments/ngram_baselines.h"
#include "core/model/config.h"
#include "core/model/hf_model.h"
#include "core/model/weights.h"
#include "core/text/corpus.h"
#include "core/text/kneser_ney.h"
#include "core/text/ngram.h"
#include "core/text/pretokenizer.h"
#include "core/train/model_folder.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"
#include "views/plot/layout.h"

namespace tw {
namespace {

using testing::figure_by_id;
using testing::panel_with;
using testing::run;

using testing::num;

// Every figure of these panels is laid out without problems at export and on-screen sizes by test_figure_quality and
// test_figure_legends, which cover every registered panel; here, the numbers.

TEST(GeometryPanel, TablesHoldTheCoreNumbers) {
  auto p = panel_with("geometry", {{"d", 256}, {"matrix", "random"}, {"size", 32}, {"rank_r", 5}, {"seed", 7}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  GeometryParams g;
  g.d = 256;
  g.matrix = GeometryMatrix::Random;
  g.size = 32;
  g.rank_r = 5;
  g.seed = 7;
  const GeometryAnalysis a = analyze_geometry(g);

  const plot::Table sweep = plot::figure_table(figure_by_id(figs, "sweep"));
  EXPECT_EQ(sweep.header, (std::vector<std::string>{"d", "norm_over_sqrt_d", "norm_rel_std", "cos_std", "angle_std_deg",
                                                    "far_near_ratio"}));
  ASSERT_EQ(sweep.rows.size(), a.sweep.size());
  EXPECT_EQ(num(sweep.rows.back()[0]), 4096);
  EXPECT_DOUBLE_EQ(num(sweep.rows.back()[5]), a.sweep.back().far_near_ratio);

  const plot::Table spectrum = plot::figure_table(figure_by_id(figs, "spectrum"));
  EXPECT_EQ(spectrum.header, (std::vector<std::string>{"rank", "singular_value", "energy_kept", "tail_error"}));
  ASSERT_EQ(spectrum.rows.size(), 33u);  // ranks 0 … 32
  // Eckart–Young in the exported numbers: the tail error at r is the sum of the squared singular values after r.
  double tail = 0;
  for (size_t i = 6; i < spectrum.rows.size(); ++i) tail += std::pow(num(spectrum.rows[i][1]), 2);
  EXPECT_NEAR(num(spectrum.rows[5][3]), tail, 1e-9 * a.spectrum.frobenius2);

  const plot::Table keys = plot::figure_table(figure_by_id(figs, "keys"));
  EXPECT_EQ(keys.header,
            (std::vector<std::string>{"key", "norm", "cosine", "score_dot", "p_dot", "score_cos", "p_cos"}));
  EXPECT_NEAR(num(keys.rows[0][2]), 0.3, 1e-12);
}

TEST(GeometryPanel, BadValueIsAnErrorNotACrash) {
  auto p = make_panel("geometry");
  ASSERT_NE(p, nullptr);
  // The controls refuse out-of-range values; a layer past the sort model's two is refused by core.
  testing::set(*p, "matrix", "sort model");
  testing::set(*p, "layer", 1);
  const auto figs = run(*p);
  EXPECT_EQ(p->error(), "");
  EXPECT_NE(figure_by_id(figs, "spectrum").title.find("sort model"), std::string::npos);
}

TEST(ArchitecturesPanel, OwnModelCountedLikeTheTable) {
  auto p = panel_with("architectures", {{"d_model", 4096},
                                        {"layers", 32},
                                        {"heads", 32},
                                        {"kv_heads", 8},
                                        {"d_ff", 14336},
                                        {"vocab", 32000},
                                        {"gated", true},
                                        {"tied", false}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  // Mistral 7B's shape: the breakdown's bars add up to its published 7,241,732,096.
  const plot::Table t = plot::figure_table(figure_by_id(figs, "breakdown"));
  double total = 0;
  for (const auto& row : t.rows) total += num(row.back());
  EXPECT_EQ(total, 7241732096.0);
  const plot::Table models = plot::figure_table(figure_by_id(figs, "counts"));
  EXPECT_EQ(models.rows.size(), published_architectures().size());
  EXPECT_EQ(models.header.back(), "source");
}

// The shipped sort model placed on every ratio plot: its point sits at the count the model code gives for its own
// weights, at the ratios of its config.json; a folder without a config.json names the problem and the figures stay.
TEST(ArchitecturesPanel, TheLoadedModelIsPlacedOnEveryPlot) {
  auto p = panel_with("architectures", {{"placed", "sort model"}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  ModelConfig m;
  std::string error;
  ASSERT_TRUE(load_config(shipped_models_dir() + "/sort/config.json", &m, &error)) << error;
  const double n = double(parameter_count(init_weights(m, 1)));
  const std::pair<const char*, double> expected[] = {{"mlp_ratio", double(m.hidden) / m.dim},
                                                     {"head_dim", double(m.dim / m.n_heads)},
                                                     {"aspect", double(m.dim) / m.n_layers},
                                                     {"vocab", double(m.vocab)}};
  for (const auto& [id, value] : expected) {
    const plot::Table t = plot::figure_table(figure_by_id(figs, id));
    ASSERT_FALSE(t.rows.empty()) << id;
    const auto& last = t.rows.back();
    EXPECT_EQ(std::get<std::string>(last[0]), "loaded model") << id;
    EXPECT_EQ(num(last[1]), n) << id;
    EXPECT_DOUBLE_EQ(num(last[2]), value) << id;
  }
  // Nothing placed: the last row is your model again.
  auto none = panel_with("architectures", {{"placed", "none"}});
  const plot::Table t = plot::figure_table(figure_by_id(run(*none), "mlp_ratio"));
  EXPECT_EQ(std::get<std::string>(t.rows.back()[0]), "your model");
  // A folder with no config.json: the figures stay, without the point.
  auto bad = panel_with("architectures", {{"placed", "folder"}, {"model_dir", "/nonexistent-folder"}});
  const auto bad_figs = run(*bad);
  EXPECT_EQ(bad->error(), "");
  EXPECT_EQ(std::get<std::string>(plot::figure_table(figure_by_id(bad_figs, "vocab")).rows.back()[0]), "your model");
}

// A language model folder beside the n-grams: its held-out bits per character are core's model_bits_per_char of
// the same held-out records (tests/core/experiments/test_model_bits checks that number); a broken folder is a note.
TEST(NgramPanel, ALoadedModelsBitsPerCharacterSitBesideTheNgrams) {
  namespace fs = std::filesystem;
  const std::string dir = ::testing::TempDir() + "/ngram_model_folder";
  fs::remove_all(dir);
  const ModelConfig c{
      .dim = 32, .n_layers = 1, .n_heads = 4, .n_kv_heads = 2, .vocab = 257, .hidden = 48, .max_seq = 64};
  std::vector<std::string> files;
  std::string error;
  ASSERT_TRUE(save_hf_checkpoint(dir, init_weights(c, 5), c, {}, &files, &error)) << error;
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level_alphabet()[size_t(b)]] = b;
  const nlohmann::json tok = {
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}},
      {"added_tokens", nlohmann::json::array({{{"id", 256}, {"content", "<|endoftext|>"}, {"special", true}}})},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}}};
  std::ofstream(dir + "/tokenizer.json", std::ios::binary) << tok.dump();

  auto p = panel_with("ngram", {{"corpus", "quotes"}, {"model_dir", dir}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  StepperModel m;
  ASSERT_TRUE(load_hf_stepper_model(dir, {}, &m, &error)) << error;
  Corpus corpus;
  ASSERT_EQ(load_corpus(CorpusId::EnglishQuotes, &corpus), "");
  const ModelBits expected = model_bits_per_char(m, corpus.heldout);
  ASSERT_EQ(expected.error, "");
  const plot::Figure& bits = figure_by_id(figs, "bits");
  bool found = false;
  for (const plot::Item& item : bits.grid[0].items)
    if (const auto* line = std::get_if<plot::MarkerLineItem>(&item); line && !line->vertical)
      found |= line->value == expected.bits_per_char;
  EXPECT_TRUE(found) << "no line at " << expected.bits_per_char;
  EXPECT_NE(bits.note.find(std::to_string(expected.chars)), std::string::npos) << bits.note;
  // An untrained model over 257 byte-level tokens: near the uniform log2 257 per byte, far above the n-grams' best.
  EXPECT_GT(expected.bits_per_char, 4.0);

  auto broken = panel_with("ngram", {{"corpus", "quotes"}, {"model_dir", dir + "/missing"}});
  const auto broken_figs = run(*broken);
  EXPECT_EQ(broken->error(), "");
  EXPECT_NE(figure_by_id(broken_figs, "bits").note.find("Model not scored"), std::string::npos);
}

TEST(ArchitecturesPanel, HeadsNotAMultipleIsAnError) {
  testing::expect_error_without_figures(panel_with("architectures", {{"heads", 12}, {"kv_heads", 5}}), "heads");
}

TEST(NgramPanel, HeldOutBitsAreTheModelsOwn) {
  auto p = panel_with("ngram", {{"corpus", "tang300"}, {"k", 0.05}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  Corpus c;
  ASSERT_EQ(load_corpus(CorpusId::TangPoems, &c), "");
  const plot::Table t = plot::figure_table(figure_by_id(figs, "bits"));
  ASSERT_EQ(t.rows.size(), 5u);
  const NgramModel bigram(c.train, 2, NgramSmoothing::WittenBell);
  const NgramModel addk(c.train, 3, NgramSmoothing::AddK, 0.05f);  // the slider holds a float
  EXPECT_DOUBLE_EQ(num(t.rows[1][1]), bigram.bits_per_symbol(c.heldout));
  EXPECT_DOUBLE_EQ(num(t.rows[2][2]), addk.bits_per_symbol(c.heldout));
  // Kneser–Ney beside them: core's modified Kneser–Ney of the same records, every order (END predicted as above).
  ASSERT_EQ(t.header.back(), "heldout_bits_kneser_ney");
  const std::vector<KneserNeyScore> kn = kneser_ney_score_records(kneser_ney_train_records(c.train, 5), c.heldout);
  for (size_t n = 0; n < 5; ++n) EXPECT_DOUBLE_EQ(num(t.rows[n].back()), kn[n].bits_per_char) << n + 1;
  // Counting helps from unigram to bigram on held-out text, and the training text is memorised as n grows.
  EXPECT_LT(num(t.rows[1][1]), num(t.rows[0][1]));
  EXPECT_LT(num(t.rows[4][3]), 1.0);
  const plot::Table sparsity = plot::figure_table(figure_by_id(figs, "sparsity"));
  EXPECT_GT(num(sparsity.rows[4][2]), 0.9);  // almost every held-out 5-gram is new
}

// A corpus not counted yet answers in the frame with orders 1 … 2, every figure saying the rest is being counted;
// the refinement on the worker brings the five orders, the same numbers a corpus counted before shows.
TEST(NgramPanel, ANewCorpusAnswersWithTwoOrdersFirst) {
  if (ngram_corpus_models_kept(CorpusId::SongCi, 5)) GTEST_SKIP() << "Song ci counted by an earlier test";
  auto p = panel_with("ngram", {{"corpus", "song100"}});
  ASSERT_NE(p, nullptr);
  p->update();
  p->wait_answer();
  const auto first = p->figures();
  ASSERT_EQ(p->error(), "");
  const plot::Table t2 = plot::figure_table(figure_by_id(first, "bits"));
  const std::string counting = "(counting orders 3 to 5...)";
  ASSERT_EQ(t2.rows.size(), 2u);  // the refinement is requested by the next update(), not before
  for (const char* id : {"bits", "sparsity", "samples", "masked", "masks"})
    EXPECT_NE(figure_by_id(first, id).note.find(counting), std::string::npos) << id;
  EXPECT_EQ(num(t2.rows[1][0]), 2.0);
  p->wait_idle();
  const auto whole = p->figures();
  const plot::Table t5 = plot::figure_table(figure_by_id(whole, "bits"));
  ASSERT_EQ(t5.rows.size(), 5u);
  for (const char* id : {"bits", "sparsity", "samples", "masked", "masks"})
    EXPECT_EQ(figure_by_id(whole, id).note.find(counting), std::string::npos) << id;
  Corpus c;
  ASSERT_EQ(load_corpus(CorpusId::SongCi, &c), "");
  for (int n : {2, 4}) {
    const NgramModel wb(c.train, n, NgramSmoothing::WittenBell);
    EXPECT_DOUBLE_EQ(num(t5.rows[size_t(n - 1)][1]), wb.bits_per_symbol(c.heldout)) << n;
    if (n == 2) {
      EXPECT_DOUBLE_EQ(num(t2.rows[1][1]), wb.bits_per_symbol(c.heldout));
    }
  }
  EXPECT_FALSE(plot::figure_table(figure_by_id(whole, "masked")).rows.empty());
}

}  // namespace
}  // namespace tw
