#include "core/experiments/ngram_baselines.h"

#include <gtest/gtest.h>

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
}

}  // namespace
}  // namespace tw
