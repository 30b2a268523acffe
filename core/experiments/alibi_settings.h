#pragma once
// The ALiBi panel's settings and the one function that turns them into AlibiParams (the selected head clamped to
// the head count): the panel and the lessons both call it.
#include <span>

#include "core/experiments/alibi_analysis.h"

namespace tw {

// Scores before the bias, for the last query's distribution.
enum class AlibiScores { Uniform, RandomQk };
std::span<const char* const> alibi_scores_names();  // "uniform", "random q.k"

struct AlibiSettings {
  static constexpr const char* kPanel = "alibi";
  int n_heads = 8;                            // any count 1..64
  int T = 24;                                 // size of the bias matrices
  int head = 0;                               // selected head (0-based)
  bool symmetric = false;                     // −m·|i − j| instead of the causal −m·(i − j)
  AlibiScores scores = AlibiScores::Uniform;  // all equal, or random q·k/√d_k
  int train_len = 64;                         // context length during training
  int eval_len = 256;                         // context length at evaluation (the last query sees this many keys)
  int seed = 0;
};

// The thumbnails are at most 16 × 16; the head is clamped to n_heads − 1.
AlibiParams params_of(const AlibiSettings& s);

// The scene keys, in the panel's order (see core/lessons/scene_settings.h).
template <class F>
void for_each_setting(AlibiSettings& s, F&& f) {
  f("n_heads", s.n_heads);
  f("T", s.T);
  f("head", s.head);
  f("symmetric", s.symmetric);
  f("scores", s.scores, alibi_scores_names());
  f("train_len", s.train_len);
  f("eval_len", s.eval_len);
  f("seed", s.seed);
}

}  // namespace tw
