// Tests for the head-role detector: a model whose weights are set by hand to have one previous-token head is found
// to have exactly that head, a model with no role (uniform attention) has none and scores the analytic uniform
// values, and the shipped induction checkpoint has an induction head.
#include "core/experiments/head_roles.h"

#include <gtest/gtest.h>

#include "core/model/forward.h"
#include "core/train/model_folder.h"

namespace tw {
namespace {

constexpr int S = 16;  // max_seq; the hand-built model's positions are one-hot in dims 0 … S−1

// One layer, two heads of D = 16, learned one-hot positions (dims 0 … 15) and one-hot tokens (dims 16 …). With
// `previous_head`, head 0's query at position p is position p − 1's direction and its key at p is p's own, so
// q_i · k_j is large exactly when j = i − 1; every other query weight is 0, so those heads attend uniformly.
struct HandModel {
  ModelConfig config;
  ModelWeights weights;
};
HandModel hand_model(bool previous_head) {
  HandModel m;
  ModelConfig& c = m.config;
  c.dim = 2 * S;
  c.n_layers = 1;
  c.n_heads = 2;
  c.n_kv_heads = 2;
  c.vocab = 8;
  c.hidden = 8;
  c.max_seq = S;
  c.positions = PositionType::Learned;
  c.activation = ActivationKind::ReLU;
  m.weights = init_weights(c, 1);
  ModelWeights& w = m.weights;
  w.embed.setZero();
  for (int t = 0; t < c.vocab; ++t) w.embed(t, S + t) = 1.0f;
  w.pos_embed.setZero();
  for (int p = 0; p < S; ++p) w.pos_embed(p, p) = 1.0f;
  LayerWeights& l = w.layers[0];
  l.wq.setZero();
  l.wk.setZero();
  if (previous_head) {
    // RMSNorm scales x = e_p + e_token by √(C/2) = 4, so a score is 16 · 2 · 2 / √16 = 16 on the previous token.
    for (int p = 1; p < S; ++p) l.wq(p - 1, p) = 2.0f;
    for (int p = 0; p < S; ++p) l.wk(p, p) = 2.0f;
  }
  return m;
}

// Mean over i = from … to of 1/(i+1): a uniform causal head's weight on any one key at query i.
double uniform_mean(int from, int to) {
  double s = 0;
  for (int i = from; i <= to; ++i) s += 1.0 / (i + 1);
  return s / (to - from + 1);
}

TEST(HeadRoles, FindsTheHandBuiltPreviousTokenHead) {
  const HandModel m = hand_model(true);
  HeadRoleParams p;
  p.samples = 3;
  const HeadRoleMap r = score_head_roles(m.config, m.weights, p);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.layers, 1);
  ASSERT_EQ(r.heads, 2);
  const auto prev = static_cast<size_t>(HeadRole::PreviousToken);
  EXPECT_GT(r.score[prev](0, 0), 0.99f);
  EXPECT_EQ(r.best[0], static_cast<int>(HeadRole::PreviousToken));
  EXPECT_EQ(r.best[1], -1);  // the uniform head has no role
  EXPECT_EQ(r.heads_with_role(HeadRole::PreviousToken), 1);
  // Its example: the query with the clearest previous-token weight, one key back.
  const HeadExample& ex = r.example[0];
  EXPECT_EQ(ex.role, HeadRole::PreviousToken);
  EXPECT_EQ(ex.key, ex.query - 1);
  EXPECT_GT(ex.weight, 0.99f);
  ASSERT_EQ(ex.probs.rows(), static_cast<Eigen::Index>(ex.tokens.size()));
  for (Eigen::Index i = 0; i < ex.probs.rows(); ++i) EXPECT_NEAR(ex.probs.row(i).sum(), 1.0f, 1e-5f);
  EXPECT_FALSE(r.measured[static_cast<size_t>(HeadRole::PreviousLine)]);  // no lines given
  // The clearest previous-token head is that head, with the same example.
  EXPECT_EQ(r.top_layer[prev], 0);
  EXPECT_EQ(r.top_head[prev], 0);
  EXPECT_EQ(r.top_example[prev].query, ex.query);
  EXPECT_EQ(r.top_example[prev].key, ex.key);
}

TEST(HeadRoles, AModelWithoutRolesHasNoneAndScoresTheUniformValues) {
  const HandModel m = hand_model(false);
  HeadRoleParams p;  // length 24 is cut to max_seq 16
  const HeadRoleMap r = score_head_roles(m.config, m.weights, p);
  ASSERT_TRUE(r.error.empty()) << r.error;
  for (int b : r.best) EXPECT_EQ(b, -1);
  for (int h = 0; h < 2; ++h) {
    // Random probe of T = 16: queries 2 … 15; induction probe 8 + 8: queries 8 … 14 read key j + 1.
    EXPECT_NEAR(r.score[static_cast<size_t>(HeadRole::PreviousToken)](0, h), uniform_mean(2, 15), 1e-5);
    EXPECT_NEAR(r.score[static_cast<size_t>(HeadRole::FirstToken)](0, h), uniform_mean(2, 15), 1e-5);
    EXPECT_NEAR(r.score[static_cast<size_t>(HeadRole::Induction)](0, h), uniform_mean(8, 14), 1e-5);
  }
}

TEST(HeadRoles, PreviousLineIsMeasuredOnLines) {
  // The hand-built head looks one token back: with lines of one token "the previous line" is the previous token,
  // with lines of four it is not.
  const HandModel m = hand_model(true);
  HeadRoleParams p;
  p.lines = {1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5};
  p.line_length = 4;
  HeadRoleMap r = score_head_roles(m.config, m.weights, p);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const auto line = static_cast<size_t>(HeadRole::PreviousLine);
  EXPECT_TRUE(r.measured[line]);
  EXPECT_LT(r.score[line](0, 0), 0.01f);
  EXPECT_NEAR(r.score[line](0, 1), uniform_mean(4, 11), 1e-5);
  p.line_length = 1;
  r = score_head_roles(m.config, m.weights, p);
  EXPECT_GT(r.score[line](0, 0), 0.99f);
}

// Line start and rhyme, worked by hand for lines of L = 4 tokens (positions 0-3, 4-7, 8-11, 12-15):
//   line start: queries i ≥ 4 that are not a line's first token (5, 6, 7, 9, 10, 11, 13, 14, 15) attend the mark
//               closing the line before, ⌊i/4⌋·4 − 1 (3, 3, 3, 7, 7, 7, 11, 11, 11);
//   rhyme:      the one rhyme character with a rhyme two lines before is r = 14 (line 3, the token before its mark),
//               predicted by query 13, which attends r − 8 = 6.
// The uniform head gives each query 1/(i + 1); the previous-token head never looks at either key.
TEST(HeadRoles, LineStartAndRhymeByHand) {
  const HandModel m = hand_model(true);
  HeadRoleParams p;
  p.lines = {1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 1, 2};
  p.line_length = 4;
  HeadRoleMap r = score_head_roles(m.config, m.weights, p);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const auto start = static_cast<size_t>(HeadRole::LineStart), rhyme = static_cast<size_t>(HeadRole::Rhyme);
  ASSERT_TRUE(r.measured[start]);
  ASSERT_TRUE(r.measured[rhyme]);
  double uniform_start = 0;
  for (int i : {5, 6, 7, 9, 10, 11, 13, 14, 15}) uniform_start += 1.0 / (i + 1) / 9;
  EXPECT_NEAR(r.score[start](0, 1), uniform_start, 1e-5);
  EXPECT_NEAR(r.score[rhyme](0, 1), 1.0 / 14, 1e-5);
  EXPECT_LT(r.score[start](0, 0), 0.01f);
  EXPECT_LT(r.score[rhyme](0, 0), 0.01f);
  EXPECT_EQ(r.top_example[rhyme].query, 13);
  EXPECT_EQ(r.top_example[rhyme].key, 6);
  // Three lines: no rhyme has one two lines before it, so the role is not measured.
  p.lines.resize(12);
  r = score_head_roles(m.config, m.weights, p);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.measured[start]);
  EXPECT_FALSE(r.measured[rhyme]);
}

TEST(HeadRoles, TheShippedInductionModelHasAnInductionHead) {
  StepperModel model;
  std::string error;
  ASSERT_TRUE(load_task_checkpoint(std::string(TW_SOURCE_DIR) + "/assets/models/induction", &model, &error)) << error;
  HeadRoleParams p;
  p.samples = 8;
  const HeadRoleMap r = score_head_roles(model.config, *model.weights, p);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_GE(r.heads_with_role(HeadRole::Induction), 1);
  float best = 0;
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h) best = std::max(best, r.score[static_cast<size_t>(HeadRole::Induction)](l, h));
  EXPECT_GT(best, 0.5f);
}

TEST(HeadRoles, BadParametersAreMessages) {
  const HandModel m = hand_model(true);
  HeadRoleParams p;
  p.pool = {0, 8};
  EXPECT_NE(score_head_roles(m.config, m.weights, p).error.find("outside the vocabulary"), std::string::npos);
  p = {};
  p.length = 2;
  EXPECT_NE(score_head_roles(m.config, m.weights, p).error, "");
  p = {};
  p.lines = {1, 2, 3};
  p.line_length = 2;
  EXPECT_NE(score_head_roles(m.config, m.weights, p).error.find("two lines"), std::string::npos);
  p.line_length = 9;
  p.lines.assign(18, 1);
  EXPECT_NE(score_head_roles(m.config, m.weights, p).error.find("max_seq"), std::string::npos);
  p = {};
  int calls = 0;
  const HeadRoleMap c = score_head_roles(m.config, m.weights, p, [&](float) { return ++calls < 2; });
  EXPECT_TRUE(c.cancelled);
  EXPECT_TRUE(c.best.empty());
}

}  // namespace
}  // namespace tw
