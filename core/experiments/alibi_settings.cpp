#include "core/experiments/alibi_settings.h"

#include <algorithm>

#include "core/enum_names.h"

namespace tw {

namespace {
constexpr const char* kAlibiScoresNames[] = {"uniform", "random q.k"};
static_assert(names_every(kAlibiScoresNames, AlibiScores::RandomQk));
}  // namespace

std::span<const char* const> alibi_scores_names() { return kAlibiScoresNames; }

AlibiParams params_of(const AlibiSettings& s) {
  AlibiParams p;
  p.n_heads = s.n_heads;
  p.T = s.T;
  p.head = std::min(s.head, s.n_heads - 1);
  p.symmetric = s.symmetric;
  p.random_scores = s.scores == AlibiScores::RandomQk;
  p.train_len = s.train_len;
  p.eval_len = s.eval_len;
  p.thumb_T = std::min(s.T, 16);
  p.seed = static_cast<std::uint64_t>(s.seed);
  return p;
}

}  // namespace tw
