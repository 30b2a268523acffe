#include "core/experiments/head_roles.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <random>

#include "core/model/forward.h"
#include "core/model/trace.h"
#include "core/base/i18n.h"

namespace tw {

namespace {

constexpr const char* kRoleNames[] = {N_("previous token"), N_("induction"),  N_("first token (sink)"),
                                      N_("previous line"),  N_("line start"), N_("rhyme")};
constexpr const char* kRoleKeys[] = {"previous_token", "induction", "first_token", "previous_line", "line_start", "rhyme"};
static_assert(std::size(kRoleNames) == kHeadRoleCount && std::size(kRoleKeys) == kHeadRoleCount);

// Where role `r` sends query i of a probe of T tokens (random probes: half = T/2 for induction), or −1 when query i
// does not take part.
int role_key(HeadRole r, int i, int T, int line_length) {
  switch (r) {
    case HeadRole::PreviousToken: return i >= 2 ? i - 1 : -1;
    case HeadRole::FirstToken: return i >= 2 ? 0 : -1;
    case HeadRole::Induction: {
      const int half = T / 2, j = i - half;
      return j >= 0 && j + 1 < half ? j + 1 : -1;
    }
    case HeadRole::PreviousLine: return line_length > 0 && i >= line_length ? i - line_length : -1;
    case HeadRole::LineStart:
      return line_length > 0 && i >= line_length && i % line_length != 0 ? i / line_length * line_length - 1 : -1;
    case HeadRole::Rhyme: {
      const int L = line_length, r = i + 1;  // query i predicts token r
      return L >= 2 && r >= 3 * L && r < T && (r / L) % 2 == 1 && r % L == L - 2 ? r - 2 * L : -1;
    }
  }
  return -1;
}

// `n` tokens drawn from `pool` (0 … V−1 when empty), distinct while the pool lasts: a partial Fisher–Yates shuffle.
std::vector<int> random_tokens(int n, const std::vector<int>& pool, int V, std::mt19937_64& rng) {
  std::vector<int> ids = pool;
  if (ids.empty())
    for (int v = 0; v < V; ++v) ids.push_back(v);
  std::vector<int> out;
  const size_t P = ids.size();
  for (int i = 0; i < n; ++i) {
    const size_t k = static_cast<size_t>(i) % P;  // a new round of the shuffle when the pool runs out
    const size_t pick = k + static_cast<size_t>(rng() % (P - k));
    std::swap(ids[k], ids[pick]);
    out.push_back(ids[k]);
  }
  return out;
}

struct Probe {
  std::vector<int> tokens;
  std::vector<HeadRole> roles;  // the roles this probe scores
  std::vector<Mat> probs;       // per layer: (H*T, T)
};

}  // namespace

const char* head_role_name(HeadRole role) { return kRoleNames[static_cast<int>(role)]; }
const char* head_role_key(HeadRole role) { return kRoleKeys[static_cast<int>(role)]; }

int HeadRoleMap::heads_with_role(HeadRole role) const {
  return static_cast<int>(std::count(best.begin(), best.end(), static_cast<int>(role)));
}

std::string validate(const HeadRoleParams& p, const ModelConfig& config) {
  if (p.length < 4) return tr("length must be at least 4 tokens (the induction probe repeats half of them)");
  if (config.max_seq < 4) return tr("the model's max_seq is below 4: too short for the probes");
  if (p.samples < 1 || p.samples > 64) return tr("samples must be between 1 and 64");
  if (!(p.threshold > 0.0f && p.threshold <= 1.0f)) return tr("threshold must be in (0, 1]");
  for (int id : p.pool)
    if (id < 0 || id >= config.vocab)
      return subst(tr("token id {0} in the probe pool is outside the vocabulary (0 … {1})"),
                   {std::to_string(id), std::to_string(config.vocab - 1)});
  if (!p.lines.empty()) {
    if (p.line_length < 1) return tr("line_length must be at least 1 when lines are given");
    if (static_cast<int>(p.lines.size()) < 2 * p.line_length)
      return subst(tr("the lines probe needs at least two lines of {0} tokens"), {std::to_string(p.line_length)});
    if (2 * p.line_length > config.max_seq)
      return subst(tr("two lines of {0} tokens do not fit in max_seq {1}"),
                   {std::to_string(p.line_length), std::to_string(config.max_seq)});
    for (int id : p.lines)
      if (id < 0 || id >= config.vocab)
        return subst(tr("token id {0} in the lines is outside the vocabulary (0 … {1})"),
                     {std::to_string(id), std::to_string(config.vocab - 1)});
  }
  return "";
}

int head_role_passes(const HeadRoleParams& params) { return 2 * params.samples + (params.lines.empty() ? 0 : 1); }

namespace {

// Two random probes per sample (previous token and first token; a half repeated for induction), and the lines
// probe when lines are given.
std::vector<Probe> make_probes(const HeadRoleParams& params, const ModelConfig& config) {
  // Probes longer than the model's context are cut to it (the induction model has max_seq 16).
  const int T = std::min(params.length, config.max_seq);
  std::vector<Probe> probes;
  std::mt19937_64 rng(params.seed * 0x9E3779B97F4A7C15ull + 17);
  for (int s = 0; s < params.samples; ++s) {
    probes.push_back(
        {random_tokens(T, params.pool, config.vocab, rng), {HeadRole::PreviousToken, HeadRole::FirstToken}, {}});
    std::vector<int> half = random_tokens(T / 2, params.pool, config.vocab, rng);
    std::vector<int> twice = half;
    twice.insert(twice.end(), half.begin(), half.end());
    probes.push_back({twice, {HeadRole::Induction}, {}});
  }
  if (!params.lines.empty()) {
    // Whole lines only, as many as the context holds.
    const int n =
        std::min(static_cast<int>(params.lines.size()), config.max_seq) / params.line_length * params.line_length;
    std::vector<HeadRole> roles = {HeadRole::PreviousLine, HeadRole::LineStart};
    if (n >= 4 * params.line_length) roles.push_back(HeadRole::Rhyme);  // a rhyme answers the one two lines before
    probes.push_back({{params.lines.begin(), params.lines.begin() + n}, roles, {}});
  }
  return probes;
}

// Each probe's attention probabilities per layer, from one forward pass that keeps only those steps. False with
// out->error set, or out->cancelled when progress said stop.
bool run_probes(std::vector<Probe>& probes, const ModelConfig& config, const ModelWeights& weights,
                const std::function<bool(float)>& progress, HeadRoleMap* out) {
  std::vector<std::string> names;
  for (int l = 0; l < config.n_layers; ++l) names.push_back("layers." + std::to_string(l) + ".attn.probs");
  for (size_t k = 0; k < probes.size(); ++k) {
    if (progress && !progress(static_cast<float>(k) / static_cast<float>(probes.size()))) {
      *out = HeadRoleMap{};
      out->cancelled = true;
      return false;
    }
    Probe& p = probes[k];
    Trace trace;
    trace.keep_only(names);
    Mat logits;
    if (!forward(logits, &trace, weights, config, p.tokens, &out->error)) return false;
    for (int l = 0; l < config.n_layers; ++l) {
      const TraceStep* st = trace.find(names[static_cast<size_t>(l)]);
      if (!st) {
        out->error =
            subst(tr("the forward pass recorded no attention probabilities for layer {0}"), {std::to_string(l)});
        return false;
      }
      p.probs.push_back(st->value);
    }
  }
  return true;
}

// Per (role, head): the probe whose mean is highest, for the example.
using BestProbes = std::array<std::vector<std::pair<float, int>>, kHeadRoleCount>;

// out->score: each role's mean attention from its queries to the key the role names, averaged over the probes
// that measure the role; out->measured: which roles a probe measured.
BestProbes score_probes(const std::vector<Probe>& probes, int line_length, HeadRoleMap* out) {
  const int L = out->layers, H = out->heads;
  for (int r = 0; r < kHeadRoleCount; ++r) {
    out->score[static_cast<size_t>(r)] = Mat::Zero(L, H);
    out->measured[static_cast<size_t>(r)] = false;
  }
  BestProbes best_probe;
  for (auto& b : best_probe) b.assign(static_cast<size_t>(L * H), {-1.0f, -1});
  std::array<int, kHeadRoleCount> probe_count{};
  for (size_t k = 0; k < probes.size(); ++k) {
    const Probe& p = probes[k];
    const int Tp = static_cast<int>(p.tokens.size());
    for (HeadRole role : p.roles) {
      const int r = static_cast<int>(role);
      out->measured[static_cast<size_t>(r)] = true;
      ++probe_count[static_cast<size_t>(r)];
      for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
          double sum = 0;
          int n = 0;
          for (int i = 0; i < Tp; ++i) {
            const int key = role_key(role, i, Tp, line_length);
            if (key < 0) continue;
            sum += p.probs[static_cast<size_t>(l)](h * Tp + i, key);
            ++n;
          }
          const float mean = n > 0 ? static_cast<float>(sum / n) : 0.0f;
          out->score[static_cast<size_t>(r)](l, h) += mean;
          auto& b = best_probe[static_cast<size_t>(r)][static_cast<size_t>(l * H + h)];
          if (mean > b.first) b = {mean, static_cast<int>(k)};
        }
    }
  }
  for (int r = 0; r < kHeadRoleCount; ++r)
    if (probe_count[static_cast<size_t>(r)] > 0)
      out->score[static_cast<size_t>(r)] /= probe_count[static_cast<size_t>(r)];
  return best_probe;
}

// The example of `role` for head (l, h): its attention on the probe where its mean for the role was highest.
HeadExample head_example(const std::vector<Probe>& probes, const BestProbes& best_probe, int H, int line_length, int l,
                         int h, int role) {
  HeadExample ex;
  ex.role = static_cast<HeadRole>(role);
  const Probe& p =
      probes[static_cast<size_t>(best_probe[static_cast<size_t>(role)][static_cast<size_t>(l * H + h)].second)];
  const int Tp = static_cast<int>(p.tokens.size());
  ex.tokens = p.tokens;
  ex.probs = p.probs[static_cast<size_t>(l)].middleRows(h * Tp, Tp);
  for (int i = 0; i < Tp; ++i) {
    const int key = role_key(ex.role, i, Tp, line_length);
    if (key >= 0 && ex.probs(i, key) > ex.weight) {
      ex.weight = ex.probs(i, key);
      ex.query = i;
      ex.key = key;
    }
  }
  return ex;
}

}  // namespace

HeadRoleMap score_head_roles(const ModelConfig& config, const ModelWeights& weights, const HeadRoleParams& params,
                             const std::function<bool(float)>& progress) {
  HeadRoleMap out;
  out.threshold = params.threshold;
  if (out.error = validate(params, config); !out.error.empty()) return out;
  std::vector<Probe> probes = make_probes(params, config);
  if (!run_probes(probes, config, weights, progress, &out)) return out;
  const int L = config.n_layers, H = config.n_heads;
  out.layers = L;
  out.heads = H;
  const BestProbes best_probe = score_probes(probes, params.line_length, &out);
  const auto example = [&](int l, int h, int role) {
    return head_example(probes, best_probe, H, params.line_length, l, h, role);
  };
  // Each head's best-scoring role (named when at or above the threshold), and each role's best head.
  out.best.assign(static_cast<size_t>(L * H), -1);
  out.example.resize(static_cast<size_t>(L * H));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      const size_t idx = static_cast<size_t>(l * H + h);
      int top = -1;
      for (int r = 0; r < kHeadRoleCount; ++r)
        if (out.measured[static_cast<size_t>(r)] &&
            (top < 0 || out.score[static_cast<size_t>(r)](l, h) > out.score[static_cast<size_t>(top)](l, h)))
          top = r;
      if (top < 0) continue;
      if (out.score[static_cast<size_t>(top)](l, h) >= params.threshold) out.best[idx] = top;
      out.example[idx] = example(l, h, top);
    }
  for (int r = 0; r < kHeadRoleCount; ++r) {
    if (!out.measured[static_cast<size_t>(r)]) continue;
    int tl = 0, th = 0;
    out.score[static_cast<size_t>(r)].maxCoeff(&tl, &th);
    out.top_layer[static_cast<size_t>(r)] = tl;
    out.top_head[static_cast<size_t>(r)] = th;
    out.top_example[static_cast<size_t>(r)] = example(tl, th, r);
  }
  if (progress) progress(1.0f);
  return out;
}

}  // namespace tw
