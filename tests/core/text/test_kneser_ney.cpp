#include "core/text/kneser_ney.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "core/base/utf8.h"

namespace tw {
namespace {

std::vector<uint32_t> cps(const std::string& s) { return decode_utf8(s); }

// Relative to the magnitude: probabilities and bits from sums of a few terms agree to a few ulps.
void expect_close(double actual, double expected, const std::string& what = "") {
  EXPECT_NEAR(actual, expected, 1e-12 * std::max(1.0, std::abs(expected))) << what;
}

// ---------------------------------------------------------------------------------------------------------------
// Hand-worked: standard Kneser–Ney, bigram, text "abab" (one sequence, BOS-padded: BOS a b a b).
//   N = 4 training symbols, none seen once: p_new = P₁(unseen) = (0 + 1)/(4 + 1) = 1/5; V = 2.
//   Bigrams (raw, the top order): BOS a: 1, a b: 2, b a: 1 → n₁ = 2, n₂ = 1 → D = 2 / (2 + 2·1) = 1/2.
//   Unigrams below (continuation counts: distinct symbols before): a ← {BOS, b}: 2, b ← {a}: 1 (raw counts are 2 and
//   2, so this tells the two apart) → n₁ = 1, n₂ = 1 → D = 1/3; total 3; γ(ε) = (1/3 · 2) / 3 = 2/9; floor 1/V = 1/2.
//   P₁(a) = 4/5 · [(2 − 1/3)/3 + 2/9 · 1/2] = 4/5 · 2/3 = 8/15,  P₁(b) = 4/5 · [(1 − 1/3)/3 + 1/9] = 4/15.
//   γ(BOS) = (1/2 · 1)/1 = 1/2:  P(a | BOS) = (1 − 1/2)/1 + 1/2 · 8/15 = 23/30 (and P(a | b) the same).
//   γ(a) = (1/2 · 1)/2 = 1/4:    P(b | a) = (2 − 1/2)/2 + 1/4 · 4/15 = 49/60,  P(a | a) = 1/4 · 8/15 = 8/60,
//                                P(unseen | a) = 1/4 · 1/5 = 3/60  (49 + 8 + 3 = 60).
//   Order 1 alone (raw unigram counts 2, 2: n₁ = 0, no estimate → D = 0.5): γ = (0.5 · 2)/4 = 1/4,
//   P(a) = P(b) = 4/5 · [(2 − 0.5)/4 + 1/4 · 1/2] = 2/5, P(unseen) = 1/5.
TEST(KneserNey, HandWorkedStandardBigram) {
  const KneserNey kn = kneser_ney_train(cps("abab"), 2, KneserNeyVariant::Standard);
  ASSERT_EQ(kn.vocabulary, (std::vector<uint32_t>{'a', 'b'}));
  EXPECT_EQ(kn.train_symbols, 4u);
  expect_close(kn.p_new, 1.0 / 5);
  expect_close(kn.top_discounts[1].d1, 0.5);
  EXPECT_FALSE(kn.top_discounts[1].fallback);
  expect_close(kn.lower_discounts[0].d1, 1.0 / 3);
  EXPECT_TRUE(kn.top_discounts[0].fallback);
  expect_close(kneser_ney_prob(kn, {}, 'a'), 23.0 / 30);
  expect_close(kneser_ney_prob(kn, {'b'}, 'a'), 23.0 / 30);
  expect_close(kneser_ney_prob(kn, {'a'}, 'b'), 49.0 / 60);
  expect_close(kneser_ney_prob(kn, {'a'}, 'a'), 8.0 / 60);
  expect_close(kneser_ney_prob(kn, {'a'}, kKneserNeyUnseen), 3.0 / 60);
  expect_close(kneser_ney_prob(kn, {'a'}, 'z'), 3.0 / 60);  // any unseen symbol asks for the escape
  expect_close(kneser_ney_prob(kn, {'a'}, 'a', 1), 2.0 / 5);
  expect_close(kneser_ney_prob(kn, {}, kKneserNeyUnseen, 1), 1.0 / 5);
  // Held-out "ab": −log₂(23/30) − log₂(49/60) over 2 characters.
  expect_close(kneser_ney_bits(kn, cps("ab")), (std::log2(30.0 / 23) + std::log2(60.0 / 49)) / 2);
  // Held-out "ac": 'c' was never seen: the escape after 'a' (1/20) and one of Basic Latin's 52 letters.
  const KneserNeyScore s = kneser_ney_score(kn, cps("ac"));
  EXPECT_EQ(s.symbols, 2u);
  EXPECT_EQ(s.unseen, 1u);
  expect_close(s.unseen_bits, std::log2(20.0) + std::log2(52.0));
  expect_close(s.bits_per_char, (std::log2(30.0 / 23) + std::log2(20.0) + std::log2(52.0)) / 2);
  // An unseen CJK character pays log₂ 20,992 (the CJK Unified Ideographs block) after the same escape.
  expect_close(kneser_ney_score(kn, cps("a明")).unseen_bits, std::log2(20.0) + std::log2(20992.0));
}

// The same text, modified Kneser–Ney: no order has n₁, n₂, n₃ all non-zero, so every order falls back to
// D₁ = 0.5, D₂ = 1, D₃₊ = 1.5.
//   Unigrams (continuation a: 2, b: 1): γ(ε) = (0.5 · 1 + 1 · 1)/3 = 1/2; P₁(a) = 4/5 · [(2 − 1)/3 + 1/2 · 1/2] =
//   4/5 · 7/12 = 7/15, P₁(b) = 4/5 · [(1 − 0.5)/3 + 1/4] = 1/3, P₁(unseen) = 1/5.
//   P(a | BOS) = (1 − 0.5)/1 + (0.5 · 1)/1 · 7/15 = 11/15;  P(b | a) = (2 − 1)/2 + (1 · 1)/2 · 1/3 = 2/3;
//   P(unseen | a) = 1/2 · 1/5 = 1/10.
TEST(KneserNey, HandWorkedModifiedFallbackBigram) {
  const KneserNey kn = kneser_ney_train(cps("abab"), 2);
  EXPECT_EQ(kn.variant, KneserNeyVariant::Modified);
  for (const KneserNeyDiscounts& d : {kn.top_discounts[1], kn.lower_discounts[0]}) {
    EXPECT_TRUE(d.fallback);
    EXPECT_EQ(d.d1, 0.5);
    EXPECT_EQ(d.d2, 1.0);
    EXPECT_EQ(d.d3, 1.5);
  }
  expect_close(kneser_ney_prob(kn, {}, 'a'), 11.0 / 15);
  expect_close(kneser_ney_prob(kn, {'a'}, 'b'), 2.0 / 3);
  expect_close(kneser_ney_prob(kn, {'a'}, kKneserNeyUnseen), 1.0 / 10);
}

// Records ["aab"], standard, bigram: the sequence is BOS a a b END; N = 4, seen once: b and END → p_new = 3/5.
//   Unigram continuation counts: a ← {BOS, a}: 2, b ← {a}: 1, END ← {b}: 1 → n₁ = 2, n₂ = 1, D = 1/2, total 4,
//   γ(ε) = (1/2 · 3)/4 = 3/8, floor 1/V = 1/3:
//   P₁(a) = 2/5 · [1.5/4 + 1/8] = 1/5, P₁(b) = P₁(END) = 2/5 · [0.5/4 + 1/8] = 1/10, P₁(unseen) = 3/5.
//   Bigrams all occur once (n₁ = 4, n₂ = 0 → D = 1): each context passes all its mass down (γ = 1):
//   P(a | BOS) = 1/5, P(b | a) = 1/10, P(END | b) = 1/10. Held-out ["ab"]: three symbols, END included.
TEST(KneserNey, HandWorkedRecordsPredictTheEnd) {
  const KneserNey kn = kneser_ney_train_records({"aab"}, 2, KneserNeyVariant::Standard);
  EXPECT_TRUE(kn.records);
  ASSERT_EQ(kn.vocabulary, (std::vector<uint32_t>{'a', 'b', kKneserNeyEnd}));
  expect_close(kn.p_new, 3.0 / 5);
  expect_close(kn.top_discounts[1].d1, 1.0);
  expect_close(kneser_ney_prob(kn, {}, 'a'), 1.0 / 5);
  expect_close(kneser_ney_prob(kn, {'a'}, 'b'), 1.0 / 10);
  expect_close(kneser_ney_prob(kn, {'b'}, kKneserNeyEnd), 1.0 / 10);
  expect_close(kneser_ney_prob(kn, {'b'}, kKneserNeyUnseen), 3.0 / 5);
  const std::vector<KneserNeyScore> s = kneser_ney_score_records(kn, {"ab"});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].symbols, 3u);
  expect_close(s[1].bits_per_char, (std::log2(5.0) + 2 * std::log2(10.0)) / 3);
}

// Order 1 is absolute discounting of the raw counts interpolated with the uniform over V, scaled by 1 − p_new:
//   P(c) = (1 − p_new) · [max(C(c) − D(C(c)), 0) / N + γ / V],  γ = (D₁ n₁ + D₂ n₂ + D₃₊ N₃₊) / N,  P(unseen) = p_new.
// "abcddeefffgggg": a, b, c once, d, e twice, f 3 times, g 4 times: N = 14, V = 7, n₁ = 3, n₂ = 2, n₃ = 1, n₄ = 1;
//   p_new = (3 + 1)/(14 + 1) = 4/15.
//   Y = 3/7, D₁ = 1 − 2Y·2/3 = 3/7, D₂ = 2 − 3Y·1/2 = 19/14, D₃₊ = 3 − 4Y·1/1 = 9/7;
//   γ = (3·3/7 + 2·19/14 + 2·9/7)/14 = 23/49;  γ/7 = 23/343.
//   In brackets: a (4/7)/14 + 23/343 = 37/343, d (9/14)/14 + 23/343 = 155/1372, f (12/7)/14 + 23/343 = 65/343,
//   g (19/7)/14 + 23/343 = 179/686 (3·148 + 2·155 + 260 + 358 = 1372); times 11/15:
//   P(a) = 407/5145, P(d) = 341/4116, P(f) = 143/1029, P(g) = 1969/10290, P(unseen) = 4/15.
TEST(KneserNey, UnigramIsAbsoluteDiscountingWithTheUniform) {
  const KneserNey kn = kneser_ney_train(cps("abcddeefffgggg"), 1);
  const KneserNeyDiscounts& d = kn.top_discounts[0];
  EXPECT_FALSE(d.fallback);
  EXPECT_EQ(d.n1, 3u);
  EXPECT_EQ(d.n2, 2u);
  EXPECT_EQ(d.n3, 1u);
  EXPECT_EQ(d.n4, 1u);
  expect_close(d.d1, 3.0 / 7);
  expect_close(d.d2, 19.0 / 14);
  expect_close(d.d3, 9.0 / 7);
  expect_close(kn.p_new, 4.0 / 15);
  const std::vector<uint32_t> history = cps("gfe");  // order 1 ignores it
  expect_close(kneser_ney_prob(kn, history, 'a'), 407.0 / 5145);
  expect_close(kneser_ney_prob(kn, history, 'c'), 407.0 / 5145);
  expect_close(kneser_ney_prob(kn, history, 'd'), 341.0 / 4116);
  expect_close(kneser_ney_prob(kn, history, 'f'), 143.0 / 1029);
  expect_close(kneser_ney_prob(kn, history, 'g'), 1969.0 / 10290);
  expect_close(kneser_ney_prob(kn, history, kKneserNeyUnseen), 4.0 / 15);
  // The same numbers from the formula with this test's own counts, for every symbol.
  const std::map<uint32_t, int> counts = {{'a', 1}, {'b', 1}, {'c', 1}, {'d', 2}, {'e', 2}, {'f', 3}, {'g', 4}};
  const double gamma = (3 * d.d1 + 2 * d.d2 + 2 * d.d3) / 14;
  for (const auto& [c, n] : counts) {
    const double D = n == 1 ? d.d1 : n == 2 ? d.d2 : d.d3;
    expect_close(kneser_ney_prob(kn, {}, c), (11.0 / 15) * ((n - D) / 14 + gamma / 7));
  }
}

// Every context's probabilities over the vocabulary plus the escape sum to 1: every order, both variants, text and
// records, contexts seen, unseen, at the start, and holding characters never seen in training.
TEST(KneserNey, SumsToOneOverTheVocabularyAndTheUnseenMass) {
  const std::string text = "the cat sat on the mat\nthe hat is flat; a bat sat at that mat.\n床前明月光，疑是地上霜。";
  const std::vector<std::string> records = {"the cat sat on the mat", "the hat is flat", "床前明月光，疑是地上霜。"};
  std::mt19937 rng(5);
  for (KneserNeyVariant v : {KneserNeyVariant::Modified, KneserNeyVariant::Standard})
    for (const KneserNey& kn : {kneser_ney_train(cps(text), 5, v), kneser_ney_train_records(records, 5, v)}) {
      std::vector<std::vector<uint32_t>> histories;
      const std::vector<uint32_t> probe = cps("the rat sat\non a 明月 zq at");  // r, z, q never seen
      for (size_t i = 0; i <= probe.size(); ++i) histories.emplace_back(probe.begin(), probe.begin() + long(i));
      for (int i = 0; i < 40; ++i) {  // random strings of training symbols: mostly unseen contexts
        std::vector<uint32_t> h;
        for (int j = 0; j < 4; ++j) h.push_back(kn.vocabulary[rng() % kn.vocabulary.size()]);
        histories.push_back(h);
      }
      for (int n = 1; n <= 5; ++n)
        for (const auto& h : histories) {
          double sum = kneser_ney_prob(kn, h, kKneserNeyUnseen, n);
          for (uint32_t c : kn.vocabulary) sum += kneser_ney_prob(kn, h, c, n);
          EXPECT_NEAR(sum, 1.0, 1e-12) << "order " << n << " history of " << h.size();
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// An independent reference: the formulas of kneser_ney.h written out over maps of strings, every count found by
// scanning (no packed keys, no sorted tables, no shared chain), for a small text at every order and both variants.
constexpr char32_t kRefBos = 0x110001;

struct ReferenceKn {
  int n = 0;
  bool modified = true;
  size_t V = 0;
  double p_new = 1;
  std::vector<std::map<std::u32string, int>> raw, cont;  // [m − 1]: m-gram → count
  std::vector<std::array<double, 3>> d_top, d_low;       // [m − 1]

  std::array<double, 3> discounts(const std::map<std::u32string, int>& counts) const {
    double nk[5] = {0, 0, 0, 0, 0};
    for (const auto& [g, c] : counts)
      if (c <= 4) nk[c] += 1;
    if (!modified) {
      if (nk[1] == 0) return {0.5, 0.5, 0.5};
      const double D = nk[1] / (nk[1] + 2 * nk[2]);
      return {D, D, D};
    }
    if (nk[1] == 0 || nk[2] == 0 || nk[3] == 0) return {0.5, 1.0, 1.5};
    const double Y = nk[1] / (nk[1] + 2 * nk[2]);
    const std::array<double, 3> d = {1 - 2 * Y * nk[2] / nk[1], 2 - 3 * Y * nk[3] / nk[2], 3 - 4 * Y * nk[4] / nk[3]};
    for (int k = 0; k < 3; ++k)
      if (!(d[size_t(k)] > 0 && d[size_t(k)] <= k + 1)) return {0.5, 1.0, 1.5};
    return d;
  }

  ReferenceKn(const std::u32string& text, int order, bool mod) : n(order), modified(mod) {
    const std::u32string padded = std::u32string(4, kRefBos) + text;
    raw.resize(size_t(n));
    cont.resize(size_t(n));
    for (int m = 1; m <= n; ++m)
      for (size_t i = 4; i < padded.size(); ++i) ++raw[size_t(m - 1)][padded.substr(i - size_t(m - 1), size_t(m))];
    V = raw[0].size();
    double once = 0;  // Good–Turing: characters seen once, plus one, over the training symbols plus one
    for (const auto& [g, c] : raw[0]) once += c == 1;
    p_new = (once + 1) / double(text.size() + 1);
    for (int m = 1; m <= n; ++m) {
      for (const auto& [g, c] : raw[size_t(m - 1)]) {
        if (m == n || g[0] == kRefBos) {
          cont[size_t(m - 1)][g] = c;
          continue;
        }
        int left = 0;  // distinct x with x g among the (m+1)-grams
        for (const auto& [g2, c2] : raw[size_t(m)]) left += g2.substr(1) == g;
        cont[size_t(m - 1)][g] = left;
      }
      d_top.push_back(discounts(raw[size_t(m - 1)]));
      d_low.push_back(discounts(cont[size_t(m - 1)]));
    }
  }

  // P_m(c | the end of `history`, BOS-padded), with raw counts at the top level.
  double p(int m, bool top, const std::u32string& history, char32_t c) const {
    const bool seen = raw[0].count(std::u32string(1, c)) > 0;
    if (m == 0) return 1.0 / double(V);
    if (m == 1 && !seen) return p_new;
    const double scale = m == 1 ? 1 - p_new : 1;  // the unigram's share of what the escape leaves
    const auto& A = top ? raw[size_t(m - 1)] : cont[size_t(m - 1)];
    const auto& D = top ? d_top[size_t(m - 1)] : d_low[size_t(m - 1)];
    const std::u32string padded = std::u32string(4, kRefBos) + history;
    const std::u32string h = padded.substr(padded.size() - size_t(m - 1));
    double total = 0, mass = 0, a = 0;
    for (const auto& [g, count] : A)
      if (g.compare(0, size_t(m - 1), h) == 0) {
        total += count;
        mass += D[size_t(std::min(count, 3) - 1)];
        if (g.back() == c) a = count;
      }
    const double lower = p(m - 1, false, history, c);
    if (total == 0) return lower;
    const double Da = a == 0 ? 0 : D[size_t(std::min(int(a), 3) - 1)];
    return scale * (std::max(a - Da, 0.0) / total + mass / total * lower);
  }

  // Held-out bits per character, an unseen Basic Latin letter charged the escape and log₂ 52.
  double bits_per_char(const std::u32string& heldout) const {
    double bits = 0;
    for (size_t i = 0; i < heldout.size(); ++i) {
      const char32_t c = heldout[i];
      const bool seen = raw[0].count(std::u32string(1, c)) > 0;
      bits += -std::log2(p(n, true, heldout.substr(0, i), c)) + (seen ? 0 : std::log2(52.0));
    }
    return bits / double(heldout.size());
  }
};

TEST(KneserNey, HeldOutBitsEqualAnIndependentComputation) {
  const std::string train =
      "the cat sat on the mat. the hat is flat; a bat sat at that mat. that cat has a hat. the bat and the cat "
      "sat on a flat mat at the hat shop. a fat cat, a thin bat, and that hat.";
  const std::string heldout = "the rat sat on that flat hat; a cat sat by the bat.";  // r, y never seen
  const std::vector<uint32_t> train_cps = cps(train), held = cps(heldout);
  const std::u32string train32(train_cps.begin(), train_cps.end());
  const std::u32string held32(held.begin(), held.end());
  bool estimated = false;  // at least one order's discounts come from its count-of-counts, not the fallback
  for (KneserNeyVariant v : {KneserNeyVariant::Modified, KneserNeyVariant::Standard}) {
    const KneserNey kn = kneser_ney_train(cps(train), 5, v);
    const std::vector<KneserNeyScore> scores = kneser_ney_score_orders(kn, held);
    ASSERT_EQ(scores.size(), 5u);
    for (int n = 1; n <= 5; ++n) {
      const ReferenceKn ref(train32, n, v == KneserNeyVariant::Modified);
      const KneserNeyScore& s = scores[size_t(n - 1)];
      EXPECT_EQ(s.order, n);
      EXPECT_EQ(s.symbols, held.size());
      EXPECT_EQ(s.unseen, 2u);  // r and y
      expect_close(s.bits_per_char, ref.bits_per_char(held32), "order " + std::to_string(n));
      expect_close(kneser_ney_bits(kn, held, n), s.bits_per_char);
      const auto& d = kn.top_discounts[size_t(n - 1)];
      const std::string at =
          "order " + std::to_string(n) + (v == KneserNeyVariant::Modified ? " modified" : " standard");
      expect_close(d.d1, ref.d_top[size_t(n - 1)][0], at);
      expect_close(d.d3, ref.d_top[size_t(n - 1)][2], at);
      estimated |= v == KneserNeyVariant::Modified && !d.fallback;
      if (n >= 2)  // order n − 1 below order n: continuation counts
        expect_close(kn.lower_discounts[size_t(n - 2)].d2, ref.d_low[size_t(n - 2)][1], at + " lower");
    }
  }
  EXPECT_TRUE(estimated);
}

// The best order is the one with the fewest held-out bits, from the same numbers the per-order scores give.
TEST(KneserNey, BestOrderIsTheMinimumOverOrders) {
  std::string train, heldout;
  for (int i = 0; i < 30; ++i)
    (i % 5 == 4 ? heldout : train) += "the cat sat on the mat " + std::to_string(i % 7) + "\n";
  const KneserNeyBest best = kneser_ney_best(cps(train), cps(heldout));
  ASSERT_EQ(best.per_order.size(), 5u);
  const KneserNey kn = kneser_ney_train(cps(train), 5);
  for (int n = 1; n <= 5; ++n) EXPECT_EQ(best.per_order[size_t(n - 1)], kneser_ney_bits(kn, cps(heldout), n));
  const auto it = std::min_element(best.per_order.begin(), best.per_order.end());
  EXPECT_EQ(best.order, int(it - best.per_order.begin()) + 1);
  EXPECT_EQ(best.bits_per_char, *it);
  EXPECT_LT(best.per_order[2], best.per_order[0]);  // a repeated sentence: context helps
}

// No training text: V = 0, the escape is certain (P₀ = 1), and each held-out character costs its alphabet alone.
TEST(KneserNey, EmptyTrainingChargesOnlyTheAlphabet) {
  const KneserNey kn = kneser_ney_train({}, 3);
  EXPECT_TRUE(kn.vocabulary.empty());
  expect_close(kneser_ney_bits(kn, cps("ab")), std::log2(52.0));
  const KneserNeyScore none = kneser_ney_score(kn, {});
  EXPECT_EQ(none.symbols, 0u);
  EXPECT_EQ(none.bits_per_char, 0.0);
  EXPECT_EQ(kneser_ney_score_records(kn, {""})[2].bits_per_char, 0.0);  // END unseen: the escape, alphabet 1
  const KneserNey empty{};                                              // never trained: no tables, no crash
  EXPECT_EQ(kneser_ney_prob(empty, {}, 'a'), 1.0);
  EXPECT_TRUE(kneser_ney_score_orders(empty, cps("ab")).empty());
}

}  // namespace
}  // namespace tw
