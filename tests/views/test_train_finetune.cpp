// The Training panel's fine-tuning section turns its choices into TrainSettings (no window needed).
#include <gtest/gtest.h>

#include "views/panel_test_util.h"
#include "views/scene_test_util.h"

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "core/model/weights.h"
#include "core/text/char_tokenizer.h"
#include "core/text/tokenizer.h"
#include "core/train/model_folder.h"
#include "core/train/trainer.h"
#include "views/handoffs.h"
#include "views/panel_train.h"
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

// The fine-tune choices are scene keys: a scene (or --set) picks the start model, LoRA or full, r, alpha, rsLoRA
// and the target modules; the Training panel's run uses them, and Save then Open gives the same choices back.
TEST(TrainFinetune, TheChoicesAreSceneKeysAndRoundTrip) {
  AppState app = make_app_state();
  const std::string scene = R"({"version": 1, "open": ["train"], "values": {
      "train.task": "reverse", "train.length": 6, "train.alphabet": 3, "train.batch": 4, "train.steps": 3,
      "train.ft_enabled": true, "train.ft_start": "sort", "train.ft_r": 2, "train.ft_alpha": 4,
      "train.ft_rslora": true, "train.ft_gate_proj": false}})";
  const SceneLoad load = load_scene_text(app, scene, {{"train.ft_down_proj", false}});  // as --set does
  ASSERT_TRUE(load.ok) << load.error;
  EXPECT_TRUE(load.warnings.empty()) << load.warnings.front();
  Panel& train = *app.find("train")->panel;
  testing::run(train);
  const std::shared_ptr<const TrainSnapshot> snap = app.handoffs->latest_training_run();
  ASSERT_TRUE(snap && snap->ready) << train.problem();
  StepperModel sort;
  std::string error;
  ASSERT_TRUE(load_task_checkpoint(shipped_models_dir() + "/sort", &sort, &error)) << error;
  EXPECT_EQ(snap->settings.model.dim, sort.config.dim);
  EXPECT_EQ(snap->settings.model.n_layers, sort.config.n_layers);
  ASSERT_NE(snap->settings.start_weights, nullptr);
  EXPECT_EQ(snap->settings.start_weights->layers[0].wq, sort.weights->layers[0].wq);
  EXPECT_TRUE(snap->settings.lora);
  EXPECT_EQ(snap->settings.lora_spec.r, 2);
  EXPECT_EQ(snap->settings.lora_spec.alpha, 4.0f);
  EXPECT_TRUE(snap->settings.lora_spec.rslora);
  EXPECT_EQ(snap->settings.lora_spec.targets,
            kAllLoraTargets & ~lora_target_bit(LoraModule::Gate) & ~lora_target_bit(LoraModule::Down));
  ASSERT_NE(snap->lora, nullptr);

  testing::SceneRoundTrip back = testing::scene_round_trip(app);
  ASSERT_TRUE(back.result.ok) << back.result.error;
  const nlohmann::json a = train.controls().to_json(), b = back.loaded.find("train")->panel->controls().to_json();
  for (const char* key : {"ft_enabled", "ft_start", "ft_lora", "ft_r", "ft_alpha", "ft_rslora", "ft_q_proj",
                          "ft_gate_proj", "ft_down_proj"})
    EXPECT_EQ(a.at(key), b.at(key)) << key;
  EXPECT_EQ(b.at("ft_start"), "sort");
  EXPECT_EQ(b.at("ft_gate_proj"), false);

  // Full fine-tuning by --set; a start model that cannot be loaded is one line and the run stays.
  testing::set(train, "ft_lora", false);
  testing::run(train);
  EXPECT_FALSE(app.handoffs->latest_training_run()->settings.lora);
  testing::set(train, "ft_start", "/no/such/model/folder");
  testing::run(train);
  EXPECT_NE(train.problem(), "");
  EXPECT_EQ(train.problem().find('\n'), std::string::npos) << train.problem();
  EXPECT_EQ(app.handoffs->latest_training_run()->settings.model.dim, sort.config.dim) << "the previous run stays";
}

// `transformer-workbench train` reads the panel's settings through train_settings_of_panel: the ft_* keys apply there
// too (a --set train.ft_r=2 is not silently dropped).
TEST(TrainFinetune, TheHeadlessTrainCommandSeesTheChoices) {
  auto p = make_panel("train");
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"task", "reverse"}, {"ft_enabled", true}, {"ft_start", "induction"}, {"ft_r", 2}, {"ft_lora", true}})
    testing::set(*p, key, value);
  TrainSettings t;
  int steps = 0;
  std::string error;
  ASSERT_TRUE(train_settings_of_panel(*p, &t, &steps, &error, 0)) << error;
  EXPECT_TRUE(t.lora);
  EXPECT_EQ(t.lora_spec.r, 2);
  ASSERT_NE(t.start_weights, nullptr);
  StepperModel induction;
  ASSERT_TRUE(load_task_checkpoint(shipped_models_dir() + "/induction", &induction, &error)) << error;
  EXPECT_EQ(t.model.dim, induction.config.dim);
  EXPECT_EQ(t.start_weights->layers[0].wq, induction.weights->layers[0].wq);
  testing::set(*p, "ft_start", "/no/such/folder");
  EXPECT_FALSE(train_settings_of_panel(*p, &t, &steps, &error, 0));
  EXPECT_NE(error.find("/no/such/folder"), std::string::npos) << error;
}

// A model folder loads on the worker (the GUI's way): while it loads and after it fails, the loaded model stays and
// apply() says why in one line; a good start model afterwards loads as usual.
TEST(TrainFinetune, ABrokenFolderLeavesThePreviousModel) {
  namespace fs = std::filesystem;
  const fs::path broken = fs::temp_directory_path() / ("tw_m29_broken_" + std::to_string(::getpid()));
  fs::create_directories(broken);
  { std::ofstream(broken / "config.json") << "{\"hidden_size\": 64,"; }  // cut short
  TrainFinetune f;
  f.enabled = true;
  f.start = "sort";
  TrainSettings t;
  std::string error;
  f.poll(true);
  ASSERT_TRUE(f.apply(&t, &error)) << error;  // a shipped model loads at once, even with a worker
  ASSERT_NE(f.model, nullptr);
  const std::shared_ptr<const StepperModel> sort = f.model;
  const uint64_t version = f.version;

  f.start = broken.string();
  EXPECT_FALSE(f.apply(&t, &error));
  // The worker may already have failed on so small a file by the time apply() looks (seen under -j2): then apply()
  // gives the failure itself; while it still loads, apply() says so.
  const bool loading = f.loading();
  const bool says_loading = error.find("loading") != std::string::npos;
  EXPECT_TRUE(says_loading || (!loading && error.find(broken.string()) != std::string::npos)) << error;
  f.wait();
  EXPECT_FALSE(f.loading());
  EXPECT_GT(f.version, version) << "the panel applies its settings again to show the failure";
  EXPECT_FALSE(f.apply(&t, &error));
  EXPECT_NE(error.find(broken.string()), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(f.model, sort) << "the previous model stays";
  EXPECT_FALSE(f.loading()) << "a failed folder is not loaded again until it changes";

  f.start = "induction";
  ASSERT_TRUE(f.apply(&t, &error)) << error;
  EXPECT_NE(f.model, sort);
  EXPECT_NE(f.model->source.find("induction"), std::string::npos) << f.model->source;
  fs::remove_all(broken);
}

// Fine-tuning a Hugging Face folder on a text of one's own: the language task encodes the text with the folder's
// tokenizer.json (not a tokenizer trained on the new text, whose ids would mean other things to the model); a folder
// without tokenizer.json is refused in one line and the previous run stays; the character-level text task is
// refused for a model with its own tokenizer.
TEST(TrainFinetune, AFolderFineTunesOnATextWithItsOwnTokenizer) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("tw_ft29_hf_" + std::to_string(::getpid()));
  const fs::path folder = root / "model", bare = root / "bare";
  fs::create_directories(folder);
  fs::create_directories(bare);
  // The folder's tokenizer: characters in an order the new text would not give them (its own tokenizer would
  // number 'l', 'i', 'n', 'e' first).
  const std::string tokenizer_json = char_tokenizer_json("zyxwvutsrqponmlkjihgfedcba :0123456789\n", 300);
  Tokenizer folder_tokenizer;
  std::string error;
  ASSERT_TRUE(tokenizer_from_json(tokenizer_json, &folder_tokenizer, &error)) << error;
  ModelConfig c = tiny_config();
  c.vocab = folder_tokenizer.vocab_size();
  c.max_seq = 64;
  for (const fs::path& d : {folder, bare}) {
    ASSERT_TRUE(save_config((d / "config.json").string(), c, &error)) << error;
    ASSERT_TRUE(save_weights((d / "model.safetensors").string(), init_weights(c, 5), c, &error)) << error;
  }
  { std::ofstream(folder / "tokenizer.json") << tokenizer_json; }
  const fs::path text = root / "text.txt";
  {
    std::ofstream f(text);
    for (int i = 0; i < 40; ++i) f << "line " << i << ": the quick brown fox jumps over the lazy dog\n";
  }

  auto p = make_panel("train");
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{{"task", "language"},
                                                                                      {"corpus", "file"},
                                                                                      {"text_file", text.string()},
                                                                                      {"context", 16},
                                                                                      {"batch", 4},
                                                                                      {"ft_enabled", true},
                                                                                      {"ft_start", folder.string()},
                                                                                      {"ft_lora", true},
                                                                                      {"ft_r", 2}})
    testing::set(*p, key, value);
  testing::run(*p);
  ASSERT_EQ(p->problem(), "");
  const std::shared_ptr<const TrainSnapshot> snap = p->handoffs().latest_training_run();
  ASSERT_TRUE(snap && snap->ready);
  const std::shared_ptr<const LanguageData>& lm = snap->task.language();
  ASSERT_NE(lm, nullptr);
  EXPECT_EQ(lm->tokenizer_json, tokenizer_json) << "the checkpoint row saves the folder's tokenizer with the model";
  EXPECT_EQ(lm->train_ids, folder_tokenizer.encode(lm->train_text, false));
  Tokenizer own;  // what the task would have trained on the new text
  ASSERT_TRUE(tokenizer_from_json(char_tokenizer_json(lm->train_text, 300), &own, &error)) << error;
  EXPECT_NE(lm->train_ids, own.encode(lm->train_text, false)) << "the test tells the two tokenizers apart";
  EXPECT_EQ(snap->settings.model.vocab, c.vocab);
  EXPECT_EQ(snap->settings.model.dim, c.dim);
  EXPECT_TRUE(snap->settings.lora);

  // The character-level text task: refused for a model with its own tokenizer; the run stays.
  testing::set(*p, "task", "text");
  testing::run(*p);
  EXPECT_NE(p->problem().find("language task"), std::string::npos) << p->problem();
  EXPECT_EQ(p->problem().find('\n'), std::string::npos) << p->problem();
  EXPECT_EQ(p->handoffs().latest_training_run()->task.language(), lm) << "the previous run stays";

  // A folder without tokenizer.json: one line naming it, the run stays.
  testing::set(*p, "task", "language");
  testing::set(*p, "ft_start", bare.string());
  testing::run(*p);
  EXPECT_NE(p->problem().find("no tokenizer.json"), std::string::npos) << p->problem();
  EXPECT_NE(p->problem().find("bare"), std::string::npos) << p->problem();
  EXPECT_EQ(p->handoffs().latest_training_run()->task.language(), lm) << "the previous run stays";
  fs::remove_all(root);
}

}  // namespace
}  // namespace tw
