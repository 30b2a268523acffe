#pragma once
// What the heads do: probes run through a model, every attention head scored for six roles.
//
//   previous-token  query i attends key i − 1                      (random tokens, i ≥ 2)
//   induction       in a random sequence repeated once, query n + j (token r_j) attends key j + 1, the token that
//                   followed r_j's earlier occurrence: the head that lets a model copy        (j = 0 … n − 2)
//   first-token     query i attends key 0: the attention sink, where a head parks weight it does not need (i ≥ 2)
//   previous line   in text of lines of L tokens each (a poem), query i attends key i − L, the same place one line
//                   earlier (对仗: the parallel character of the couplet's other half)                 (i ≥ L)
//   line start      in the lines, query i attends the punctuation mark that closed the previous line, key
//                   ⌊i / L⌋·L − 1: where its own line starts, from which a head can count to the next mark
//                                                                             (i ≥ L, not a line's first token)
//   rhyme           in the lines, the query that predicts a rhyme character (the last character of an even line,
//                   before its mark: position r with ⌊r / L⌋ odd and r mod L = L − 2, query i = r − 1) attends the
//                   previous rhyme character, key r − 2L                                               (r ≥ 3L)
// A head's score for a role is its mean attention weight on the role's key, averaged over the probe's queries and
// samples: 1 is a head that does nothing else, a uniform head scores about ln(T)/T. A head takes the role with the
// highest score when that reaches `threshold`; otherwise it has none.
//
//   HeadRoleParams p;  p.pool = ids_worth_drawing;                 // e.g. no special tokens
//   HeadRoleMap m = score_head_roles(config, weights, p);          // m.error says why when it could not run
//   m.score[HeadRole::Induction](layer, head), m.best[layer * H + head], m.example[...]

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/weights.h"
#include "core/tensor.h"

namespace tw {

enum class HeadRole { PreviousToken, Induction, FirstToken, PreviousLine, LineStart, Rhyme };
inline constexpr int kHeadRoleCount = 6;
const char* head_role_name(HeadRole role);  // "previous token", ... (English msgid, translated where shown)
const char* head_role_key(HeadRole role);   // "previous_token", ... (ASCII, CSV columns)

struct HeadRoleParams {
  int length = 24;         // tokens of a random probe; the induction probe repeats length / 2 of them once
  int samples = 4;         // random probes averaged (each a new random sequence)
  uint64_t seed = 1;       // the random probes' tokens
  float threshold = 0.4f;  // a head takes a role when its score reaches this
  std::vector<int> pool;   // token ids the random probes draw from (distinct where the pool allows); empty = all
  std::vector<int> lines;  // token ids of text in lines of line_length tokens (a poem); empty = the line roles are
                           // not measured
  int line_length = 0;     // L: tokens per line of `lines`
};
// "" when usable for `config`, otherwise one sentence naming the field.
std::string validate(const HeadRoleParams& p, const ModelConfig& config);

// The probe that shows one head's role best: its tokens, the head's attention map on them, and the query whose
// weight on the role's key is highest.
struct HeadExample {
  HeadRole role = HeadRole::PreviousToken;
  std::vector<int> tokens;   // the probe (T)
  Mat probs;                 // (T, T) this head's attention on it, rows = queries
  int query = -1, key = -1;  // the clearest instance of the role
  float weight = 0;          // probs(query, key)
};

struct HeadRoleMap {
  int layers = 0, heads = 0;
  std::array<Mat, kHeadRoleCount> score;        // per role: (layers, heads) mean weight on the role's key
  std::array<bool, kHeadRoleCount> measured{};  // false: no probe for the role (no lines given)
  std::vector<int> best;                        // (layers · heads) the role index a head takes, −1 none
  std::vector<HeadExample> example;             // (layers · heads) for its role, or its highest-scoring one
  // Per role: the head with the highest score for it (layer, head) and its example of that role.
  std::array<int, kHeadRoleCount> top_layer{}, top_head{};
  std::array<HeadExample, kHeadRoleCount> top_example;
  float threshold = 0;
  std::string error;  // one line when the probes could not run; the map is then empty
  bool cancelled = false;
  int heads_with_role(HeadRole role) const;  // how many heads took `role`
};

// Runs the probes (params.samples random sequences for three roles, plus the lines when given) and scores every
// head. progress(fraction) may return false to stop (cancelled, empty map). Never throws.
HeadRoleMap score_head_roles(const ModelConfig& config, const ModelWeights& weights, const HeadRoleParams& params,
                             const std::function<bool(float)>& progress = {});

// Forward passes score_head_roles runs for `params`, to decide whether a panel waits for it.
int head_role_passes(const HeadRoleParams& params);

}  // namespace tw
