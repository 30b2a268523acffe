// The RoPE, GQA and LoRA panels headless: the CSV columns issue 7 names, and the numbers in them against
// independent core calls (the views must not compute anything themselves).
#include <gtest/gtest.h>

#include <cmath>

#include "core/experiments/gqa_analysis.h"
#include "core/experiments/lora_experiment.h"
#include "core/ops/rope.h"
#include "views/panel.h"
#include "views/panel_test_util.h"
#include "views/plot/figure.h"

namespace tw {
namespace {

using namespace testing;  // run, set, num

plot::Table table_of(const std::vector<plot::Figure>& figs, const std::string& id) {
  for (const auto& f : figs)
    if (f.id == id) return plot::figure_table(f);
  ADD_FAILURE() << "no figure " << id;
  return {};
}

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

}  // namespace
}  // namespace tw
