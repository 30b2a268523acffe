// Task generators: each sample satisfies its task's rule, targets sit exactly on the answer tokens, the same
// seed gives the same data, and bad settings are one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <utility>

#include "core/train/tasks.h"

namespace tw {
namespace {

Task make(TaskConfig c) {
  Task t;
  std::string error;
  EXPECT_TRUE(Task::create(c, &t, &error)) << error;
  return t;
}

TEST(TaskRng, SplitMix64ReferenceOutputs) {
  // Published SplitMix64 outputs for seed 0 (Vigna's splitmix64.c).
  TaskRng r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(r.next(), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(r.next(), 0x06C45D188009454Full);
}

TEST(TaskRng, BelowIsInRangeAndRoughlyUniform) {
  TaskRng r(7);
  int counts[3] = {};
  for (int i = 0; i < 30000; ++i) {
    const int v = r.below(3);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 3);
    ++counts[v];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);  // ±4σ for a binomial(30000, 1/3)
}

void check_symbolic(TaskKind kind) {
  TaskConfig c;
  c.kind = kind;
  c.length = 7;
  c.alphabet = 5;
  const Task t = make(c);
  EXPECT_EQ(t.vocab(), 5);
  EXPECT_EQ(t.seq_len(), 14);
  TaskRng rng(3);
  for (int i = 0; i < 50; ++i) {
    const TaskSample s = t.sample(rng);
    ASSERT_EQ(s.tokens.size(), 14u);
    std::vector<int> x(s.tokens.begin(), s.tokens.begin() + 7), y(s.tokens.begin() + 7, s.tokens.end());
    std::vector<int> want = x;
    if (kind == TaskKind::Sort) std::sort(want.begin(), want.end());
    if (kind == TaskKind::Reverse) std::reverse(want.begin(), want.end());
    EXPECT_EQ(y, want);
    for (int p = 0; p < 14; ++p) {
      EXPECT_EQ(s.answer[size_t(p)], p >= 7);
      // Position p predicts token p+1 exactly when p+1 is an answer token.
      EXPECT_EQ(s.targets[size_t(p)], p + 1 < 14 && p + 1 >= 7 ? s.tokens[size_t(p + 1)] : -1);
    }
  }
}

TEST(Tasks, CopyRepeatsThePrompt) { check_symbolic(TaskKind::Copy); }
TEST(Tasks, SortSortsThePrompt) { check_symbolic(TaskKind::Sort); }
TEST(Tasks, ReverseReversesThePrompt) { check_symbolic(TaskKind::Reverse); }

TEST(Tasks, CopyWithVaryingPeriodNeedsContentToFindTheRepeat) {
  TaskConfig c;
  c.kind = TaskKind::Copy;
  c.length = 8;
  c.alphabet = 16;
  c.vary_period = true;
  const Task t = make(c);
  EXPECT_EQ(t.seq_len(), 16);
  TaskRng rng(4);
  std::set<int> periods;
  for (int i = 0; i < 200; ++i) {
    const TaskSample s = t.sample(rng);
    ASSERT_EQ(s.tokens.size(), 16u);
    const int answers = int(std::count(s.answer.begin(), s.answer.end(), true));
    const int m = answers + 1;  // copy tokens 2 … m are answers
    ASSERT_GE(m, 4);
    ASSERT_LE(m, 8);
    periods.insert(m);
    const int start = 2 * (8 - m);
    for (int k = 0; k < m; ++k) EXPECT_EQ(s.tokens[size_t(start + m + k)], s.tokens[size_t(start + k)]);
    const std::set<int> segment(s.tokens.begin() + start, s.tokens.begin() + start + m);
    EXPECT_EQ(segment.size(), size_t(m));  // distinct, so the induction target is unique
    for (int k = 0; k < start; ++k) EXPECT_EQ(segment.count(s.tokens[size_t(k)]), 0u);  // filler avoids them
    for (int p = 0; p < 16; ++p) {
      const bool answer = p >= start + m + 1;
      EXPECT_EQ(s.answer[size_t(p)], answer);
      EXPECT_EQ(s.targets[size_t(p)], p + 1 < 16 && p + 1 >= start + m + 1 ? s.tokens[size_t(p + 1)] : -1);
    }
  }
  EXPECT_EQ(periods.size(), 5u);  // every m in 4 … 8 occurs
  c.alphabet = 8;                 // no symbol left for filler
  Task bad;
  std::string error;
  EXPECT_FALSE(Task::create(c, &bad, &error));
}

TEST(Tasks, ModularAddition) {
  TaskConfig c;
  c.kind = TaskKind::ModAdd;
  c.modulus = 11;
  const Task t = make(c);
  EXPECT_EQ(t.vocab(), 13);
  EXPECT_EQ(t.token_string(11), "+");
  EXPECT_EQ(t.token_string(12), "=");
  TaskRng rng(1);
  const Batch b = t.batch(rng, 40);
  ASSERT_EQ(b.tokens.size(), 200u);
  for (int i = 0; i < 40; ++i) {
    const int* s = &b.tokens[size_t(5 * i)];
    EXPECT_EQ(s[1], 11);
    EXPECT_EQ(s[3], 12);
    EXPECT_EQ(s[4], (s[0] + s[2]) % 11);
    EXPECT_EQ(b.targets[size_t(5 * i + 3)], s[4]);
    EXPECT_EQ(std::count(b.targets.begin() + 5 * i, b.targets.begin() + 5 * i + 5, -1), 4);
  }
}

TEST(Tasks, SameSeedSameBatchesAndHeldOutDiffersFromTraining) {
  TaskConfig c;
  c.kind = TaskKind::Copy;
  c.length = 6;
  c.alphabet = 10;
  const Task t = make(c);
  TaskRng a(42), b(42);
  EXPECT_EQ(t.batch(a, 8).tokens, t.batch(b, 8).tokens);
  TaskRng train(42);
  EXPECT_NE(t.held_out(42).tokens, t.batch(train, c.val_examples).tokens);
  EXPECT_EQ(t.held_out(42).tokens, t.held_out(42).tokens);
}

TEST(Tasks, HeldOutPromptsAreNeverTrainedOn) {
  TaskConfig c;
  c.kind = TaskKind::ModAdd;
  c.modulus = 23;  // 529 prompts: a tenth is reserved
  c.val_examples = 300;
  const Task t = make(c);
  ASSERT_TRUE(t.disjoint_held_out());
  std::set<std::pair<int, int>> held;
  const Batch val = t.held_out(3);
  for (int i = 0; i < val.B; ++i) held.insert({val.tokens[size_t(5 * i)], val.tokens[size_t(5 * i + 2)]});
  EXPECT_GT(held.size(), 20u);  // about 53 reserved pairs
  EXPECT_LT(held.size(), 100u);
  TaskRng rng(9);
  const Batch train = t.batch(rng, 3000);
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < train.B; ++i) {
    const std::pair<int, int> ab{train.tokens[size_t(5 * i)], train.tokens[size_t(5 * i + 2)]};
    EXPECT_EQ(held.count(ab), 0u) << ab.first << " + " << ab.second << " is held out but was trained on";
    seen.insert(ab);
  }
  EXPECT_GT(seen.size(), 400u);  // training still covers the other nine tenths
  // A tiny prompt space (3 symbols, length 2: 9 prompts) is not split: held out = in distribution.
  c.kind = TaskKind::Sort;
  c.alphabet = 3;
  c.length = 2;
  EXPECT_FALSE(make(c).disjoint_held_out());
  EXPECT_EQ(make(c).held_out(1).B, 300);
}

TEST(Tasks, TextVocabularyAndHeldOutSplit) {
  TaskConfig c;
  c.kind = TaskKind::Text;
  c.context = 8;
  std::string text;
  for (int i = 0; i < 20; ++i) text += "abcab cab\n";  // 200 characters, 5 distinct
  text.replace(190, 10, "ZZZZZZZZZZ");                 // a character only the held-out tail has
  c.text = text;
  c.val_examples = 16;
  const Task t = make(c);
  EXPECT_EQ(t.vocab(), 6);  // \n, space, Z, a, b, c in byte order
  EXPECT_EQ(t.token_string(0), "\\n");
  EXPECT_EQ(t.token_string(2), "Z");
  const int z = 2;
  TaskRng rng(5);
  const Batch train = t.batch(rng, 500);
  EXPECT_EQ(std::count(train.tokens.begin(), train.tokens.end(), z), 0);  // training never sees the tail
  EXPECT_EQ(std::count(train.targets.begin(), train.targets.end(), z), 0);
  for (int i = 0; i < train.B * train.T; ++i) {
    if (i % train.T + 1 < train.T) {
      EXPECT_EQ(train.targets[size_t(i)], train.tokens[size_t(i + 1)]);
    }
  }
  const Batch val = t.held_out(1);
  EXPECT_GT(std::count(val.targets.begin(), val.targets.end(), z), 0);
}

TEST(Tasks, BadSettingsAreOneLineErrors) {
  Task t;
  std::string error;
  TaskConfig c;
  c.kind = TaskKind::Text;
  EXPECT_FALSE(Task::create(c, &t, &error));
  EXPECT_NE(error.find("empty"), std::string::npos) << error;
  c.text = "short";
  EXPECT_FALSE(Task::create(c, &t, &error));
  EXPECT_NE(error.find("needs at least"), std::string::npos) << error;
  c = TaskConfig{};
  c.alphabet = 1;
  EXPECT_FALSE(Task::create(c, &t, &error));
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(Tasks, VocabularyLargerThanTheModelIsRefused) {
  TaskConfig c;
  c.kind = TaskKind::ModAdd;
  c.modulus = 97;
  const Task t = make(c);
  ModelConfig m;
  m.vocab = 64;
  EXPECT_NE(t.check_model(m).find("vocabulary of 99"), std::string::npos) << t.check_model(m);
  m.vocab = 99;
  EXPECT_EQ(t.check_model(m), "");
  m.max_seq = 4;
  EXPECT_NE(t.check_model(m), "");
}

}  // namespace
}  // namespace tw
