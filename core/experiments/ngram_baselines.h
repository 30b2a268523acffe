#pragma once
// The n-gram baselines of one corpus that no slider but the corpus changes: the corpus itself and its Witten–Bell
// count tables of orders 1 … 5 with their held-out and training bits, sparsity and unseen fraction, and the held-out
// bits of interpolated Kneser–Ney (modified) of the same orders. Counted once per
// corpus for the whole process (issue 27, "compute what changed"): add-k's k, the sample seed and the compared
// record are then answered from the kept tables (NgramModel::bits_per_symbol with add-k, sample,
// compare_causal_bidirectional), bit for bit what counting again would give.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/text/corpus.h"
#include "core/text/kneser_ney.h"
#include "core/text/ngram.h"

namespace tw {

struct NgramOrderStats {
  int n = 0;
  double heldout_wb = 0, train_wb = 0;  // bits per character, Witten–Bell
  // Kneser–Ney (modified; a character never seen in training charged an escape plus its script's alphabet,
  // core/text/kneser_ney.h), counted when max order ≥ kKneserNeyMinOrder, else NaN:
  double heldout_kn = 0;            // bits per character
  double heldout_kn_unseen = 0;     // the part of heldout_kn paid for characters never seen in training
  size_t heldout_unseen_chars = 0;  // how many held-out characters (and END) training never had
  size_t distinct = 0;              // distinct n-grams in training
  double unseen = 0;                // fraction of held-out n-grams never seen
};

// Kneser–Ney is counted with three orders or more: not in a first answer of one or two orders, waited for in the
// frame (it would take about 60% longer), but in the refinement that counts the rest.
constexpr int kKneserNeyMinOrder = 3;

struct NgramCorpusModels {
  Corpus corpus;
  std::vector<NgramModel> wb;          // [n − 1]: Witten–Bell of order n = 1 … max order
  KneserNey kn;                        // Kneser–Ney of the training records up to the max order (END predicted);
                                       // empty below kKneserNeyMinOrder
  std::vector<NgramOrderStats> stats;  // [n − 1]

  // wb[n − 1].sample(seed, chars) for every order: drawn at the first call for (seed, chars) and kept, so a change
  // of anything but the seed draws nothing (drawing is most of what a k or record change would cost otherwise).
  std::vector<std::string> samples(uint64_t seed, int chars) const;
  // The kept samples for (seed, chars), or false when they were never drawn.
  bool kept_samples(uint64_t seed, int chars, std::vector<std::string>* out) const;

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::pair<uint64_t, int>, std::vector<std::string>> samples_;
};

// The corpus's tables up to `max_order` (1 … 5), loaded and counted at the first call for (id, max_order) and kept
// (starting from the tables of fewer orders kept for the corpus, when there are).
// nullptr with *error set when the corpus cannot be read (load_corpus's message), or nullptr with "" when `cancel`
// was set (nothing kept: the next call counts again).
std::shared_ptr<const NgramCorpusModels> ngram_corpus_models(CorpusId id, int max_order, std::string* error,
                                                             const std::atomic<bool>* cancel = nullptr);
// What ngram_corpus_models keeps, counted from `corpus` every time (nullptr when `cancel` was set). With `start`
// (tables of fewer orders of the same corpus), its orders are taken as they are and only the higher ones counted.
std::shared_ptr<const NgramCorpusModels> count_ngram_corpus(Corpus corpus, int max_order,
                                                            const std::atomic<bool>* cancel = nullptr,
                                                            const NgramCorpusModels* start = nullptr);
// Whether ngram_corpus_models(id, max_order) would answer from what it kept (without counting).
bool ngram_corpus_models_kept(CorpusId id, int max_order);

}  // namespace tw
