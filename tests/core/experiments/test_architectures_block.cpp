// Serial vs parallel block on the shipped quotes model: with every MLP silenced the two layouts are the same
// function; otherwise they differ, the serial layout the model was trained in predicts better, and the serial
// run's bits per character are model_bits_per_char's on the same text.
#include "core/experiments/architectures_block.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/experiments/model_bits.h"
#include "core/train/model_folder.h"

namespace tw {
namespace {

const std::vector<std::string> kRecords = {
    "The only thing we have to fear is fear itself.",
    "Whatever you do, do it well; and a little more than is asked of you, for the sake of those who come after.",
    "Knowledge is power.",
};

StepperModel quotes() {
  StepperModel m;
  std::string error;
  EXPECT_TRUE(load_hf_stepper_model(
      shipped_models_dir() + "/quotes", [](double) { return true; }, &m, &error))
      << error;
  return m;
}

TEST(ArchitecturesBlock, LayoutsAgreeWhenEveryMlpIsZero) {
  StepperModel m = quotes();
  ASSERT_TRUE(m.weights);
  ModelWeights w = *m.weights;
  for (LayerWeights& l : w.layers) l.mlp.down.setZero();  // MLP(·) = 0: out = x + Attn(Norm₁(x)) in both
  m.weights = std::make_shared<const ModelWeights>(std::move(w));
  const BlockLayoutComparison r = compare_block_layouts(m, kRecords);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.logit_rel_diff, 0.0);
  EXPECT_EQ(r.top1_agreement, 1.0);
  EXPECT_EQ(r.kl_bits, 0.0);
  EXPECT_EQ(r.serial.bits_per_char, r.parallel.bits_per_char);
  ASSERT_EQ(r.layer_rel_diff.size(), size_t(m.config.n_layers));  // one entry per layer
  for (double d : r.layer_rel_diff) EXPECT_EQ(d, 0.0);
}

TEST(ArchitecturesBlock, TheTrainedSerialModelRunParallelDiffersAndPredictsWorse) {
  const StepperModel m = quotes();
  ASSERT_TRUE(m.weights);
  const BlockLayoutComparison r = compare_block_layouts(m, kRecords);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.records, 3);
  EXPECT_GT(r.tokens_scored, 40);
  EXPECT_GT(r.logit_rel_diff, 1e-2);
  EXPECT_GT(r.kl_bits, 0.0);
  EXPECT_LT(r.top1_agreement, 1.0);
  EXPECT_GT(r.top1_agreement, 0.0);
  EXPECT_LT(r.serial.bits_per_char, r.parallel.bits_per_char);
  // Layer 0's attention half is shared, its MLP input is not: the stream differs from the first block on.
  ASSERT_EQ(r.layer_rel_diff.size(), size_t(m.config.n_layers));  // one entry per layer
  EXPECT_GT(r.layer_rel_diff[0], 0.0);
  // The serial run is the model as shipped: its bits per character are model_bits_per_char's on the same text (to
  // float rounding: the comparison traces, which runs the reference attention kernel instead of the tiled one).
  const ModelBits b = model_bits_per_char(m, kRecords);
  ASSERT_EQ(b.error, "");
  EXPECT_NEAR(r.serial.bits_per_char, b.bits_per_char, 1e-6 * b.bits_per_char);
  EXPECT_EQ(r.chars, b.chars);
  // Loss in nats per token and bits per character describe the same sum.
  EXPECT_NEAR(r.serial.loss * double(r.tokens_scored) / std::log(2.0), r.serial.bits_per_char * double(r.chars),
              1e-9 * b.bits);
}

TEST(ArchitecturesBlock, APostNormModelIsAMessage) {
  StepperModel m = quotes();
  m.config.placement = NormPlacement::Post;
  const BlockLayoutComparison r = compare_block_layouts(m, kRecords);
  EXPECT_NE(r.error.find("pre-norm"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace tw
