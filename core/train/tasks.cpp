// The toy tasks: generators, vocabularies and the held-out sets. Layout of every sample:
//   copy / sort / reverse:  x₁ … xₙ y₁ … yₙ   (T = 2n; positions n−1 … 2n−2 predict y₁ … yₙ)
//   modadd:                 a + b = c        (T = 5; position 3, '=', predicts c)
//   text:                   c₁ … c_T         (every position predicts the next character)
#include "core/train/tasks.h"
#include "core/base/i18n.h"  // N_: names translated where shown

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/enum_names.h"

namespace tw {

namespace {
constexpr const char* kTaskKindNames[] = {N_("copy"),   N_("sort"), N_("reverse"),
                                          N_("modadd"), N_("text"), N_("language")};
static_assert(names_every(kTaskKindNames, TaskKind::Language));
}  // namespace

const char* to_string(TaskKind kind) { return enum_name(kTaskKindNames, kind); }

namespace {

bool symbolic(TaskKind k) { return k == TaskKind::Copy || k == TaskKind::Sort || k == TaskKind::Reverse; }

// Held-out and probe streams are derived from the seed so they never coincide with the training stream.
// Rejection sampling gives up after this many draws (a prompt space whose hash reserved none or all of it).
constexpr int kMaxDraws = 100000;
constexpr uint64_t kHeldOutSalt = 0x5eedC0DEull, kProbeSalt = 0x9B0BEull;

}  // namespace

bool Task::create(const TaskConfig& c, Task* out, std::string* error) {
  auto fail = [&](const std::string& m) {
    *error = m;
    return false;
  };
  if (c.val_examples < 1 || c.val_examples > 4096) return fail(tr("held-out examples must be 1 … 4096"));
  Task t;
  t.config_ = c;
  if (symbolic(c.kind)) {
    if (c.length < 1 || c.length > 256) return fail(tr("task length must be 1 … 256 symbols"));
    if (c.alphabet < 2 || c.alphabet > 4096) return fail(tr("task alphabet must be 2 … 4096 symbols"));
    if (c.kind == TaskKind::Copy && c.vary_period && c.alphabet <= c.length)
      return fail(
          tr("copy with a varying period needs an alphabet larger than the length (distinct symbols + filler)"));
  } else if (c.kind == TaskKind::ModAdd) {
    if (c.modulus < 2 || c.modulus > 4093) return fail(tr("modulus $p$ must be 2 … 4093"));
  } else if (c.kind == TaskKind::Language) {
    if (c.context < 2 || c.context > 4096) return fail(tr("context must be 2 … 4096 tokens"));
    if (!load_language_data(c.language, &t.lm_, error)) return false;
    t.config_.text.clear();
    t.text_ids_ = t.lm_->train_ids;
    if (static_cast<int>(t.text_ids_.size()) < c.context + 2)
      return fail(
          subst(tr("the training text has {0} tokens; context {1} needs at least {2}"),
                {std::to_string(t.text_ids_.size()), std::to_string(c.context), std::to_string(c.context + 2)}));
    t.split_ = static_cast<int>(t.text_ids_.size()) + 1;  // every window of the training ids trains
    const int64_t n = static_cast<int64_t>(t.lm_->heldout_ids.size());
    t.held_out_targets_ = n - 1;
    t.config_.val_examples = static_cast<int>((n - 1 + c.context - 1) / c.context);
    if (t.config_.val_examples > 4096) return fail(tr("the held-out text is too long for one evaluation"));
  } else {
    if (c.context < 2 || c.context > 4096) return fail(tr("text context must be 2 … 4096 characters"));
    if (c.text.empty()) return fail(tr("the training text is empty: type some text or load a text file"));
    const int n = static_cast<int>(c.text.size());
    if (n < 2 * (c.context + 1))
      return fail(subst(tr("the training text has {0} characters; context {1} needs at least {2} (training and "
                           "held-out windows)"),
                        {std::to_string(n), std::to_string(c.context), std::to_string(2 * (c.context + 1))}));
    bool seen[256] = {};
    for (unsigned char ch : c.text) seen[ch] = true;
    int id_of[256];
    for (int b = 0; b < 256; ++b)
      if (seen[b]) {
        id_of[b] = static_cast<int>(t.chars_.size());
        t.chars_.push_back(static_cast<unsigned char>(b));
      }
    for (unsigned char ch : c.text) t.text_ids_.push_back(id_of[ch]);
    // The last 10% (at least one window) is held out.
    t.split_ = n - std::max(n / 10, c.context + 1);
  }
  *out = std::move(t);
  return true;
}

int Task::vocab() const {
  switch (config_.kind) {
    case TaskKind::ModAdd: return config_.modulus + 2;
    case TaskKind::Text: return static_cast<int>(chars_.size());
    case TaskKind::Language: return lm_->tokenizer.vocab_size();
    default: return config_.alphabet;
  }
}

int Task::seq_len() const {
  switch (config_.kind) {
    case TaskKind::ModAdd: return 5;
    case TaskKind::Text:
    case TaskKind::Language: return config_.context;
    default: return 2 * config_.length;
  }
}

std::string Task::token_string(int id) const {
  if (id < 0 || id >= vocab()) return "?";
  switch (config_.kind) {
    case TaskKind::ModAdd:
      if (id == config_.modulus) return "+";
      if (id == config_.modulus + 1) return "=";
      return std::to_string(id);
    case TaskKind::Language: return lm_->tokenizer.label(id);
    case TaskKind::Text: {
      const unsigned char ch = chars_[static_cast<size_t>(id)];
      if (ch == ' ') return "\xE2\x90\xA3";  // ␣: a visible space
      if (ch == '\n') return "\\n";
      if (ch == '\t') return "\\t";
      if (ch < 32 || ch >= 127) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "<%02X>", ch);
        return buf;
      }
      return std::string(1, static_cast<char>(ch));
    }
    default:
      if (config_.alphabet <= 26) return std::string(1, static_cast<char>('A' + id));
      return std::to_string(id);
  }
}

std::string Task::check_model(const ModelConfig& m) const {
  if (vocab() > m.vocab)
    return subst(tr("the {0} task needs a vocabulary of {1} tokens but the model has {2}"),
                 {to_string(config_.kind), std::to_string(vocab()), std::to_string(m.vocab)});
  if (seq_len() > m.max_seq)
    return subst(tr("the {0} task needs sequences of {1} tokens but the model's maximum is {2}"),
                 {to_string(config_.kind), std::to_string(seq_len()), std::to_string(m.max_seq)});
  return "";
}

TaskSample Task::text_window(int start) const { return window_of(text_ids_, start); }

TaskSample Task::window_of(const std::vector<int>& ids, int start) const {
  // T tokens from `start`; past the end of `ids` (the last held-out window) padded with token 0 and no target.
  const int T = config_.context, n = static_cast<int>(ids.size());
  TaskSample s;
  s.tokens.assign(static_cast<size_t>(T), 0);
  s.targets.assign(static_cast<size_t>(T), -1);
  for (int t = 0; t < T && start + t < n; ++t) {
    s.tokens[size_t(t)] = ids[size_t(start + t)];
    if (start + t + 1 < n) s.targets[size_t(t)] = ids[size_t(start + t + 1)];
  }
  s.answer.assign(static_cast<size_t>(T), true);
  s.answer[0] = false;  // the first token is given, every later one is predicted
  return s;
}

int Task::held_out_examples() const { return config_.val_examples; }

double Task::bits_per_char(double mean_loss) const {
  if (!lm_ || lm_->heldout_chars == 0) return std::nan("");
  return mean_loss * double(held_out_targets_) / std::log(2.0) / double(lm_->heldout_chars);
}

TaskSample Task::generate(TaskRng& rng) const {
  const TaskConfig& c = config_;
  TaskSample s;
  if (c.kind == TaskKind::ModAdd) {
    const int a = rng.below(c.modulus), b = rng.below(c.modulus);
    s.tokens = {a, c.modulus, b, c.modulus + 1, (a + b) % c.modulus};
    s.targets = {-1, -1, -1, s.tokens[4], -1};
    s.answer = {false, false, false, false, true};
    return s;
  }
  const int n = c.length;
  if (c.kind == TaskKind::Copy && c.vary_period && n >= 2) {
    const int lo = (n + 1) / 2, m = lo + rng.below(n - lo + 1), start = 2 * (n - m);  // filler, x, x
    // x: m distinct symbols (a partial Fisher–Yates shuffle), filler: symbols outside x, so "the token after the
    // earlier occurrence of this token" is always unique and the task is fully solvable by an induction head.
    std::vector<int> perm(static_cast<size_t>(c.alphabet));
    for (int i = 0; i < c.alphabet; ++i) perm[static_cast<size_t>(i)] = i;
    for (int i = 0; i < m; ++i)
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(i + rng.below(c.alphabet - i))]);
    for (int i = 0; i < start; ++i) s.tokens.push_back(perm[static_cast<size_t>(m + rng.below(c.alphabet - m))]);
    for (int i = 0; i < 2 * m; ++i) s.tokens.push_back(perm[static_cast<size_t>(i % m)]);
    s.targets.assign(static_cast<size_t>(2 * n), -1);
    s.answer.assign(static_cast<size_t>(2 * n), false);
    for (int t = start + m + 1; t < 2 * n; ++t) {  // copy tokens 2 … m, each predicted from position t − 1
      s.targets[static_cast<size_t>(t - 1)] = s.tokens[static_cast<size_t>(t)];
      s.answer[static_cast<size_t>(t)] = true;
    }
    return s;
  }
  std::vector<int> x(static_cast<size_t>(n));
  for (int& v : x) v = rng.below(c.alphabet);
  std::vector<int> y = x;
  if (c.kind == TaskKind::Sort) std::sort(y.begin(), y.end());
  if (c.kind == TaskKind::Reverse) std::reverse(y.begin(), y.end());
  s.tokens = x;
  s.tokens.insert(s.tokens.end(), y.begin(), y.end());
  s.targets.assign(static_cast<size_t>(2 * n), -1);
  s.answer.assign(static_cast<size_t>(2 * n), false);
  for (int t = n - 1; t < 2 * n - 1; ++t) s.targets[static_cast<size_t>(t)] = s.tokens[static_cast<size_t>(t + 1)];
  for (int t = n; t < 2 * n; ++t) s.answer[static_cast<size_t>(t)] = true;
  return s;
}

bool Task::disjoint_held_out() const {
  const TaskConfig& c = config_;
  if (c.kind == TaskKind::Text || c.kind == TaskKind::Language) return true;
  if (c.kind == TaskKind::ModAdd) return double(c.modulus) * c.modulus >= kMinPromptsToSplit;
  return std::pow(double(c.alphabet), double(c.length)) >= kMinPromptsToSplit;
}

bool Task::is_held_out(const std::vector<int>& tokens) const {
  // The prompt's tokens (symbolic: the first n; modadd: a + b) folded through SplitMix64's mixer.
  const size_t n = config_.kind == TaskKind::ModAdd ? 3 : size_t(config_.length);
  uint64_t h = 0x243F6A8885A308D3ull;
  for (size_t i = 0; i < n && i < tokens.size(); ++i) h = TaskRng(h ^ (uint64_t(tokens[i]) * 0x100000001B3ull)).next();
  return h % 10 == 0;
}

TaskSample Task::sample(TaskRng& rng) const {
  if (config_.kind == TaskKind::Text)
    return text_window(rng.below(split_ - config_.context));  // windows end (target included) before split_
  if (config_.kind == TaskKind::Language)
    return text_window(rng.below(static_cast<int>(text_ids_.size()) - config_.context));
  const bool split = disjoint_held_out();
  // Rejection: about 1 draw in 10 is a held-out prompt and is drawn again. The cap only guards termination.
  for (int tries = 0;; ++tries) {
    TaskSample s = generate(rng);
    if (!split || !is_held_out(s.tokens) || tries >= kMaxDraws) return s;
  }
}

TaskSample Task::generate_held_out(TaskRng& rng) const {
  const bool split = disjoint_held_out();
  for (int tries = 0;; ++tries) {  // about 10 draws per held-out prompt
    TaskSample s = generate(rng);
    if (!split || is_held_out(s.tokens) || tries >= kMaxDraws) return s;
  }
}

Batch Task::batch(TaskRng& rng, int B) const {
  Batch b;
  b.B = B;
  b.T = seq_len();
  b.tokens.reserve(static_cast<size_t>(B * b.T));
  b.targets.reserve(static_cast<size_t>(B * b.T));
  for (int i = 0; i < B; ++i) {
    const TaskSample s = sample(rng);
    b.tokens.insert(b.tokens.end(), s.tokens.begin(), s.tokens.end());
    b.targets.insert(b.targets.end(), s.targets.begin(), s.targets.end());
  }
  return b;
}

Batch Task::held_out(uint64_t seed) const {
  TaskRng rng(seed ^ kHeldOutSalt);
  Batch b;
  if (config_.kind == TaskKind::Language) {  // every window of the held-out ids, in order, not overlapping
    b.B = config_.val_examples;
    b.T = seq_len();
    for (int i = 0; i < b.B; ++i) {
      const TaskSample s = window_of(lm_->heldout_ids, i * b.T);
      b.tokens.insert(b.tokens.end(), s.tokens.begin(), s.tokens.end());
      b.targets.insert(b.targets.end(), s.targets.begin(), s.targets.end());
    }
    return b;
  }
  if (config_.kind != TaskKind::Text) {
    b.B = config_.val_examples;
    b.T = seq_len();
    for (int i = 0; i < b.B; ++i) {
      const TaskSample s = generate_held_out(rng);
      b.tokens.insert(b.tokens.end(), s.tokens.begin(), s.tokens.end());
      b.targets.insert(b.targets.end(), s.targets.begin(), s.targets.end());
    }
    return b;
  }
  b.B = config_.val_examples;
  b.T = seq_len();
  const int starts = static_cast<int>(text_ids_.size()) - config_.context - split_;  // ≥ 1 by create()
  for (int i = 0; i < b.B; ++i) {
    const TaskSample s = text_window(split_ + rng.below(starts));
    b.tokens.insert(b.tokens.end(), s.tokens.begin(), s.tokens.end());
    b.targets.insert(b.targets.end(), s.targets.begin(), s.targets.end());
  }
  return b;
}

TaskSample Task::probe(uint64_t seed) const {
  TaskRng rng(seed ^ kProbeSalt);
  if (config_.kind == TaskKind::Text) return text_window(split_);  // the start of the held-out text
  if (config_.kind == TaskKind::Language) return window_of(lm_->heldout_ids, 0);
  return generate_held_out(rng);
}

}  // namespace tw
