// The Training panel's language task: the corpus control picks a shipped corpus or the user's file, a missing file
// is refused with a message, and the settings size the model's vocabulary and sequence from the tokenizer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "views/train/train_language.h"
#include "views/train/train_settings.h"

namespace tw {
namespace {

TrainPanelState language_state(int corpus) {
  TrainPanelState s;
  s.task.kind = TaskKind::Language;
  s.task.context = 16;
  s.task.language.vocab_size = 300;
  s.corpus = corpus;
  s.model.dim = 16;
  s.model.n_heads = 2;
  s.model.n_kv_heads = 2;
  s.hidden = 32;
  s.batch = 4;
  return s;
}

TEST(TrainLanguage, UserFileCorpus) {
  const int file = static_cast<int>(language_corpus_names().size()) - 1;
  ASSERT_EQ(language_corpus_names()[size_t(file)], "file");
  TrainSettings t;
  std::string error;
  TrainPanelState s = language_state(file);
  EXPECT_FALSE(train_settings_of_state(s, &t, &error));
  EXPECT_NE(error.find("file"), std::string::npos) << error;

  const std::string path = (std::filesystem::temp_directory_path() / "tw_train_language_test.txt").string();
  {
    std::ofstream f(path);
    for (int i = 0; i < 40; ++i) f << "line " << i << ": the quick brown fox jumps over the lazy dog\n";
  }
  s.text_file = path;
  ASSERT_TRUE(train_settings_of_state(s, &t, &error)) << error;
  EXPECT_EQ(t.task.language.corpus, "file");
  Task task;
  ASSERT_TRUE(Task::create(t.task, &task, &error)) << error;
  EXPECT_EQ(t.model.vocab, task.vocab());
  EXPECT_EQ(t.model.max_seq, 16);
  EXPECT_EQ(task.language()->train_records, 36u);
  std::filesystem::remove(path);
}

TEST(TrainLanguage, ShippedCorpusAndControls) {
  if (!std::filesystem::exists("/usr/share/games/fortunes/tang300")) GTEST_SKIP() << "fortunes-zh is not installed";
  TrainSettings t;
  std::string error;
  ASSERT_TRUE(train_settings_of_state(language_state(0), &t, &error)) << error;
  EXPECT_EQ(t.task.language.corpus, "tang300");
  EXPECT_EQ(t.model.vocab, 300);  // the character tokenizer's cap
  TrainPanelState s = language_state(0);
  EXPECT_TRUE(language_control_shown(s, "corpus"));
  EXPECT_FALSE(language_control_shown(s, "text_file"));  // only for the user's file
  s.task.kind = TaskKind::Sort;
  EXPECT_FALSE(language_control_shown(s, "corpus"));
}

}  // namespace
}  // namespace tw
