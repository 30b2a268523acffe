#pragma once
// Character n-gram language models: the baseline a transformer has to beat, and why counting stops working as n
// grows (the table of counts gets sparse: most held-out n-grams were never seen).
//
// Symbols: every character of the training text, END (the end of a record) and UNK (a held-out character the
// training text never had). A record is one sequence: its characters, '\n' between lines, then END; contexts at
// its start are padded with BOS, which is never predicted.
//
//   add-k:        P(c | h) = (C(h c) + k) / (C(h) + k V)                       (highest order only)
//   Witten–Bell:  P(c | h) = (C(h c) + T(h) P(c | h')) / (C(h) + T(h)),   h' = h without its oldest character,
//                 T(h) = the number of distinct characters seen after h; P(c | h) = P(c | h') when h was never seen;
//                 below the unigram, the uniform 1/V.
//
// Bits per character: the mean of −log₂ P over every predicted symbol of the held-out records (END included);
// perplexity = 2^bits.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tw {

enum class NgramSmoothing { AddK, WittenBell };

class NgramModel {
 public:
  // n = 1 … 5; k > 0 for add-k.
  NgramModel(const std::vector<std::string>& train_records, int n, NgramSmoothing smoothing, double k = 0.01);

  int order() const { return n_; }
  int vocab_size() const { return static_cast<int>(symbols_.size()); }  // V: characters + END + UNK
  // The symbol ids of a record (characters mapped, unknown ones to UNK), then END.
  std::vector<int> encode(const std::string& record) const;
  std::string symbol_text(int id) const;  // the character, "⏎" for '\n', "END", "UNK"
  static constexpr int kEnd = 0, kUnk = 1;

  // P(c | the context ending just before position `pos` of `seq`).
  double prob(const std::vector<int>& seq, size_t pos, int c) const;
  // P(c | the context `history`, oldest first, BOS-padded as needed: −1 stands for BOS).
  double prob_given(const std::vector<int>& history, int c) const;

  // P(c | history) for every symbol c at once, each equal to prob_given(history, c) bit for bit (one table lookup
  // per order instead of one per order and symbol).
  std::vector<double> distribution(const std::vector<int>& history) const;

  // Mean −log₂ P over every predicted symbol of `records`, and how many there were.
  double bits_per_symbol(const std::vector<std::string>& records, size_t* symbols = nullptr) const;
  // The same with another smoothing of the same counts (the counts do not depend on it): equal bit for bit to
  // NgramModel(train, n, smoothing, k).bits_per_symbol(records), without counting the training text again.
  double bits_per_symbol(const std::vector<std::string>& records, NgramSmoothing smoothing, double k,
                         size_t* symbols = nullptr) const;
  // A record sampled from BOS until END or `max_chars`, at temperature 1.
  std::string sample(uint64_t seed, int max_chars = 200) const;

  // m-grams (m = 1 … n) counted in training, distinct.
  size_t distinct(int m) const;
  // The fraction of m-gram occurrences in `records` whose m-gram never occurred in training.
  double unseen_fraction(const std::vector<std::string>& records, int m) const;

 private:
  struct Context {
    int64_t total = 0;                      // C(h)
    std::unordered_map<int, int64_t> next;  // C(h c); its size is T(h)
  };
  uint64_t key(const std::vector<int>& history, int m) const;  // the last m − 1 symbols of history (BOS-padded)
  double prob_order(const std::vector<int>& history, int c, int m, NgramSmoothing smoothing, double k) const;
  void distribution_order(const std::vector<int>& history, int m, std::vector<double>* p) const;

  int n_;
  NgramSmoothing smoothing_;
  double k_;
  std::vector<uint32_t> symbols_;                              // code point per id (END and UNK first)
  std::unordered_map<uint32_t, int> id_of_;                    // code point → id
  std::vector<std::unordered_map<uint64_t, Context>> counts_;  // [m − 1]: contexts of length m − 1
};

// What a causal model and a bidirectional (masked) one can say about each character of one record: the causal
// trigram sees the two characters before, the bidirectional one both neighbours, P(c | l, r) ∝ P(c | l) · P(r | c)
// from the same Witten–Bell bigram counts. Only the causal one can generate text.
struct MaskedComparison {
  std::vector<std::string> chars;       // the record's characters (and END)
  std::vector<double> p_causal;         // P(true c | two before)
  std::vector<double> p_bidirectional;  // P(true c | one before, one after); NaN at END (no right neighbour)
};
MaskedComparison compare_causal_bidirectional(const std::vector<std::string>& train_records, const std::string& record);
// The same from models already counted: `trigram` and `bigram` are Witten–Bell models of orders 3 and 2 of the
// training records.
MaskedComparison compare_causal_bidirectional(const NgramModel& trigram, const NgramModel& bigram,
                                              const std::string& record);

}  // namespace tw
