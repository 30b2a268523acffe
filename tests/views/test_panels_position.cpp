// The RoPE, GQA and LoRA panels headless: the CSV columns issue 7 names, and the numbers in them against
// independent core calls (the views must not compute anything themselves).
#include <gtest/gtest.h>

#include <cmath>

#include "core/experiments/gqa_analysis.h"
#include "core/experiments/lora_experiment.h"
#include "core/experiments/lora_rank_sweep.h"
#include "core/experiments/lora_sweep_checks.h"
#include "core/ops/rope.h"
#include "core/train/model_folder.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"

namespace tw {
namespace {

using namespace testing;  // run, set, num

TEST(RopePanel, CsvColumnsAndFrequencies) {
  auto p = panel_with("rope", {{"head_dim", 16}, {"scaling", "linear"}, {"factor", 4.0}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  const plot::Table f = table_of(figs, "freqs");
  EXPECT_EQ(f.header, (std::vector<std::string>{"pair", "theta", "wavelength", "theta_scaled"}));
  ASSERT_EQ(f.rows.size(), 8u);
  const auto theta = rope_frequencies(16, 10000.0);
  for (size_t k = 0; k < 8; ++k) {
    EXPECT_DOUBLE_EQ(num(f.rows[k][1]), theta[k]);
    EXPECT_NEAR(num(f.rows[k][3]), theta[k] / 4.0, 1e-15);
  }
  const plot::Table d = table_of(figs, "distance");
  EXPECT_EQ(d.header, (std::vector<std::string>{"distance", "score"}));
  EXPECT_EQ(d.rows.size(), 257u);  // default max distance 256
}

// One contract for every panel (views/recompute.h): an invalid state gives no figures and error() names the field.
TEST(RopePanel, InvalidConfigGivesNoFiguresAndTheMessageNotACrash) {
  auto p = make_panel("rope");
  set(*p, "head_dim", 2);
  set(*p, "scaling", "ntk");  // NTK needs D ≥ 4
  const auto figs = run(*p);
  EXPECT_TRUE(figs.empty());
  EXPECT_NE(p->error().find("head_dim"), std::string::npos);
}

TEST(GqaPanel, CsvColumnsMappingAndKvCache) {
  auto p = panel_with("gqa", {{"model", "LLaMA-2-70B"}, {"seq_len", 4096}});
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  const plot::Table m = table_of(figs, "mapping");
  EXPECT_EQ(m.header, (std::vector<std::string>{"query_head", "kv_head"}));
  ASSERT_EQ(m.rows.size(), 64u);
  for (size_t h = 0; h < 64; ++h) EXPECT_EQ(num(m.rows[h][1]), static_cast<double>(h / 8));
  const plot::Table kv = table_of(figs, "kvcache");
  EXPECT_EQ(kv.header, (std::vector<std::string>{"seq_len", "bytes_mha", "bytes_gqa", "bytes_mqa"}));
  EXPECT_EQ(num(kv.rows.back()[0]), 4096.0);
  EXPECT_EQ(num(kv.rows.back()[2]), 1342177280.0);  // 2·80·8·128·4096·2
  EXPECT_EQ(num(kv.rows.back()[1]), 8 * 1342177280.0);
}

TEST(GqaPanel, NonDivisorKvSnapsDown) {
  auto p = make_panel("gqa");
  set(*p, "n_heads", 12);
  set(*p, "n_kv_heads", 5);  // divisors of 12: 1 2 3 4 6 12 → 4
  const plot::Table m = table_of(run(*p), "mapping");
  ASSERT_EQ(m.rows.size(), 12u);
  EXPECT_EQ(num(m.rows[11][1]), 3.0);
  EXPECT_EQ(num(m.rows[2][1]), 0.0);
}

TEST(LoraPanel, CsvColumnsAgainstCore) {
  auto p = panel_with("lora", {{"d_in", 32}, {"d_out", 32}, {"steps", 50}});
  ASSERT_NE(p, nullptr);
  const plot::Table e = table_of(run(*p), "error");
  EXPECT_EQ(e.header, (std::vector<std::string>{"rank", "svd_error", "lora_error", "params"}));
  LoraExperimentParams q;
  q.d_in = q.d_out = 32;
  q.steps = 50;
  // The panel's sliders hold floats: the same float values reach core.
  q.decay = 0.7f;
  q.noise = 0.02f;
  q.lr = 0.01f;
  const LoraExperiment ref = run_lora_experiment(q);
  ASSERT_EQ(e.rows.size(), ref.ranks.size());
  for (size_t i = 0; i < ref.ranks.size(); ++i) {
    EXPECT_EQ(num(e.rows[i][0]), ref.ranks[i]);
    EXPECT_EQ(num(e.rows[i][1]), ref.svd_error[i]);
    EXPECT_EQ(num(e.rows[i][2]), ref.lora_error[i]);
    EXPECT_EQ(num(e.rows[i][3]), static_cast<double>(2 * 32 * ref.ranks[i]));
  }
}

// Fine-tune mode on a language model: the shipped poems model on the Song ci; the table is core's sweep, in bits per
// character, and the titles name the model and the text. A task model with the text, or a language model with a toy
// task, is refused with one line.
TEST(LoraPanel, LanguageModelOnNewTextAndRefusals) {
  auto p = panel_with("lora", {{"mode", "fine-tune a model"},
                               {"ft_base", "poems (shipped language model)"},
                               {"ft_task", "new text (language models)"},
                               {"ft_steps", 10},
                               {"ft_batch", 1}});  // the table is compared with core's, whatever the batch
  ASSERT_NE(p, nullptr);
  const auto figs = run(*p);
  ASSERT_EQ(p->error(), "");
  const plot::Figure& rank = figure_by_id(figs, "ft_loss_rank");
  EXPECT_NE(rank.title.find("poems"), std::string::npos) << rank.title;
  EXPECT_NE(rank.title.find("100 Song ci"), std::string::npos) << rank.title;
  EXPECT_NE(rank.title.find("bits per character"), std::string::npos) << rank.title;
  const plot::Table t = plot::figure_table(rank);
  EXPECT_EQ(t.header,
            (std::vector<std::string>{"rank", "trainable", "held_out_loss", "accuracy", "held_out_bits_per_char"}));

  StepperModel m;
  std::string error;
  ASSERT_TRUE(load_hf_stepper_model(shipped_models_dir() + "/poems", {}, &m, &error)) << error;
  LoraSweepParams q = testing::song_ci_sweep(m);
  q.steps = 10;
  q.batch = 1;
  q.lr_lora = 0.01f;  // the panel's defaults
  q.lr_full = 0.003f;
  const LoraSweep ref = run_lora_sweep(q);
  ASSERT_EQ(t.rows.size(), ref.runs.size());  // r = 1, 2, 4, 8, 16, full
  for (size_t i = 0; i < ref.runs.size(); ++i) {
    EXPECT_EQ(num(t.rows[i][0]), ref.runs[i].rank);
    EXPECT_EQ(num(t.rows[i][2]), ref.runs[i].final_loss);
    EXPECT_EQ(num(t.rows[i][4]), ref.runs[i].final_bits);
  }

  expect_error_without_figures(
      panel_with("lora", {{"mode", "fine-tune a model"}, {"ft_task", "new text (language models)"}}), "tokenizer.json");
  expect_error_without_figures(
      panel_with("lora", {{"mode", "fine-tune a model"}, {"ft_base", "quotes (shipped language model)"}}),
      "language model");
  expect_error_without_figures(panel_with("lora", {{"mode", "fine-tune a model"},
                                                   {"ft_base", "poems (shipped language model)"},
                                                   {"ft_task", "new text (language models)"},
                                                   {"ft_text", "file"},
                                                   {"ft_text_file", "/nonexistent/text.txt"}}),
                               "/nonexistent/text.txt");
}

}  // namespace
}  // namespace tw
