#pragma once
// Toy tasks a small Transformer can learn in seconds, each a seeded generator of token sequences whose loss is
// taken on the answer tokens only (targets −1 elsewhere), so accuracy measures exactly what the task asks:
//   copy     x₁…xₙ x₁…xₙ          the second half is predictable only by looking back (induction heads)
//   sort     x₁…xₙ sorted(x)      as llm-viz's nano-gpt: n letters from a small alphabet, then sorted
//   reverse  x₁…xₙ xₙ…x₁
//   modadd   a + b = c            c = (a + b) mod p, one answer token
//   text     character-level next-token prediction on a text the user types or loads
//   language a language model: next-token prediction on a corpus through a trained tokenizer
//            (core/train/language_data.h); held out: every tenth record, evaluated in full as bits per character
//
// Random numbers come from our own SplitMix64 (no std:: distributions), so the same seed gives the same
// sequences on every platform and compiler.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/train/language_data.h"
#include "core/train/model_train.h"

namespace tw {

// SplitMix64 (Steele, Lea & Flood 2014): tiny, fast, and bit-identical everywhere.
class TaskRng {
 public:
  explicit TaskRng(uint64_t seed = 0) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in 0 … n−1 (n ≥ 1): Lemire's multiply-shift on the top 32 bits; the bias (< n / 2³²) does not matter.
  int below(int n) { return static_cast<int>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32); }

 private:
  uint64_t s_;
};

enum class TaskKind { Copy, Sort, Reverse, ModAdd, Text, Language };
const char* to_string(TaskKind kind);  // "copy", "sort", "reverse", "modadd", "text", "language"

struct TaskConfig {
  TaskKind kind = TaskKind::Sort;
  int length = 6;            // n: symbols in the prompt (copy / sort / reverse)
  int alphabet = 3;          // symbols to draw from (copy / sort / reverse), shown as A, B, C, ...
  bool vary_period = false;  // copy only: the repeated segment (m distinct symbols, m random in ⌈n/2⌉ … n) comes
                             // after 2(n − m) filler symbols not in it, so the copy's offset changes from sample to
                             // sample and only content (previous-token + induction heads) can find it; the loss is on
                             // copy tokens 2 … m (the first one cannot be known: nothing says where the repeat starts)
  int modulus = 23;           // p for modadd: tokens 0 … p−1, then '+' and '='
  std::string text{};         // text task: the training text (bytes; its distinct characters are the vocabulary)
  int context = 32;           // text and language tasks: tokens per training window
  LanguageSource language{};  // language task: corpus, tokenizer kind and vocabulary size
  int val_examples = 256;     // size of the fixed held-out set (language task: every window of the held-out text)
};

// One sequence with its targets and what each position is.
struct TaskSample {
  std::vector<int> tokens;   // (T)
  std::vector<int> targets;  // (T) token position t must predict, −1 where no loss is taken
  std::vector<bool> answer;  // (T) token t is an answer token (predicted from t−1): highlight it
};

inline constexpr double kMinPromptsToSplit = 200;  // smaller prompt spaces are not split

class Task {
 public:
  // Validates the settings and (text task) builds the vocabulary; false + one-line *error when invalid.
  static bool create(const TaskConfig& config, Task* out, std::string* error);

  const TaskConfig& config() const { return config_; }
  int vocab() const;                       // tokens the task uses (ids 0 … vocab−1)
  int seq_len() const;                     // T of every sample
  std::string token_string(int id) const;  // "A", "17", "+", "e", "␣" ...

  // "" when a model can run the task, else a one-line reason (vocabulary or sequence length too large).
  std::string check_model(const ModelConfig& model) const;

  // Held-out prompts are never trained on: for text the last 10% of the text; for the other tasks a fixed tenth
  // of all possible prompts (chosen by a hash of the prompt), when there are at least kMinPromptsToSplit of them
  // (a smaller prompt space is evaluated in-distribution; disjoint_held_out() says which).
  bool disjoint_held_out() const;
  TaskSample sample(TaskRng& rng) const;   // a training example (never a held-out prompt)
  Batch batch(TaskRng& rng, int B) const;  // B training examples
  Batch held_out(uint64_t seed) const;     // the fixed held-out set (its own seed stream)
  TaskSample probe(uint64_t seed) const;   // one fixed held-out example shown in the panel
  int held_out_examples() const;           // sequences in held_out()

  // Language task (null otherwise): the corpus, tokenizer and baselines; and bits per held-out character of a
  // mean held-out loss (nats per predicted token) over held_out_targets() targets.
  const std::shared_ptr<const LanguageData>& language() const { return lm_; }
  double bits_per_char(double mean_loss) const;

 private:
  TaskSample text_window(int start) const;
  TaskSample window_of(const std::vector<int>& ids, int start) const;
  TaskSample generate(TaskRng& rng) const;                 // any prompt (symbolic tasks and modadd)
  bool is_held_out(const std::vector<int>& tokens) const;  // the prompt falls in the reserved tenth
  TaskSample generate_held_out(TaskRng& rng) const;
  TaskConfig config_;
  std::vector<int> text_ids_;               // text task: the text as token ids
  std::vector<unsigned char> chars_;        // text task: id → byte
  int split_ = 0;                           // text task: windows starting before this are training, after are held out
  std::shared_ptr<const LanguageData> lm_;  // language task
  int64_t held_out_targets_ = 0;            // language task: predicted tokens in held_out()
};

}  // namespace tw
