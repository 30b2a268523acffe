#include "core/experiments/ngram_baselines.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tw {
namespace {

// The kept tables of a corpus give what counting it again gives, and a second call counts nothing (the same
// tables come back).
TEST(NgramBaselines, KeptTablesEqualCountingAgain) {
  std::string error;
  const auto m = ngram_corpus_models(CorpusId::SongCi, 3, &error);
  ASSERT_NE(m, nullptr) << error;
  EXPECT_EQ(error, "");
  ASSERT_EQ(m->wb.size(), 3u);
  ASSERT_EQ(m->stats.size(), 3u);
  Corpus c;
  ASSERT_EQ(load_corpus(CorpusId::SongCi, &c), "");
  EXPECT_EQ(m->corpus.train, c.train);
  EXPECT_EQ(m->corpus.heldout, c.heldout);
  for (int n = 1; n <= 3; ++n) {
    const NgramModel wb(c.train, n, NgramSmoothing::WittenBell);
    const NgramOrderStats& s = m->stats[size_t(n - 1)];
    EXPECT_EQ(s.n, n);
    EXPECT_EQ(s.heldout_wb, wb.bits_per_symbol(c.heldout));
    EXPECT_EQ(s.train_wb, wb.bits_per_symbol(c.train));
    EXPECT_EQ(s.distinct, wb.distinct(n));
    EXPECT_EQ(s.unseen, wb.unseen_fraction(c.heldout, n));
    // Kneser–Ney of order n, trained up to n: the same number the tables up to 3 give (the order's own counts).
    const KneserNeyScore kn = kneser_ney_score_records(kneser_ney_train_records(c.train, n), c.heldout)[size_t(n - 1)];
    EXPECT_EQ(s.heldout_kn, kn.bits_per_char);
    EXPECT_EQ(s.heldout_kn_unseen, kn.unseen_bits / double(kn.symbols));
    EXPECT_EQ(s.heldout_unseen_chars, kn.unseen);
    const NgramModel addk(c.train, n, NgramSmoothing::AddK, 0.05f);
    EXPECT_EQ(m->wb[size_t(n - 1)].bits_per_symbol(c.heldout, NgramSmoothing::AddK, 0.05f),
              addk.bits_per_symbol(c.heldout));
    EXPECT_EQ(m->wb[size_t(n - 1)].sample(4, 60), wb.sample(4, 60));
  }
  EXPECT_EQ(ngram_corpus_models(CorpusId::SongCi, 3, &error), m);
  EXPECT_TRUE(ngram_corpus_models_kept(CorpusId::SongCi, 3));

  // Samples: none kept before the first draw, then the kept ones are each order's own sample.
  std::vector<std::string> kept;
  EXPECT_FALSE(m->kept_samples(11, 40, &kept));
  const std::vector<std::string> drawn = m->samples(11, 40);
  ASSERT_TRUE(m->kept_samples(11, 40, &kept));
  EXPECT_EQ(kept, drawn);
  ASSERT_EQ(drawn.size(), 3u);
  for (int n = 1; n <= 3; ++n)
    EXPECT_EQ(drawn[size_t(n - 1)], NgramModel(c.train, n, NgramSmoothing::WittenBell).sample(11, 40));
  EXPECT_FALSE(m->kept_samples(11, 41, &kept));
}

TEST(NgramBaselines, CancelledCountKeepsNothing) {
  std::atomic<bool> cancel{true};
  std::string error = "stale";
  EXPECT_EQ(ngram_corpus_models(CorpusId::EnglishQuotes, 2, &error, &cancel), nullptr);
  EXPECT_EQ(error, "");
  EXPECT_FALSE(ngram_corpus_models_kept(CorpusId::EnglishQuotes, 2));
  cancel = false;
  const auto m = ngram_corpus_models(CorpusId::EnglishQuotes, 2, &error, &cancel);
  ASSERT_NE(m, nullptr) << error;
  EXPECT_EQ(m->wb.size(), 2u);
  // A first answer of two orders leaves Kneser–Ney to the refinement.
  EXPECT_TRUE(std::isnan(m->stats[1].heldout_kn));
  EXPECT_TRUE(m->kn.vocabulary.empty());
}

// The first answer of a corpus keeps orders 1 … 2; the five orders counted afterwards start from them and equal
// counting all five from the text.
TEST(NgramBaselines, MoreOrdersStartFromTheKeptFewer) {
  Corpus c;
  ASSERT_EQ(load_corpus(CorpusId::SongCi, &c), "");
  const auto two = count_ngram_corpus(c, 2);
  ASSERT_NE(two, nullptr);
  const auto from_two = count_ngram_corpus(c, 4, nullptr, two.get());
  const auto whole = count_ngram_corpus(c, 4);
  ASSERT_NE(from_two, nullptr);
  ASSERT_EQ(from_two->wb.size(), 4u);
  ASSERT_EQ(from_two->stats.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(from_two->stats[i].n, int(i) + 1);
    EXPECT_EQ(from_two->stats[i].heldout_wb, whole->stats[i].heldout_wb);
    EXPECT_EQ(from_two->stats[i].train_wb, whole->stats[i].train_wb);
    EXPECT_EQ(from_two->stats[i].distinct, whole->stats[i].distinct);
    EXPECT_EQ(from_two->wb[i].sample(3, 40), whole->wb[i].sample(3, 40));
  }
  // Fewer orders than the start has: only those.
  EXPECT_EQ(count_ngram_corpus(c, 1, nullptr, two.get())->wb.size(), 1u);
}

}  // namespace
}  // namespace tw
