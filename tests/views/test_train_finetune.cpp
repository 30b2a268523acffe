// The Training panel's fine-tuning section turns its choices into TrainSettings (no window needed).
#include <gtest/gtest.h>

#include "core/train/trainer.h"
#include "views/train/train_finetune.h"

namespace tw {
namespace {

TEST(TrainFinetune, AppliesTheLoadedModelAndTheLoraChoice) {
  TrainSettings t;
  t.model.memory_cap_mb = 123;
  t.seed = 7;
  const TrainSettings before = t;
  TrainFinetune f;
  std::string error;
  ASSERT_TRUE(f.apply(&t, &error)) << error;  // off: nothing changes
  EXPECT_EQ(t.model, before.model);
  EXPECT_EQ(t.start_weights, nullptr);
  EXPECT_EQ(f.label(), "");

  f.enabled = true;
  EXPECT_FALSE(f.apply(&t, &error));  // on without a model
  EXPECT_NE(error.find("load a model"), std::string::npos) << error;

  StepperModel m;
  ASSERT_TRUE(load_task_checkpoint(shipped_models_dir() + "/sort", &m, &error)) << error;
  f.model = std::make_shared<const StepperModel>(m);
  f.r = 4;
  f.alpha = 8;
  f.targets[4] = false;  // gate
  f.targets[6] = false;  // down
  ASSERT_TRUE(f.apply(&t, &error)) << error;
  EXPECT_EQ(t.model.dim, m.config.dim);
  EXPECT_EQ(t.model.memory_cap_mb, 123);  // the panel's cap stays
  EXPECT_EQ(t.start_weights, m.weights);
  EXPECT_TRUE(t.lora);
  EXPECT_EQ(t.lora_spec.r, 4);
  EXPECT_EQ(t.lora_spec.alpha, 8.0f);
  EXPECT_EQ(t.lora_spec.seed, 7u);
  EXPECT_EQ(t.lora_spec.targets,
            kAllLoraTargets & ~lora_target_bit(LoraModule::Gate) & ~lora_target_bit(LoraModule::Down));
  EXPECT_NE(f.label().find("LoRA r = 4"), std::string::npos) << f.label();

  // A reverse task on the sort model trains; step 0 is the shipped model.
  t.task = {.kind = TaskKind::Reverse, .length = 6, .alphabet = 3, .val_examples = 32};
  t.batch = 4;
  Trainer trainer;
  ASSERT_TRUE(trainer.init(t, &error)) << error;
  EXPECT_EQ(trainer.weights().layers[1].wo, m.weights->layers[1].wo);
  EXPECT_EQ(trainer.trainable_parameters(), 4 * 2 * (4 * 96 + 144));  // q k v o (48+48) and up (96+48)

  f.lora = false;  // full fine-tuning
  ASSERT_TRUE(f.apply(&t, &error)) << error;
  EXPECT_FALSE(t.lora);
  ASSERT_TRUE(trainer.init(t, &error)) << error;
  EXPECT_EQ(trainer.trainable_parameters(), 37392);
  EXPECT_EQ(trainer.lora(), nullptr);
}

}  // namespace
}  // namespace tw
