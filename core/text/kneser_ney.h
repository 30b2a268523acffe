#pragma once
// Interpolated Kneser–Ney character n-gram model (n = 1 … 5), modified (Chen & Goodman, 1998: three discounts per
// order) by default, standard (Ney, Essen & Kneser, 1994: one discount per order) on request: the strongest classic
// baseline a character-level transformer is measured against (issue 42).
//
//   KneserNey kn = kneser_ney_train(decode_utf8(train_text), 5);
//   double bits = kneser_ney_bits(kn, decode_utf8(heldout_text), 3);   // held-out bits per character, order 3
//   KneserNeyBest best = kneser_ney_best(train, heldout);               // the best order n ≤ 5 and its bits
//
// Symbols: the characters (code points) of the training text, and END (the end of a record) when trained on
// records. Contexts before a sequence's first symbol are padded with BOS, which is never predicted.
//
// Order n, context h (the n − 1 symbols before c), h' = h without its oldest symbol, A = counts of the level:
//   P_m(c | h) = max(A(h c) − D(A(h c)), 0) / A(h •)  +  γ(h) · P_{m−1}(c | h'),
//   γ(h)       = (D₁ N₁(h •) + D₂ N₂(h •) + D₃₊ N₃₊(h •)) / A(h •),   N_k(h •) = #{c : A(h c) = k} (N₃₊: ≥ 3),
//   P_m(c | h) = P_{m−1}(c | h')  when h was never seen,
//   P_1(c)     = (1 − p_new) · [max(A(c) − D, 0) / A(•) + γ(ε) / V]   for the V training symbols,
//   P_1(unseen) = p_new = (n₁ + 1) / (N + 1): the Good–Turing probability that the next character is one training
//                 never had (n₁ characters seen once among the N training symbols; the + 1 keeps it above zero when
//                 no character was seen once). "unseen" is one more symbol: the escape.
// The highest order uses raw counts A = C(h c). Every lower order uses continuation counts A = N₁₊(• h c), the number
// of distinct symbols seen before h c (BOS included), except for an m-gram that starts with BOS, which nothing can
// precede: it keeps its raw count (as KenLM does).
// Discounts per order and per kind of count (raw for the highest order, continuation for the lower ones), from the
// count-of-counts n_k (how many m-grams have count k), Y = n₁ / (n₁ + 2 n₂):
//   modified: D₁ = 1 − 2Y n₂/n₁,  D₂ = 2 − 3Y n₃/n₂,  D₃₊ = 3 − 4Y n₄/n₃;   standard: D = Y for every count.
// A count-of-counts that gives no valid estimate (a zero n_k in a denominator, or D_k outside (0, k], usual on tiny
// texts) falls back to D = 0.5, 1, 1.5 (standard: 0.5), KenLM's --discount_fallback values; `fallback` says so.
// Every level's probabilities over the V symbols and "unseen" sum to 1 (D_k ≤ k, so no count goes below zero and
// the mass taken is exactly γ), whatever the context. The escape is smaller in a context seen often (γ(h) < 1).
//
// A held-out symbol never seen in training costs the escape plus the choice of the character within its alphabet:
//   bits = −log₂ P(unseen | h) + log₂ |alphabet(c)|,  alphabet = its script within its Unicode block
//   (core/text/script_alphabet.h: 20,992 for a CJK Unified Ideograph, 52 for a Basic Latin letter; 1 for END).
// This is what a model that spells the character in bytes pays at best. It charges each (script, block) class the
// whole escape, so summed over every possible unseen character it is not a distribution: it flatters the n-gram a
// little (by at most log₂ of the number of classes), which makes it a stricter baseline to beat, not a weaker one.
//
// Counting: each order's n-grams are packed (21 bits per symbol) into one 128-bit key, sorted and run-length
// counted into sorted tables (contexts, then their continuations), searched by bisection: compact (12 bytes per
// n-gram, 88 per context), and nothing depends on a hash order.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tw {

enum class KneserNeyVariant {
  Modified,  // D₁, D₂, D₃₊ per order (Chen & Goodman)
  Standard,  // one D per order (Ney, Essen & Kneser)
};

// The discounts of one order and kind of count, for counts 1, 2 and ≥ 3 (all equal for Standard).
struct KneserNeyDiscounts {
  double d1 = 0.5, d2 = 1.0, d3 = 1.5;
  bool fallback = false;                    // the count-of-counts gave no valid estimate: the fallback values
  uint64_t n1 = 0, n2 = 0, n3 = 0, n4 = 0;  // the count-of-counts they were estimated from
};

constexpr uint32_t kKneserNeyEnd = 0x110000;     // END: past every code point, fits the 21 bits of a symbol
constexpr uint32_t kKneserNeyUnseen = 0x110002;  // "unseen": kneser_ney_prob of it is the escape

struct KneserNeyTables;  // the count tables (kneser_ney.cpp)

struct KneserNey {
  int max_order = 0;  // 1 … 5: it scores every order up to this one
  KneserNeyVariant variant = KneserNeyVariant::Modified;
  bool records = false;                             // trained on records: END is a symbol
  std::vector<uint32_t> vocabulary;                 // the V training symbols, sorted (code points, then END)
  size_t train_symbols = 0;                         // N: predicted symbols counted in training
  double p_new = 1;                                 // P_1(unseen) = (n₁ + 1) / (N + 1)
  std::vector<KneserNeyDiscounts> top_discounts;    // [m − 1]: order m as the highest order (raw counts)
  std::vector<KneserNeyDiscounts> lower_discounts;  // [m − 1]: order m below a higher one (continuation counts)
  std::shared_ptr<const KneserNeyTables> tables;    // immutable: copies of the model share them
};

// One text as a single sequence of code points (its start BOS-padded, no END): train.txt as a whole.
// max_order is clamped to 1 … 5.
KneserNey kneser_ney_train(const std::vector<uint32_t>& text, int max_order = 5,
                           KneserNeyVariant variant = KneserNeyVariant::Modified);
// Records (UTF-8), each BOS-padded and ended by END, as NgramModel counts them (the n-gram panel).
KneserNey kneser_ney_train_records(const std::vector<std::string>& records, int max_order = 5,
                                   KneserNeyVariant variant = KneserNeyVariant::Modified);

// P(c | history) at order `order` (0: max_order; clamped to 1 … max_order). history: the symbols before c, oldest
// first, BOS-padded when shorter than order − 1; a symbol never seen in training may stand in it. c =
// kKneserNeyUnseen (or any symbol not in the vocabulary) gives the escape: the mass of every unseen symbol together.
double kneser_ney_prob(const KneserNey& kn, const std::vector<uint32_t>& history, uint32_t c, int order = 0);

struct KneserNeyScore {
  int order = 0;
  double bits_per_char = 0;  // bits / symbols (0 when there are none)
  double bits = 0;           // −log₂ P summed over the predicted symbols, unseen ones charged as above
  size_t symbols = 0;        // predicted symbols (END included for records)
  size_t unseen = 0;         // of them, never seen in training
  double unseen_bits = 0;    // their part of `bits` (escape + alphabet)
};
// Held-out text as one sequence (its start BOS-padded), at one order (0: max_order).
KneserNeyScore kneser_ney_score(const KneserNey& kn, const std::vector<uint32_t>& heldout, int order = 0);
// The same for every order 1 … max_order in one pass: [n − 1].
std::vector<KneserNeyScore> kneser_ney_score_orders(const KneserNey& kn, const std::vector<uint32_t>& heldout);
// Held-out records (UTF-8), each BOS-padded and ended by END, for every order: bits per symbol as
// NgramModel::bits_per_symbol counts them (the n-gram panel puts both side by side).
std::vector<KneserNeyScore> kneser_ney_score_records(const KneserNey& kn, const std::vector<std::string>& records);
// kneser_ney_score(kn, heldout, order).bits_per_char.
double kneser_ney_bits(const KneserNey& kn, const std::vector<uint32_t>& heldout, int order = 0);

struct KneserNeyBest {
  int order = 0;                  // the order with the fewest held-out bits per character
  double bits_per_char = 0;       // its bits
  std::vector<double> per_order;  // [n − 1]: held-out bits per character of every order 1 … max_order
};
// Trains once up to max_order and scores every order on the held-out text: the baseline a model card quotes.
KneserNeyBest kneser_ney_best(const std::vector<uint32_t>& train, const std::vector<uint32_t>& heldout,
                              int max_order = 5, KneserNeyVariant variant = KneserNeyVariant::Modified);

}  // namespace tw
