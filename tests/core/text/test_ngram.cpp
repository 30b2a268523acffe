#include "core/text/ngram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/random.h"

namespace tw {
namespace {

const std::vector<std::string> kToy = {"aab"};

// Hand-worked, bigram add-1 on "aab" (symbols END, UNK, a, b: V = 4), held out "ab":
// P(a|BOS) = (1+1)/(1+4), P(b|a) = (1+1)/(2+4), P(END|b) = (1+1)/(1+4): perplexity (75/4)^(1/3).
TEST(Ngram, AddOnePerplexityOfAToyCorpus) {
  const NgramModel m(kToy, 2, NgramSmoothing::AddK, 1.0);
  ASSERT_EQ(m.vocab_size(), 4);
  size_t n = 0;
  const double bits = m.bits_per_symbol({"ab"}, &n);
  EXPECT_EQ(n, 3u);
  EXPECT_NEAR(std::exp2(bits), std::cbrt(75.0 / 4.0), 1e-12);
}

// Witten–Bell, same corpus: unigram P(a) = (2 + 3/4)/7, P(b) = P(END) = (1 + 3/4)/7, P(UNK) = (3/4)/7;
// P(a|BOS) = (1 + 1·11/28)/2 = 39/56, P(b|a) = (1 + 2·1/4)/4 = 3/8, P(END|b) = (1 + 1/4)/2 = 5/8.
TEST(Ngram, WittenBellPerplexityOfAToyCorpus) {
  const NgramModel m(kToy, 2, NgramSmoothing::WittenBell);
  const double bits = m.bits_per_symbol({"ab"});
  EXPECT_NEAR(std::exp2(bits), std::cbrt(3584.0 / 585.0), 1e-12);
}

// Every context's distribution sums to 1 over the vocabulary, seen contexts or not, at every order.
TEST(Ngram, ProbabilitiesSumToOne) {
  const std::vector<std::string> text = {"the cat sat on the mat", "a cat and a hat", "that\nthis"};
  for (NgramSmoothing s : {NgramSmoothing::AddK, NgramSmoothing::WittenBell}) {
    for (int n = 1; n <= 5; ++n) {
      const NgramModel m(text, n, s, 0.1);
      const std::vector<int> seq = m.encode("the hat zz");
      for (size_t pos = 0; pos <= seq.size(); ++pos) {
        double sum = 0;
        for (int c = 0; c < m.vocab_size(); ++c) sum += m.prob(seq, pos, c);
        EXPECT_NEAR(sum, 1.0, 1e-12) << "n = " << n << " pos = " << pos;
      }
    }
  }
}

TEST(Ngram, SparsityGrowsWithOrder) {
  const std::vector<std::string> train = {"abcabcabd", "abcd"};
  const NgramModel m(train, 4, NgramSmoothing::WittenBell);
  EXPECT_EQ(m.distinct(1), 5u);  // a b c d END
  // Held-out "abe": the unigram e (UNK) and then END after it are unseen bigrams → 1 of 4 unigrams, 2 of 4 bigrams.
  EXPECT_NEAR(m.unseen_fraction({"abe"}, 1), 1.0 / 4, 1e-12);
  EXPECT_NEAR(m.unseen_fraction({"abe"}, 2), 2.0 / 4, 1e-12);
  // Held-out "abd": every bigram was seen, but the 4-gram (BOS a b d) never was (training starts "abc" twice).
  EXPECT_EQ(m.unseen_fraction({"abd"}, 2), 0.0);
  EXPECT_NEAR(m.unseen_fraction({"abd"}, 4), 1.0 / 4, 1e-12);
}

TEST(Ngram, SamplesAreReproducibleAndFromTheVocabulary) {
  const NgramModel m({"abab", "abba"}, 2, NgramSmoothing::WittenBell);
  EXPECT_EQ(m.sample(7), m.sample(7));
  for (char ch : m.sample(3)) EXPECT_TRUE(ch == 'a' || ch == 'b');
}

TEST(Ngram, BidirectionalSeesTheRightNeighbour) {
  // After "x" comes "a" or "b" equally; only the next character tells which: "xaq" vs "xbr".
  std::vector<std::string> train;
  for (int i = 0; i < 20; ++i) train.push_back(i % 2 ? "xaq" : "xbr");
  const MaskedComparison m = compare_causal_bidirectional(train, "xaq");
  ASSERT_EQ(m.chars.size(), 4u);  // x a q END
  EXPECT_NEAR(m.p_causal[1], 0.5, 0.05);
  EXPECT_GT(m.p_bidirectional[1], 0.9);
  EXPECT_TRUE(std::isnan(m.p_bidirectional[3]));
}

// The panel's cached path answers a change of k, seed or record from one Witten–Bell model per order: its all-symbol
// distribution, its add-k rescoring and its sampling equal the one-call answers bit for bit.
TEST(Ngram, CachedPathEqualsOneCall) {
  const std::vector<std::string> train = {"the cat sat on the mat", "a cat and a hat", "that\nthis", "tatata"};
  const std::vector<std::string> heldout = {"the hat zz", "cat\nsat", ""};
  for (int n = 1; n <= 5; ++n) {
    const NgramModel wb(train, n, NgramSmoothing::WittenBell);
    for (double k : {0.01, 0.5, 0.0}) {
      const NgramModel addk(train, n, NgramSmoothing::AddK, k);
      EXPECT_EQ(wb.bits_per_symbol(heldout, NgramSmoothing::AddK, k), addk.bits_per_symbol(heldout)) << n << " " << k;
      const std::vector<int> seq = addk.encode("the hat zz");
      for (size_t pos = 0; pos <= seq.size(); ++pos) {
        const std::vector<int> history(seq.begin(), seq.begin() + long(pos));
        const std::vector<double> p = addk.distribution(history);
        for (int c = 0; c < addk.vocab_size(); ++c) ASSERT_EQ(p[size_t(c)], addk.prob_given(history, c));
      }
    }
    EXPECT_EQ(wb.bits_per_symbol(heldout, NgramSmoothing::WittenBell, 1.0), wb.bits_per_symbol(heldout));
    const std::vector<int> seq = wb.encode("the hat zz");
    for (size_t pos = 0; pos <= seq.size(); ++pos) {
      const std::vector<int> history(seq.begin(), seq.begin() + long(pos));
      const std::vector<double> p = wb.distribution(history);
      ASSERT_EQ(p.size(), size_t(wb.vocab_size()));
      for (int c = 0; c < wb.vocab_size(); ++c) ASSERT_EQ(p[size_t(c)], wb.prob_given(history, c)) << n << " " << c;
    }
    // Sampling, one symbol at a time from prob_given (the inverse CDF over ids, UNK never drawn), as sample() does.
    for (uint64_t seed : {1u, 2u, 9u}) {
      std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 3);
      std::vector<int> history;
      std::string expected;
      for (int step = 0; step < 60; ++step) {
        std::vector<double> p(size_t(wb.vocab_size()));
        double total = 0;
        for (int c = 0; c < wb.vocab_size(); ++c)
          total += p[size_t(c)] = c == NgramModel::kUnk ? 0 : wb.prob_given(history, c);
        double u = uniform01(rng) * total;
        int pick = NgramModel::kEnd;
        for (int c = 0; c < wb.vocab_size(); ++c) {
          u -= p[size_t(c)];
          if (u <= 0 && p[size_t(c)] > 0) {
            pick = c;
            break;
          }
        }
        if (pick == NgramModel::kEnd) break;
        const std::string text = wb.symbol_text(pick);
        expected += text == "\xE2\x8F\x8E" ? "\n" : text;
        history.push_back(pick);
      }
      EXPECT_EQ(wb.sample(seed, 60), expected) << "n = " << n << " seed = " << seed;
    }
  }
  const NgramModel tri(train, 3, NgramSmoothing::WittenBell), bi(train, 2, NgramSmoothing::WittenBell);
  const MaskedComparison a = compare_causal_bidirectional(train, "the cat"),
                         b = compare_causal_bidirectional(tri, bi, "the cat");
  EXPECT_EQ(a.chars, b.chars);
  EXPECT_EQ(a.p_causal, b.p_causal);
  for (size_t i = 0; i + 1 < a.chars.size(); ++i) {
    EXPECT_EQ(a.p_bidirectional[i], b.p_bidirectional[i]);
    // P(c | l, r) ∝ P(c | l) · P(r | c), recomputed from prob_given.
    const std::vector<int> seq = bi.encode("the cat");
    const std::vector<int> left(seq.begin(), seq.begin() + long(i));
    double z = 0;
    for (int c = 0; c < bi.vocab_size(); ++c) z += bi.prob_given(left, c) * bi.prob_given({c}, seq[i + 1]);
    const double truth = bi.prob_given(left, seq[i]) * bi.prob_given({seq[i]}, seq[i + 1]);
    EXPECT_NEAR(b.p_bidirectional[i], truth / z, 1e-12 * (truth / z));
  }
}

}  // namespace
}  // namespace tw
