#pragma once
// The ALiBi panel's settings and the one function that turns them into AlibiParams (the selected head clamped to
// the head count): the panel and the lessons both call it.
#include <span>

#include "core/base/i18n.h"  // N_
#include "core/base/setting_spec.h"
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
  f("n_heads", s.n_heads, IntSpec{1, 64, N_("heads"), N_("Number of heads; any count, not only powers of two.")});
  f("T", s.T, IntSpec{4, 256, "$T$", N_("Size of the bias matrices shown."), true});
  f("head", s.head,
    IntSpec{0, 63, N_("selected head"), N_("Head whose full bias matrix is shown (0 = steepest slope).")});
  f("symmetric", s.symmetric,
    BoolSpec{N_("symmetric"),
             N_("Use $-m|i - j|$ over all keys (bidirectional models) instead of the causal $-m(i - j)$.")});
  f("scores", s.scores,
    OptionsSpec{
        alibi_scores_names(), N_("score source"),
        N_("Scores before the bias for the last query: all equal, or $q \\cdot k/\\sqrt{64}$ with random $q$, $k$.")});
  f("train_len", s.train_len,
    IntSpec{1, 8192, N_("training length"), N_("Context length during training; distances beyond it were never seen."),
            true});
  f("eval_len", s.eval_len,
    IntSpec{2, 8192, N_("evaluation length"), N_("Keys the last query sees at evaluation time."), true});
  f("seed", s.seed, SeedSpec{N_("Seed of the random scores.")});
}

}  // namespace tw
