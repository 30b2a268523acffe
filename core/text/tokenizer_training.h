#pragma once
// Training three subword tokenizers on the same text, and how each cuts a sentence.
//
// BPE (byte-level, as GPT-2): the text is cut into pieces by GPT-2's pre-tokenizer pattern (a word with its
//   leading space, a run of digits, punctuation, whitespace); each piece starts as its bytes. Repeatedly the most
//   frequent adjacent pair of symbols (counted over all pieces, weighted by how often each piece occurs) becomes a
//   new symbol, and every occurrence is merged. Ties: the pair whose left, then right symbol entered the
//   vocabulary first. The result is written as a tokenizer.json and encoded by the same Tokenizer that loads
//   real models (core/text/tokenizer.h).
// WordPiece (BERT): words are split at whitespace and punctuation; a word starts as its characters, every
//   character after the first marked "##". A pair's score is count(ab) / (count(a) · count(b)), so a merge is
//   chosen for how much more often the two appear together than their own frequencies predict, not for raw
//   frequency. Words are BERT's pre-tokenizer's (whitespace, then each punctuation mark alone), the same that
//   encodes: greedy longest-match-first per word; a word with an untokenizable part is [UNK].
// Unigram (SentencePiece): words get a leading '▁'; start from every substring up to 8 characters (scored by
//   count · length), fit token probabilities by EM over all segmentations (forward-backward), then repeatedly drop
//   the quarter of multi-character tokens whose removal costs the least likelihood (count · (log p(t) − log p of
//   t's best segmentation without it)) until the vocabulary has the requested size; single characters always stay.
//   Words are whitespace-split with '▁' prepended (WhitespaceSplit, then Metaspace); encoding is the most probable
//   segmentation (Viterbi), a character the vocabulary lacks is <unk>.
// All three write a tokenizer.json and are encoded by the one Tokenizer that loads real models (core/text/tokenizer.h),
// so what the tokenizers panel shows is what a saved file would do.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace tw {

struct PairCount {
  std::string left, right;
  int64_t count = 0;
  double score = 0;  // WordPiece: count / (count(left) · count(right)); BPE: = count
};

struct MergeStep {
  std::string left, right, merged;    // the chosen pair and the new symbol
  int64_t count = 0;                  // occurrences of the pair when it was chosen
  double score = 0;                   // what chose it (BPE: count; WordPiece: the likelihood score)
  int vocab_size = 0;                 // vocabulary after this merge
  std::vector<PairCount> candidates;  // the best pairs at this step, best first (at most 8)
};

struct BpeTraining {
  std::vector<MergeStep> merges;  // in order
  int base_symbols = 256;         // byte-level alphabet
  std::string tokenizer_json;     // loadable by tokenizer_from_json
};

struct WordPieceTraining {
  std::vector<MergeStep> merges;
  std::vector<std::string> vocab;  // [UNK], the characters (## forms too), then merged tokens
  std::string tokenizer_json;      // loadable by tokenizer_from_json; ids are positions in `vocab`
};

struct UnigramTraining {
  std::vector<std::string> tokens;  // final vocabulary
  std::vector<double> log_probs;    // log p of each token
  int seed_size = 0;                // substrings the training started from
  int prune_rounds = 0;
  std::string tokenizer_json;  // loadable by tokenizer_from_json: <unk> (id 0), then `tokens` (ids 1…)
};

// The most training text a tokenizer is trained on (bytes); also the cap when it is read from a file.
constexpr size_t kMaxTrainingTextBytes = 256 * 1024;

// Limits keep training interactive: text ≤ 256 KiB of UTF-8, 1 ≤ size ≤ 4096. `cancel` (optional) is polled;
// `progress` (optional) receives the fraction of the merges done.
std::string check_training_text(const std::string& text);
bool train_bpe(const std::string& text, int merges, BpeTraining* out, std::string* error,
               const std::atomic<bool>* cancel = nullptr, std::atomic<float>* progress = nullptr);
bool train_wordpiece(const std::string& text, int vocab_size, WordPieceTraining* out, std::string* error,
                     const std::atomic<bool>* cancel = nullptr);
bool train_unigram(const std::string& text, int vocab_size, UnigramTraining* out, std::string* error,
                   const std::atomic<bool>* cancel = nullptr);

// Words (whitespace-separated) and UTF-8 bytes of a sentence: the denominators of tokens per word / per byte.
int count_words(const std::string& text);

// Work of training BPE with `merges` merges and WordPiece and Unigram to `vocab_size` on `text_bytes` of text,
// roughly: every merge or vocabulary step rescans the text. A paragraph with 60 merges is milliseconds.
double tokenizer_training_work(size_t text_bytes, int merges, int vocab_size);

}  // namespace tw
