#include "core/text/tokenizer_training.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/base/utf8.h"
#include "core/text/tokenizer.h"

namespace tw {
namespace {

// A trained tokenizer's tokens for `text`, through the tokenizer.json it wrote and the one Tokenizer.
std::vector<std::string> trained_tokens(const std::string& tokenizer_json, const std::string& text) {
  Tokenizer tok;
  std::string error;
  EXPECT_TRUE(tokenizer_from_json(tokenizer_json, &tok, &error)) << error;
  std::vector<std::string> out;
  for (int id : tok.encode(text, false)) out.push_back(tok.token_string(id));
  return out;
}

// Hand-worked BPE on "aaab aaab ab". GPT-2's pre-tokenizer gives the pieces "aaab", "Ġaaab", "Ġab" (Ġ is the
// space byte). Pair counts: (a,a) 2+2 = 4, (a,b) 3, (Ġ,a) 2 → merge "aa". Then "aa a b", "Ġ aa a b", "Ġ a b":
// (a,b) 3 beats (aa,a) 2 → "ab". Then "aa ab" twice: (aa,ab) 2 → "aaab". Left: (Ġ,aaab) 1 and (Ġ,ab) 1 tie;
// "ab" entered the vocabulary first → "Ġab".
TEST(TokenizerTraining, BpeHandWorkedMerges) {
  BpeTraining t;
  std::string error;
  ASSERT_TRUE(train_bpe("aaab aaab ab", 10, &t, &error)) << error;
  ASSERT_EQ(t.merges.size(), 5u);  // after "Ġab" one pair is left: (Ġ, aaab)
  const std::vector<std::pair<std::string, std::string>> want = {{"a", "a"}, {"a", "b"}, {"aa", "ab"}, {"Ġ", "ab"}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t.merges[i].left, want[i].first) << "merge " << i;
    EXPECT_EQ(t.merges[i].right, want[i].second) << "merge " << i;
  }
  EXPECT_EQ(t.merges[0].count, 4);
  EXPECT_EQ(t.merges[1].count, 3);
  EXPECT_EQ(t.merges[2].count, 2);
  EXPECT_EQ(t.merges[0].vocab_size, 257);
  EXPECT_EQ(t.merges[0].candidates[1].count, 3);  // (a, b) was the runner-up at step 1
  EXPECT_EQ(t.merges[3].merged, "Ġab");

  // The trained vocabulary loads into the encoder real models use: " aaab ab" is Ġaaab (the fifth merge), Ġab.
  Tokenizer tok;
  ASSERT_TRUE(tokenizer_from_json(t.tokenizer_json, &tok, &error)) << error;
  const std::vector<int> ids = tok.encode(" aaab ab", false);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(tok.token_string(ids[0]), "Ġaaab");
  EXPECT_EQ(tok.token_string(ids[1]), "Ġab");
  EXPECT_EQ(tok.encode("aab", false).size(), 2u);  // aa + b: (a, a) has rank 0, the left pair merges first
  EXPECT_EQ(tok.decode(ids), " aaab ab");
}

// train_bpe keeps its pair counts up to date between merges. A full recount per merge (the definition) is written
// here on its own: words of lowercase letters, each piece after the first led by the space byte, most frequent pair
// first, ties to the pair whose symbols are older (lower ids). Every merge and its count must agree, over hundreds
// of merges on text with many ties and with overlapping pairs ("aaaa").
TEST(TokenizerTraining, BpeMergesAreThoseOfAFullRecountAtEveryStep) {
  std::string text;
  uint32_t x = 12345;
  for (int w = 0; w < 3000; ++w) {
    x = x * 1103515245u + 12345u;
    const int len = 1 + int((x >> 16) % 7);
    std::string word;
    for (int i = 0; i < len; ++i) {
      x = x * 1103515245u + 12345u;
      word += char('a' + (x >> 16) % 5);  // five letters: long runs of one letter and many equal counts
    }
    text += (w ? " " : "") + word;
  }
  BpeTraining t;
  std::string error;
  ASSERT_TRUE(train_bpe(text, 400, &t, &error)) << error;

  std::map<std::vector<int>, int64_t> words;  // symbol ids -> count (a byte's id is its value)
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::vector<int> w;
    if (start > 0) w.push_back(' ');
    for (size_t i = start; i < end; ++i) w.push_back(static_cast<unsigned char>(text[i]));
    ++words[w];
    start = end + 1;
  }
  std::vector<std::string> names(256);
  for (int b = 0; b < 256; ++b) names[size_t(b)] = b == ' ' ? "\xC4\xA0" : std::string(1, char(b));  // ' ' is 'Ġ'
  for (size_t m = 0;; ++m) {
    std::map<std::pair<int, int>, int64_t> counts;
    for (const auto& [w, c] : words)
      for (size_t i = 0; i + 1 < w.size(); ++i) counts[{w[i], w[i + 1]}] += c;
    if (counts.empty()) {
      EXPECT_EQ(t.merges.size(), m);
      break;
    }
    auto best = counts.begin();  // std::map order: lowest (left, right) first among equal counts
    for (auto it = counts.begin(); it != counts.end(); ++it)
      if (it->second > best->second) best = it;
    if (m == t.merges.size()) break;  // the 400 merges asked for
    const auto [a, b] = best->first;
    ASSERT_EQ(t.merges[m].left, names[size_t(a)]) << "merge " << m;
    ASSERT_EQ(t.merges[m].right, names[size_t(b)]) << "merge " << m;
    ASSERT_EQ(t.merges[m].count, best->second) << "merge " << m;
    const int id = int(names.size());
    names.push_back(names[size_t(a)] + names[size_t(b)]);
    std::map<std::vector<int>, int64_t> merged;
    for (const auto& [w, c] : words) {
      std::vector<int> out;
      for (size_t i = 0; i < w.size(); ++i)
        if (i + 1 < w.size() && w[i] == a && w[i + 1] == b)
          out.push_back(id), ++i;
        else
          out.push_back(w[i]);
      merged[out] += c;
    }
    words = std::move(merged);
  }
  EXPECT_EQ(t.merges.size(), 400u);
}

// WordPiece on "ab ab ab ac xc": symbols a (4), ##b (3), ##c (2), x (1). Scores: (a,##b) 3/(4·3) = 0.25,
// (a,##c) 1/(4·2) = 0.125, (x,##c) 1/(1·2) = 0.5 → "xc" first although it occurs once. Then ##c has count 1:
// (a,##b) 3/12 = 0.25 ties (a,##c) 1/4 = 0.25; the more frequent pair wins → "ab".
TEST(TokenizerTraining, WordPieceChoosesByLikelihoodNotFrequency) {
  WordPieceTraining t;
  std::string error;
  ASSERT_TRUE(train_wordpiece("ab ab ab ac xc", 7, &t, &error)) << error;
  ASSERT_EQ(t.merges.size(), 2u);
  EXPECT_EQ(t.merges[0].merged, "xc");
  EXPECT_DOUBLE_EQ(t.merges[0].score, 0.5);
  EXPECT_EQ(t.merges[1].merged, "ab");
  EXPECT_DOUBLE_EQ(t.merges[1].score, 0.25);
  EXPECT_EQ(t.vocab, (std::vector<std::string>{"[UNK]", "a", "##b", "##c", "x", "xc", "ab"}));
  // Greedy longest match: "xcab" → "xc", then "##ab" and "##a" are not in the vocabulary → the word is [UNK].
  EXPECT_EQ(trained_tokens(t.tokenizer_json, "ab ac xcab"), (std::vector<std::string>{"ab", "a", "##c", "[UNK]"}));
}

// Every segmentation of a short word, by brute force, to check Viterbi picks the most probable one.
double best_by_brute_force(const UnigramTraining& t, const std::vector<std::string>& chars) {
  std::function<double(size_t)> best = [&](size_t s) -> double {
    if (s == chars.size()) return 0.0;
    double b = -INFINITY;
    std::string sub;
    for (size_t e = s + 1; e <= chars.size(); ++e) {
      sub += chars[e - 1];
      for (size_t i = 0; i < t.tokens.size(); ++i)
        if (t.tokens[i] == sub) b = std::max(b, t.log_probs[i] + best(e));
    }
    return b;
  };
  return best(0);
}

TEST(TokenizerTraining, UnigramReachesItsSizeAndSegmentsOptimally) {
  const std::string text =
      "the quick brown fox jumps over the lazy dog the dog barks the fox runs quickly over the hill "
      "a lazy afternoon the brown dog sleeps";
  UnigramTraining t;
  std::string error;
  ASSERT_TRUE(train_unigram(text, 40, &t, &error)) << error;
  EXPECT_EQ(t.tokens.size(), 40u);
  EXPECT_GT(t.seed_size, 40);
  EXPECT_GT(t.prune_rounds, 0);
  double mass = 0;
  for (double lp : t.log_probs) mass += std::exp(lp);
  EXPECT_NEAR(mass, 1.0, 1e-6);  // the last EM step leaves a distribution over the vocabulary
  for (const std::string word : {"the", "quickly", "dog"}) {
    const std::vector<std::string> pieces = trained_tokens(t.tokenizer_json, word);
    std::string joined;
    double lp = 0;
    for (const std::string& p : pieces) {
      joined += p;
      for (size_t i = 0; i < t.tokens.size(); ++i)
        if (t.tokens[i] == p) lp += t.log_probs[i];
    }
    EXPECT_EQ(joined, "▁" + std::string(word));
    EXPECT_NEAR(lp, best_by_brute_force(t, utf8_chars("▁" + std::string(word))), 1e-9) << word;
  }
}

// Training counts the words the encoder cuts (BERT's pre-tokenizer: Unicode punctuation stands alone), so a text's own
// words always encode: "，" and "。" are tokens that start a word, never "##，", and nothing is [UNK]. Counting words
// at ASCII punctuation only (as training did before it went through the pre-tokenizer) left "，" inside words and
// every line of this text [UNK].
TEST(TokenizerTraining, WordPieceTrainsOnTheWordsItsEncoderCuts) {
  const std::string text = "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。 don't stop: it's (nearly) done!";
  WordPieceTraining t;
  std::string error;
  ASSERT_TRUE(train_wordpiece(text, 60, &t, &error)) << error;
  const auto has = [&](const std::string& v) { return std::find(t.vocab.begin(), t.vocab.end(), v) != t.vocab.end(); };
  EXPECT_TRUE(has("，") && has("。") && has("'") && has("("));
  EXPECT_FALSE(has("##，") || has("##。") || has("##'"));
  const std::vector<std::string> tokens = trained_tokens(t.tokenizer_json, text);
  EXPECT_EQ(std::count(tokens.begin(), tokens.end(), "[UNK]"), 0);
  Tokenizer tok;
  ASSERT_TRUE(tokenizer_from_json(t.tokenizer_json, &tok, &error)) << error;
  EXPECT_EQ(tok.token_string(0), "[UNK]");  // ids are positions in t.vocab
  EXPECT_EQ(tok.vocab_size(), int(t.vocab.size()));
}

// The Unigram tokenizer.json: <unk> is id 0, the trained tokens follow with their log-probabilities; a word of the
// training text decodes back to itself, and a character never seen becomes <unk> (as SentencePiece's does).
TEST(TokenizerTraining, UnigramWritesATokenizerThatRoundTripsItsText) {
  const std::string text = "low lower lowest\nnew newer newest\twide wider widest";
  UnigramTraining t;
  std::string error;
  ASSERT_TRUE(train_unigram(text, 30, &t, &error)) << error;
  Tokenizer tok;
  ASSERT_TRUE(tokenizer_from_json(t.tokenizer_json, &tok, &error)) << error;
  EXPECT_EQ(tok.token_string(0), "<unk>");
  EXPECT_EQ(tok.vocab_size(), int(t.tokens.size()) + 1);
  for (size_t i = 0; i < t.tokens.size(); ++i) EXPECT_EQ(tok.token_string(int(i) + 1), t.tokens[i]);
  EXPECT_EQ(tok.decode(tok.encode("lowest newer wide", false)), "lowest newer wide");
  EXPECT_EQ(trained_tokens(t.tokenizer_json, "newest"), trained_tokens(t.tokenizer_json, "\tnewest  "));
  const std::vector<std::string> q = trained_tokens(t.tokenizer_json, "lowq");
  EXPECT_EQ(std::count(q.begin(), q.end(), "<unk>"), 1);
}

TEST(TokenizerTraining, BadTextIsRefusedWithAMessage) {
  BpeTraining b;
  WordPieceTraining w;
  UnigramTraining u;
  std::string error;
  EXPECT_FALSE(train_bpe("", 10, &b, &error));
  EXPECT_NE(error.find("empty"), std::string::npos);
  EXPECT_FALSE(train_wordpiece("   \n ", 10, &w, &error));
  EXPECT_NE(error.find("no words"), std::string::npos);
  EXPECT_FALSE(train_unigram(std::string("\xff\xfe"), 10, &u, &error));
  EXPECT_NE(error.find("UTF-8"), std::string::npos);
  EXPECT_FALSE(train_bpe(std::string(300 * 1024, 'a'), 10, &b, &error));
  EXPECT_NE(error.find("256 KiB"), std::string::npos);
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(train_bpe("abc abc", 10, &b, &error, &cancel));
  EXPECT_NE(error.find("cancelled"), std::string::npos);
  EXPECT_EQ(count_words("two  words\n"), 2);
}

TEST(Utf8, CharactersAndValidity) {
  EXPECT_EQ(utf8_chars("a€😀"), (std::vector<std::string>{"a", "€", "😀"}));
  EXPECT_TRUE(valid_utf8("日本語 ok"));
  EXPECT_FALSE(valid_utf8("\xC0\xAF"));      // overlong '/'
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));  // surrogate
  EXPECT_EQ(utf8_chars("\xFF"
                       "a")
                .size(),
            2u);  // a stray byte is its own unit
}

}  // namespace
}  // namespace tw
