// The forward stepper on trained and real models, headless: the shipped sort checkpoint it opens on, the task
// vocabulary, a Hugging Face folder written here (weights + a byte-level BPE tokenizer.json), a broken folder, the
// Training panel's hand-off, and the logit-lens figure. Every expected number comes from core directly.
#include <gtest/gtest.h>

#include "views/panel_test_util.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/experiments/forward_session.h"
#include "core/experiments/model_card.h"
#include "core/model/hf_model.h"
#include "core/model/weights.h"
#include "core/train/model_folder.h"
#include "core/train/tasks.h"
#include "views/handoffs.h"
#include "views/panel.h"

namespace tw {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::figure_by_id;
using testing::heatmap;
using testing::run;
using testing::set;

StepperModel shipped_sort() {
  StepperModel m;
  std::string error;
  EXPECT_TRUE(load_task_checkpoint(shipped_models_dir() + "/sort", &m, &error)) << error;
  return m;
}

int argmax(const RowVec& v) {
  Eigen::Index i = 0;
  v.maxCoeff(&i);
  return static_cast<int>(i);
}

// The panel's current model choice, as the scene file would store it.
std::string model_choice(Panel& p) { return p.controls().to_json()["model"].get<std::string>(); }

// The panel on the trained sort model. (It opens on "language": the shipped language model of the interface
// language, which is the sort model only while no language model is installed.)
std::unique_ptr<Panel> sort_panel() {
  auto p = make_panel("forward");
  set(*p, "model", "sort");
  return p;
}

TEST(PanelForwardModels, OpensOnTheLanguageChoiceWhichRunsATrainedModel) {
  auto p = make_panel("forward");
  EXPECT_EQ(model_choice(*p), "language");
  const auto figs = run(*p);
  EXPECT_EQ(p->error(), "");
  EXPECT_FALSE(figs.empty());
  const std::vector<ShippedLanguageModel> lms = shipped_language_models(shipped_models_dir());
  if (lms.empty()) {  // no language model shipped: the sort model, on its example prompt
    const plot::Figure& next = figure_by_id(figs, "next");
    EXPECT_EQ(std::get<std::string>(next.table.rows[0][1]), "C");
  }
}

TEST(PanelForwardModels, OpensOnTheTrainedSortModelWhichSorts) {
  ASSERT_FALSE(shipped_models_dir().empty());
  const StepperModel sort = shipped_sort();
  ASSERT_TRUE(sort.weights);
  // Greedy decoding of a sort prompt through core: the six answer letters are the prompt sorted.
  std::string error;
  std::vector<int> seq;
  ASSERT_TRUE(sort.vocabulary->encode("ACBBAC", false, &seq, &error)) << error;
  for (int k = 0; k < 6; ++k) seq.push_back(argmax(run_prompt(sort.config, sort.weights, seq).next_logits()));
  std::string answer;
  for (size_t i = 6; i < seq.size(); ++i) answer += sort.vocabulary->label(seq[i]);
  EXPECT_EQ(answer, "AABBCC");

  auto p = sort_panel();
  const auto figs = run(*p);
  EXPECT_EQ(model_choice(*p), "sort");
  EXPECT_EQ(p->error(), "");
  // The default prompt is the sorted answer minus its last letter: the panel's most likely next token is "C", and
  // the maps are core's for the same checkpoint and tokens.
  const plot::Figure& next = figure_by_id(figs, "next");
  ASSERT_GE(next.table.rows.size(), 3u);
  EXPECT_EQ(std::get<std::string>(next.table.rows[0][1]), "C");
  std::vector<int> ids;
  EXPECT_EQ(p->controls().to_json()["text"], "BAAABCAAABB");
  EXPECT_EQ(sort.example, "BAAABCAAABB");
  ASSERT_TRUE(sort.vocabulary->encode("BAAABCAAABB", false, &ids, &error));
  const ForwardRun ref = run_prompt(sort.config, sort.weights, ids);
  EXPECT_EQ(sort.vocabulary->label(argmax(ref.next_logits())), "C");
  const plot::Figure& step = figure_by_id(figs, "step");
  ASSERT_EQ(step.grid.size(), size_t(sort.config.n_heads));
  const TraceStep* probs = ref.trace.find("layers.0.attn.probs");
  ASSERT_NE(probs, nullptr);
  const plot::HeatmapItem& m = heatmap(step.grid[1]);
  ASSERT_EQ(m.rows, 11);
  EXPECT_EQ(m.options.col_labels.front(), "0:B");
  EXPECT_EQ(m.options.col_labels.back(), "10:B");
  for (int i = 0; i < 11; ++i)
    for (int j = 0; j < 11; ++j)
      EXPECT_FLOAT_EQ(float(m.data[size_t(i * 11 + j)]), probs->value(11 + i, j)) << i << "," << j;

  // Appending greedily through the KV cache (top-k 1) completes the sort in the panel too.
  set(*p, "text", "ACBBAC");
  set(*p, "top_k", 1);
  set(*p, "generated", 6);
  const auto gen = run(*p);
  const auto& keys = heatmap(figure_by_id(gen, "step").grid[0]).options.col_labels;
  ASSERT_EQ(keys.size(), 12u);
  EXPECT_EQ(keys[6] + keys[7] + keys[8] + keys[9] + keys[10] + keys[11], "6:A7:A8:B9:B10:C11:C");
}

TEST(PanelForwardModels, ALetterOutsideTheTaskVocabularyIsRefusedByName) {
  auto p = sort_panel();
  const auto before = run(*p);
  set(*p, "text", "ABD");
  const auto after = run(*p);
  EXPECT_NE(p->error().find("'D' is not in the sort task vocabulary (A B C)"), std::string::npos) << p->error();
  EXPECT_EQ(heatmap(figure_by_id(after, "step").grid[0]).data, heatmap(figure_by_id(before, "step").grid[0]).data);
  set(*p, "text", "C A B");  // spaces separate symbols
  run(*p);
  EXPECT_EQ(p->error(), "");
}

// A Llama folder with a byte-level BPE tokenizer.json: 256 bytes, two merges ("he", "Ġw") and <|endoftext|>.
std::string write_hf_folder(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/fwd_models_" + name;
  fs::remove_all(dir);
  const ModelConfig c{
      .dim = 32, .n_layers = 3, .n_heads = 4, .n_kv_heads = 2, .vocab = 300, .hidden = 48, .max_seq = 64};
  std::vector<std::string> files;
  std::string error;
  EXPECT_TRUE(save_hf_checkpoint(dir, init_weights(c, 5), c, {}, &files, &error)) << error;
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_level_alphabet()[size_t(b)]] = b;
  const std::string G = byte_level_alphabet()[' '];
  vocab["he"] = 257;
  vocab[G + "w"] = 258;
  json tok = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array({"h e", G + " w"})}}},
              {"added_tokens", json::array({{{"id", 256}, {"content", "<|endoftext|>"}, {"special", true}}})},
              {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}}};
  std::ofstream(dir + "/tokenizer.json", std::ios::binary) << tok.dump();
  return dir;
}

TEST(PanelForwardModels, AHuggingFaceFolderRunsThroughItsTokenizer) {
  const std::string dir = write_hf_folder("good");
  StepperModel ref;
  std::string error;
  ASSERT_TRUE(load_hf_stepper_model(dir, {}, &ref, &error)) << error;
  std::vector<int> ids;
  ASSERT_TRUE(ref.vocabulary->encode("hello world", false, &ids, &error));
  ASSERT_EQ(ids, (std::vector<int>{257, 'l', 'l', 'o', 258, 'o', 'r', 'l', 'd'}));

  auto p = sort_panel();
  run(*p);
  set(*p, "model_dir", dir);
  set(*p, "model", "folder");
  set(*p, "text", "hello world");
  set(*p, "step", "layers.2.attn.probs");
  const auto figs = run(*p);
  EXPECT_EQ(p->error(), "");
  const plot::Figure& step = figure_by_id(figs, "step");
  ASSERT_EQ(step.grid.size(), 4u);
  EXPECT_EQ(step.grid[3].title, "head 3 · kv 1");
  const auto& keys = heatmap(step.grid[0]).options.col_labels;
  EXPECT_EQ(keys,
            (std::vector<std::string>{"0:he", "1:l", "2:l", "3:o", "4:\xE2\x90\xA3w", "5:o", "6:r", "7:l", "8:d"}));
  // The maps are core's for the folder's weights; the lens has one row per layer plus the embedding.
  const ForwardRun core = run_prompt(ref.config, ref.weights, ids);
  const TraceStep* probs = core.trace.find("layers.2.attn.probs");
  ASSERT_NE(probs, nullptr);
  const plot::HeatmapItem& m = heatmap(step.grid[2]);
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) EXPECT_FLOAT_EQ(float(m.data[size_t(i * 9 + j)]), probs->value(2 * 9 + i, j));
  const plot::Figure& lens = figure_by_id(figs, "lens");
  ASSERT_EQ(lens.grid.size(), 2u);
  EXPECT_EQ(heatmap(lens.grid[0]).rows, 4);
  EXPECT_EQ(heatmap(lens.grid[0]).cols, 9);
  // The lens's last row is the model's own prediction at each position, named by the tokenizer.
  const auto& texts = lens.grid[0].items;
  const plot::TextItem& last = std::get<plot::TextItem>(texts.at(1 + 3 * 9 + 8));
  EXPECT_EQ(last.text, ref.vocabulary->label(argmax(core.next_logits())));
  const plot::Figure& next = figure_by_id(figs, "next");
  EXPECT_EQ(std::get<std::string>(next.table.rows[0][1]), ref.vocabulary->label(argmax(core.next_logits())));
}

// Every folder shipped under assets/models opens as a model folder (File › Open model folder, --model). The task
// models are what `train` writes (hidden_act "relu" beside tw_activation, no tokenizer.json) and open with their
// task's vocabulary; the language models carry a tokenizer.json and open with it.
TEST(PanelForwardModels, EveryShippedModelFolderOpensAsAFolder) {
  ASSERT_FALSE(shipped_models_dir().empty());
  int folders = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(shipped_models_dir())) {
    if (!e.is_directory()) continue;
    ++folders;
    const std::string dir = e.path().string();
    StepperModel m, task;
    std::string error;
    ASSERT_TRUE(load_hf_stepper_model(dir, {}, &m, &error)) << dir << ": " << error;
    if (fs::exists(e.path() / "tokenizer.json")) {
      EXPECT_EQ(m.vocabulary->kind(), TokenVocabulary::Kind::Bpe) << dir;
      EXPECT_EQ(m.vocabulary->size(), m.config.vocab) << dir;
    } else {
      ASSERT_TRUE(load_task_checkpoint(dir, &task, &error)) << dir << ": " << error;
      EXPECT_EQ(m.vocabulary->size(), task.vocabulary->size()) << dir;
      EXPECT_EQ(m.example, task.example) << dir;
    }
    auto p = make_panel("forward");
    run(*p);
    set(*p, "model_dir", dir);
    set(*p, "model", "folder");
    run(*p);
    EXPECT_EQ(p->error(), "") << dir;
    EXPECT_EQ(model_choice(*p), "folder") << dir;
  }
  EXPECT_GE(folders, 2);
}

// Without tokenizer.json the folder still steps: the prompt is typed as token ids, checked against vocab_size.
TEST(PanelForwardModels, AFolderWithoutTokenizerTakesTypedTokenIds) {
  const std::string dir = write_hf_folder("no_tokenizer");
  fs::remove(dir + "/tokenizer.json");
  StepperModel ref;
  std::string error;
  ASSERT_TRUE(load_hf_stepper_model(dir, {}, &ref, &error)) << error;
  EXPECT_EQ(ref.vocabulary->kind(), TokenVocabulary::Kind::Ids);
  EXPECT_EQ(ref.vocabulary->size(), 300);
  EXPECT_NE(ref.source.find("tokenizer.json"), std::string::npos) << ref.source;
  EXPECT_EQ(ref.example, "1 2 3");
  std::vector<int> ids;
  ASSERT_TRUE(ref.vocabulary->encode(" 7, 299 0\n12 ", false, &ids, &error)) << error;
  EXPECT_EQ(ids, (std::vector<int>{7, 299, 0, 12}));
  EXPECT_EQ(ref.vocabulary->label(299), "#299");
  for (const char* bad : {"1 300", "1 -2", "1 x", "1 2.5", "99999999999999999999"}) {
    ids = {42};
    EXPECT_FALSE(ref.vocabulary->encode(bad, false, &ids, &error)) << bad;
    EXPECT_NE(error.find("0 to 299"), std::string::npos) << error;
    EXPECT_EQ(ids, std::vector<int>{42}) << "the ids are untouched on an error";
  }

  auto p = make_panel("forward");
  run(*p);
  set(*p, "model_dir", dir);
  set(*p, "model", "folder");
  set(*p, "text", "5 6 7");
  set(*p, "step", "layers.2.attn.probs");
  const auto figs = run(*p);
  EXPECT_EQ(p->error(), "");
  EXPECT_EQ(model_choice(*p), "folder");
  const auto& keys = heatmap(figure_by_id(figs, "step").grid[0]).options.col_labels;
  EXPECT_EQ(keys, (std::vector<std::string>{"0:#5", "1:#6", "2:#7"}));
  // The maps are the folder's weights run on exactly those ids.
  const ForwardRun core = run_prompt(ref.config, ref.weights, {5, 6, 7});
  const TraceStep* probs = core.trace.find("layers.2.attn.probs");
  ASSERT_NE(probs, nullptr);
  const plot::HeatmapItem& m = heatmap(figure_by_id(figs, "step").grid[1]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_FLOAT_EQ(float(m.data[size_t(i * 3 + j)]), probs->value(1 * 3 + i, j));
}

TEST(PanelForwardModels, ABrokenFolderKeepsThePreviousModelAndSaysWhy) {
  const std::string dir = write_hf_folder("broken");
  std::ofstream(dir + "/config.json", std::ios::binary) << R"({"architectures": ["GPT2LMHeadModel"]})";
  auto p = sort_panel();
  const auto before = run(*p);
  set(*p, "model_dir", dir);
  set(*p, "model", "folder");
  const auto after = run(*p);
  EXPECT_NE(p->error().find("Could not open " + dir), std::string::npos) << p->error();
  EXPECT_EQ(model_choice(*p), "sort");
  EXPECT_EQ(heatmap(figure_by_id(after, "step").grid[0]).data, heatmap(figure_by_id(before, "step").grid[0]).data);
  set(*p, "model_dir", ::testing::TempDir() + "/no_such_folder");
  set(*p, "model", "folder");
  run(*p);
  EXPECT_NE(p->error().find("Could not open"), std::string::npos) << p->error();
  EXPECT_EQ(model_choice(*p), "sort");
}

TEST(PanelForwardModels, TheTrainingPanelsModelArrivesThroughTheHandOff) {
  auto p = sort_panel();
  run(*p);
  set(*p, "model", "training");  // nothing handed over yet: a message, the sort model stays
  run(*p);
  EXPECT_NE(p->error().find("Training panel"), std::string::npos) << p->error();
  EXPECT_EQ(model_choice(*p), "sort");

  TaskConfig tc;
  tc.kind = TaskKind::Reverse;
  tc.length = 4;
  tc.alphabet = 5;
  Task task;
  std::string error;
  ASSERT_TRUE(Task::create(tc, &task, &error)) << error;
  ModelConfig c = tiny_config();
  c.vocab = task.vocab();
  c.max_seq = task.seq_len();
  const auto weights = std::make_shared<const ModelWeights>(init_weights(c, 3));
  p->handoffs().post_model("forward", task_stepper_model(c, weights, task, "test", "test model"));
  EXPECT_EQ(p->handoffs().take_focus_request(), "forward");
  const auto figs = run(*p);
  EXPECT_EQ(model_choice(*p), "training");
  EXPECT_EQ(p->error(), "");
  // The text became the task's example prompt (the sort letters are fine, but E is the reverse task's too).
  std::vector<int> ids;
  const StepperModel m = task_stepper_model(c, weights, task, "", "");
  ASSERT_TRUE(m.vocabulary->encode(p->controls().to_json()["text"].get<std::string>(), false, &ids, &error));
  const ForwardRun ref = run_prompt(c, weights, ids);
  EXPECT_EQ(heatmap(figure_by_id(figs, "step").grid[0]).rows, static_cast<int>(ids.size()));
  EXPECT_EQ(std::get<std::string>(figure_by_id(figs, "next").table.rows[0][1]),
            m.vocabulary->label(argmax(ref.next_logits())));
}

}  // namespace
}  // namespace tw

namespace tw {
namespace {

// The Decoding panel's "Use these sampling settings in the forward stepper" posts its four settings; the stepper
// takes those its controls accept and keeps its own value for one they refuse.
TEST(PanelForwardModels, SamplingSettingsArriveFromTheDecodingPanel) {
  auto p = testing::panel_with("forward", {{"model", "tiny"}, {"temperature", 1.0}});
  ASSERT_TRUE(p);
  p->handoffs().post_values("forward", {{"temperature", 0.7}, {"top_k", 5}, {"top_p", 0.9}, {"min_p", 0.05}});
  p->update();
  const nlohmann::json v = p->controls().to_json();
  EXPECT_NEAR(v["temperature"].get<double>(), 0.7, 1e-6);
  EXPECT_EQ(v["top_k"].get<int>(), 5);
  EXPECT_NEAR(v["top_p"].get<double>(), 0.9, 1e-6);
  EXPECT_NEAR(v["min_p"].get<double>(), 0.05, 1e-6);
  p->handoffs().post_values("forward", {{"temperature", 20.0}});  // above the stepper's range: refused, 0.7 stays
  p->update();
  EXPECT_NEAR(p->controls().to_json()["temperature"].get<double>(), 0.7, 1e-6);
}

}  // namespace
}  // namespace tw
