#include "core/text/tokenizer_training.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/text/tokenizer.h"

namespace tw {

namespace {

constexpr size_t kMaxTextBytes = kMaxTrainingTextBytes;
constexpr int kMaxTrainedVocab = 4096;
// A language model's BPE tokenizer: 256 bytes + merges up to train.lm_vocab's 8192 (the panel's own vocabularies stay
// within kMaxTrainedVocab).
constexpr int kMaxMerges = 8192 - 256;
constexpr int kCandidates = 8;
constexpr int kUnigramMaxLen = 8;  // characters in a seed substring

bool cancelled(const std::atomic<bool>* c) { return c && c->load(std::memory_order_relaxed); }

// [SECTION] shared merge machinery: words as sequences of symbol ids, counted once per distinct word

struct Word {
  std::vector<int> symbols;
  int64_t count = 0;
};

uint64_t pair_key(int a, int b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }
int key_left(uint64_t k) { return static_cast<int>(k >> 32); }
int key_right(uint64_t k) { return static_cast<int>(k & 0xffffffffu); }

std::unordered_map<uint64_t, int64_t> count_pairs(const std::vector<Word>& words) {
  std::unordered_map<uint64_t, int64_t> counts;
  for (const Word& w : words)
    for (size_t i = 0; i + 1 < w.symbols.size(); ++i) counts[pair_key(w.symbols[i], w.symbols[i + 1])] += w.count;
  return counts;
}

// Replaces every (a, b) by m, left to right without overlap (so "a a a" with (a, a) becomes "aa a").
void apply_merge(std::vector<Word>& words, int a, int b, int m) {
  for (Word& w : words) {
    std::vector<int>& s = w.symbols;
    size_t out = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
        s[out++] = m;
        ++i;
      } else {
        s[out++] = s[i];
      }
    }
    s.resize(out);
  }
}

struct Scored {
  uint64_t key;
  int64_t count;
  double score;
};
// Best first: higher score, then higher count, then the pair whose symbols entered the vocabulary first.
bool better(const Scored& x, const Scored& y) {
  if (x.score != y.score) return x.score > y.score;
  if (x.count != y.count) return x.count > y.count;
  return x.key < y.key;
}

std::vector<PairCount> top_candidates(std::vector<Scored>& all, const std::vector<std::string>& names) {
  const size_t n = std::min<size_t>(kCandidates, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(), better);
  std::vector<PairCount> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back({names[static_cast<size_t>(key_left(all[i].key))], names[static_cast<size_t>(key_right(all[i].key))],
                   all[i].count, all[i].score});
  return out;
}

// Whitespace-separated words, counted: the denominators of tokens per word.
std::map<std::string, int64_t> count_words_in(const std::string& text) {
  std::map<std::string, int64_t> words;
  std::string cur;
  auto flush = [&]() {
    if (!cur.empty()) ++words[cur];
    cur.clear();
  };
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
      flush();
    else
      cur += ch;
  }
  flush();
  return words;
}

// The text cut into words by the pre-tokenizer of `tokenizer` (a trainer's own tokenizer.json, before its vocabulary is
// known), counted: training sees exactly the words its encoder will.
bool count_pre_split(const nlohmann::json& tokenizer, const std::string& text, std::map<std::string, int64_t>* words,
                     std::string* error) {
  Tokenizer splitter;
  if (!tokenizer_from_json(tokenizer.dump(), &splitter, error)) return false;
  for (const std::string& piece : splitter.pre_split(text)) ++(*words)[piece];
  return true;
}

}  // namespace

std::string check_training_text(const std::string& text) {
  if (text.empty()) return tr("the training text is empty");
  if (text.size() > kMaxTextBytes)
    return subst(tr("the training text has {0} bytes; at most 256 KiB is trained on"), {std::to_string(text.size())});
  if (std::string bad = utf8_error(text, tr("the training text")); !bad.empty()) return bad;
  if (count_words_in(text).empty()) return tr("the training text has no words (only whitespace)");
  return "";
}

int count_words(const std::string& text) {
  int n = 0;
  for (const auto& [w, c] : count_words_in(text)) n += static_cast<int>(c);
  return n;
}

// [SECTION] BPE

bool train_bpe(const std::string& text, int n_merges, BpeTraining* out, std::string* error,
               const std::atomic<bool>* cancel, std::atomic<float>* progress) {
  if (const std::string problem = check_training_text(text); !problem.empty()) return *error = problem, false;
  if (n_merges < 1 || n_merges > kMaxMerges)
    return *error = subst(tr("merges must be between 1 and {0}"), {std::to_string(kMaxMerges)}), false;
  using nlohmann::json;
  // GPT-2's pre-tokenizer, taken from the tokenizer that loads real models: a vocabulary of the 256 byte symbols.
  const std::vector<std::string>& alphabet = byte_level_alphabet();
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[alphabet[static_cast<size_t>(b)]] = b;
  json j;
  j["model"] = {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array()}};
  j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  j["decoder"] = {{"type", "ByteLevel"}};
  std::map<std::string, int64_t> pieces;
  if (!count_pre_split(j, text, &pieces, error)) return false;
  std::vector<Word> words;
  for (const auto& [piece, count] : pieces) {
    Word w;
    w.count = count;
    for (char c : piece) w.symbols.push_back(static_cast<unsigned char>(c));  // a byte's id is its value
    words.push_back(std::move(w));
  }
  std::vector<std::string> names(alphabet.begin(), alphabet.end());
  BpeTraining result;
  json merges = json::array();
  // Pair counts kept up to date instead of recounted per merge: a merge changes only the words that hold its pair,
  // so 7,936 merges on 256 KiB take a fraction of a second rather than seconds of rescanning every word. `ranked`
  // orders the pairs exactly as better() does (score = count here), so the merges are those of a full recount.
  std::unordered_map<uint64_t, int64_t> counts = count_pairs(words);
  auto rank_before = [](const std::pair<int64_t, uint64_t>& x, const std::pair<int64_t, uint64_t>& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  };
  std::set<std::pair<int64_t, uint64_t>, decltype(rank_before)> ranked(rank_before);
  std::unordered_map<uint64_t, std::vector<int>> holders;  // pair -> words that held it (stale entries are skipped)
  for (const auto& [k, c] : counts) ranked.insert({c, k});
  for (size_t w = 0; w < words.size(); ++w)
    for (size_t i = 0; i + 1 < words[w].symbols.size(); ++i)
      holders[pair_key(words[w].symbols[i], words[w].symbols[i + 1])].push_back(static_cast<int>(w));
  auto add_pairs = [&](int w, int64_t sign) {
    const Word& word = words[static_cast<size_t>(w)];
    for (size_t i = 0; i + 1 < word.symbols.size(); ++i) {
      const uint64_t k = pair_key(word.symbols[i], word.symbols[i + 1]);
      int64_t& c = counts[k];
      if (c > 0) ranked.erase({c, k});
      c += sign * word.count;
      if (c > 0) ranked.insert({c, k});
      if (sign > 0) holders[k].push_back(w);
    }
  };
  std::vector<int> stamp(words.size(), -1);  // the merge that last rewrote each word
  for (int m = 0; m < n_merges; ++m) {
    if (cancelled(cancel)) return *error = tr("training cancelled"), false;
    if (progress) progress->store(float(m) / float(n_merges), std::memory_order_relaxed);
    if (ranked.empty()) break;  // every piece is a single symbol: nothing left to merge
    std::vector<Scored> top;
    for (auto it = ranked.begin(); it != ranked.end() && top.size() < size_t(kCandidates); ++it)
      top.push_back({it->second, it->first, static_cast<double>(it->first)});
    MergeStep step;
    step.candidates = top_candidates(top, names);
    const Scored best = top.front();
    const int a = key_left(best.key), b = key_right(best.key), id = static_cast<int>(names.size());
    step.left = names[static_cast<size_t>(a)];
    step.right = names[static_cast<size_t>(b)];
    step.merged = step.left + step.right;
    step.count = best.count;
    step.score = best.score;
    names.push_back(step.merged);
    step.vocab_size = static_cast<int>(names.size());
    std::vector<int> held = std::move(holders[best.key]);
    holders.erase(best.key);
    for (int w : held) {
      if (stamp[static_cast<size_t>(w)] == m) continue;  // listed twice
      stamp[static_cast<size_t>(w)] = m;
      add_pairs(w, -1);
      std::vector<Word> one{std::move(words[static_cast<size_t>(w)])};
      apply_merge(one, a, b, id);
      words[static_cast<size_t>(w)] = std::move(one.front());
      add_pairs(w, +1);
    }
    vocab[step.merged] = id;
    merges.push_back(step.left + " " + step.right);  // byte-level symbols never contain a space (it is 'Ġ')
    result.merges.push_back(std::move(step));
  }
  j["model"]["vocab"] = vocab;
  j["model"]["merges"] = merges;
  result.tokenizer_json = j.dump();
  *out = std::move(result);
  return true;
}

// [SECTION] WordPiece

namespace {
const std::string kUnk = "[UNK]";
std::string strip_hashes(const std::string& s) { return s.rfind("##", 0) == 0 ? s.substr(2) : s; }

// BERT's tokenizer.json around a vocabulary (ids = positions): its pre-tokenizer, WordPiece with "##" continuations
// and Hugging Face's default of 100 characters a word.
nlohmann::json wordpiece_json(const std::vector<std::string>& vocab) {
  nlohmann::json ids = nlohmann::json::object();
  for (size_t i = 0; i < vocab.size(); ++i) ids[vocab[i]] = i;
  nlohmann::json j;
  j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}};
  j["model"] = {{"type", "WordPiece"},
                {"unk_token", kUnk},
                {"continuing_subword_prefix", "##"},
                {"max_input_chars_per_word", 100},
                {"vocab", ids}};
  j["decoder"] = {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}};
  return j;
}
}  // namespace

bool train_wordpiece(const std::string& text, int vocab_size, WordPieceTraining* out, std::string* error,
                     const std::atomic<bool>* cancel) {
  if (const std::string problem = check_training_text(text); !problem.empty()) return *error = problem, false;
  if (vocab_size < 1 || vocab_size > kMaxTrainedVocab)
    return *error = tr("the vocabulary size must be between 1 and 4096"), false;
  std::vector<std::string> names;
  std::unordered_map<std::string, int> id_of;
  auto intern = [&](const std::string& s) {
    auto [it, fresh] = id_of.emplace(s, static_cast<int>(names.size()));
    if (fresh) names.push_back(s);
    return it->second;
  };
  std::map<std::string, int64_t> counted;
  if (!count_pre_split(wordpiece_json({kUnk}), text, &counted, error)) return false;
  std::vector<Word> words;
  for (const auto& [word, count] : counted) {
    Word w;
    w.count = count;
    const std::vector<std::string> chars = utf8_chars(word);
    for (size_t i = 0; i < chars.size(); ++i) w.symbols.push_back(intern(i == 0 ? chars[i] : "##" + chars[i]));
    words.push_back(std::move(w));
  }
  WordPieceTraining result;
  result.vocab.push_back(kUnk);
  result.vocab.insert(result.vocab.end(), names.begin(), names.end());
  while (static_cast<int>(result.vocab.size()) < vocab_size) {
    if (cancelled(cancel)) return *error = tr("training cancelled"), false;
    const auto counts = count_pairs(words);
    if (counts.empty()) break;
    std::vector<int64_t> symbol_count(names.size(), 0);
    for (const Word& w : words)
      for (int s : w.symbols) symbol_count[static_cast<size_t>(s)] += w.count;
    std::vector<Scored> all;
    all.reserve(counts.size());
    for (const auto& [k, c] : counts)
      all.push_back({k, c,
                     static_cast<double>(c) / (static_cast<double>(symbol_count[static_cast<size_t>(key_left(k))]) *
                                               static_cast<double>(symbol_count[static_cast<size_t>(key_right(k))]))});
    MergeStep step;
    step.candidates = top_candidates(all, names);
    const Scored best = all.front();
    const int a = key_left(best.key), b = key_right(best.key);
    step.left = names[static_cast<size_t>(a)];
    step.right = names[static_cast<size_t>(b)];
    step.merged = step.left + strip_hashes(step.right);
    step.count = best.count;
    step.score = best.score;
    const bool fresh = !id_of.count(step.merged);
    const int m = intern(step.merged);
    if (fresh) result.vocab.push_back(step.merged);
    step.vocab_size = static_cast<int>(result.vocab.size());
    apply_merge(words, a, b, m);
    result.merges.push_back(std::move(step));
  }
  result.tokenizer_json = wordpiece_json(result.vocab).dump();
  *out = std::move(result);
  return true;
}

// [SECTION] Unigram

namespace {

const std::string kMeta = "\xE2\x96\x81";  // ▁
constexpr double kTinyLogProb = -30.0;     // a token EM gave no mass

double log_add(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  const double m = std::max(a, b);
  return m + std::log(std::exp(a - m) + std::exp(b - m));
}

struct UnigramModel {
  std::vector<std::string> tokens;
  std::vector<double> logp;
  std::unordered_map<std::string, int> index;
  void rebuild_index() {
    index.clear();
    for (size_t i = 0; i < tokens.size(); ++i) index[tokens[i]] = static_cast<int>(i);
  }
  int find(const std::vector<std::string>& chars, size_t s, size_t e) const {
    std::string sub;
    for (size_t i = s; i < e; ++i) sub += chars[i];
    const auto it = index.find(sub);
    return it == index.end() ? -1 : it->second;
  }
};

struct CharWord {
  std::vector<std::string> chars;
  int64_t count = 0;
};

// Best segmentation of chars by total log-probability; `skip` is a token id left out (−1 for none).
// Returns the log-probability (−∞ when impossible) and fills `path` with token ids when given.
double viterbi(const UnigramModel& m, const std::vector<std::string>& chars, int skip, std::vector<int>* path) {
  const size_t n = chars.size();
  std::vector<double> best(n + 1, -std::numeric_limits<double>::infinity());
  std::vector<int> from(n + 1, -1), token(n + 1, -1);
  best[0] = 0;
  for (size_t e = 1; e <= n; ++e)
    for (size_t s = e > kUnigramMaxLen ? e - kUnigramMaxLen : 0; s < e; ++s) {
      if (best[s] == -std::numeric_limits<double>::infinity()) continue;
      const int t = m.find(chars, s, e);
      if (t < 0 || t == skip) continue;
      const double v = best[s] + m.logp[static_cast<size_t>(t)];
      if (v > best[e]) best[e] = v, from[e] = static_cast<int>(s), token[e] = t;
    }
  if (path) {
    path->clear();
    for (size_t e = n; e > 0 && from[e] >= 0; e = static_cast<size_t>(from[e])) path->push_back(token[e]);
    std::reverse(path->begin(), path->end());
  }
  return best[n];
}

// One EM step: expected token counts from forward-backward over every word, then log p = log(count / total).
void em_step(UnigramModel& m, const std::vector<CharWord>& words, std::vector<double>* expected_out) {
  std::vector<double> expected(m.tokens.size(), 0.0);
  const double ninf = -std::numeric_limits<double>::infinity();
  for (const CharWord& w : words) {
    const size_t n = w.chars.size();
    std::vector<double> alpha(n + 1, ninf), beta(n + 1, ninf);
    alpha[0] = 0;
    for (size_t e = 1; e <= n; ++e)
      for (size_t s = e > kUnigramMaxLen ? e - kUnigramMaxLen : 0; s < e; ++s)
        if (const int t = m.find(w.chars, s, e); t >= 0)
          alpha[e] = log_add(alpha[e], alpha[s] + m.logp[static_cast<size_t>(t)]);
    beta[n] = 0;
    for (size_t s = n; s-- > 0;)
      for (size_t e = s + 1; e <= std::min(n, s + kUnigramMaxLen); ++e)
        if (const int t = m.find(w.chars, s, e); t >= 0)
          beta[s] = log_add(beta[s], beta[e] + m.logp[static_cast<size_t>(t)]);
    const double z = alpha[n];
    if (z == ninf) continue;
    for (size_t s = 0; s < n; ++s)
      for (size_t e = s + 1; e <= std::min(n, s + kUnigramMaxLen); ++e)
        if (const int t = m.find(w.chars, s, e); t >= 0)
          expected[static_cast<size_t>(t)] +=
              static_cast<double>(w.count) * std::exp(alpha[s] + m.logp[static_cast<size_t>(t)] + beta[e] - z);
  }
  double total = 0;
  for (double c : expected) total += c;
  for (size_t i = 0; i < m.tokens.size(); ++i)
    m.logp[i] = expected[i] > 0 ? std::log(expected[i] / total) : kTinyLogProb;
  if (expected_out) *expected_out = std::move(expected);
}

// SentencePiece's tokenizer.json around a vocabulary: words split at whitespace with '▁' prepended, <unk> (id 0, at
// the lowest score, so it never wins a segmentation) for a character the vocabulary lacks, then the tokens.
nlohmann::json unigram_json(const std::vector<std::string>& tokens, const std::vector<double>& log_probs) {
  double lowest = 0;
  for (double lp : log_probs) lowest = std::min(lowest, lp);
  nlohmann::json vocab = nlohmann::json::array();
  vocab.push_back(nlohmann::json::array({"<unk>", lowest}));
  for (size_t i = 0; i < tokens.size(); ++i) vocab.push_back(nlohmann::json::array({tokens[i], log_probs[i]}));
  const nlohmann::json metaspace = {
      {"type", "Metaspace"}, {"replacement", kMeta}, {"prepend_scheme", "always"}, {"split", true}};
  nlohmann::json j;
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers", nlohmann::json::array({{{"type", "WhitespaceSplit"}}, metaspace})}};
  j["model"] = {{"type", "Unigram"}, {"unk_id", 0}, {"vocab", vocab}};
  j["decoder"] = metaspace;
  return j;
}

bool unigram_words(const std::string& text, std::vector<CharWord>* words, std::string* error) {
  std::map<std::string, int64_t> counted;
  if (!count_pre_split(unigram_json({}, {}), text, &counted, error)) return false;
  for (const auto& [word, count] : counted) words->push_back({utf8_chars(word), count});
  return true;
}

}  // namespace

bool train_unigram(const std::string& text, int vocab_size, UnigramTraining* out, std::string* error,
                   const std::atomic<bool>* cancel) {
  if (const std::string problem = check_training_text(text); !problem.empty()) return *error = problem, false;
  if (vocab_size < 1 || vocab_size > kMaxTrainedVocab)
    return *error = tr("the vocabulary size must be between 1 and 4096"), false;
  std::vector<CharWord> words;
  if (!unigram_words(text, &words, error)) return false;

  // Seed: every substring up to kUnigramMaxLen characters, scored by count · length; all single characters stay.
  std::map<std::string, std::pair<double, int>> seen;  // substring → (count, length in characters)
  for (const CharWord& w : words)
    for (size_t s = 0; s < w.chars.size(); ++s) {
      std::string sub;
      for (size_t e = s + 1; e <= std::min(w.chars.size(), s + kUnigramMaxLen); ++e) {
        sub += w.chars[e - 1];
        auto& entry = seen[sub];
        entry.first += static_cast<double>(w.count);
        entry.second = static_cast<int>(e - s);
      }
    }
  struct Seed {
    std::string s;
    double score;
    int len;
  };
  std::vector<Seed> singles, multis;
  for (const auto& [s, cl] : seen) (cl.second == 1 ? singles : multis).push_back({s, cl.first * cl.second, cl.second});
  std::stable_sort(multis.begin(), multis.end(), [](const Seed& a, const Seed& b) { return a.score > b.score; });
  const size_t keep_multi = std::min(multis.size(), static_cast<size_t>(std::max(4 * vocab_size, 64)));
  multis.resize(keep_multi);
  UnigramModel m;
  double total = 0;
  for (const auto* list : {&singles, &multis})
    for (const Seed& s : *list) {
      m.tokens.push_back(s.s);
      m.logp.push_back(s.score);
      total += s.score;
    }
  for (double& v : m.logp) v = std::log(v / total);
  m.rebuild_index();
  UnigramTraining result;
  result.seed_size = static_cast<int>(m.tokens.size());

  std::vector<double> expected;
  for (int i = 0; i < 2; ++i) em_step(m, words, &expected);
  const size_t n_singles = singles.size();
  while (m.tokens.size() > static_cast<size_t>(vocab_size) && m.tokens.size() > n_singles) {
    if (cancelled(cancel)) return *error = tr("training cancelled"), false;
    // Loss of removing each multi-character token: its expected count times how much worse its best
    // segmentation without it is.
    std::vector<std::pair<double, size_t>> loss;
    for (size_t t = n_singles; t < m.tokens.size(); ++t) {
      const std::vector<std::string> chars = utf8_chars(m.tokens[t]);
      const double alt = viterbi(m, chars, static_cast<int>(t), nullptr);
      loss.push_back({expected[t] * (m.logp[t] - alt), t});
    }
    std::stable_sort(loss.begin(), loss.end());
    const size_t target =
        std::max({static_cast<size_t>(vocab_size), n_singles, static_cast<size_t>(m.tokens.size() * 0.75)});
    const size_t drop = m.tokens.size() - target;
    std::vector<char> removed(m.tokens.size(), 0);
    for (size_t i = 0; i < drop && i < loss.size(); ++i) removed[loss[i].second] = 1;
    UnigramModel next;
    for (size_t t = 0; t < m.tokens.size(); ++t)
      if (!removed[t]) next.tokens.push_back(m.tokens[t]), next.logp.push_back(m.logp[t]);
    next.rebuild_index();
    m = std::move(next);
    for (int i = 0; i < 2; ++i) em_step(m, words, &expected);
    ++result.prune_rounds;
  }
  result.tokens = m.tokens;
  result.log_probs = m.logp;
  result.tokenizer_json = unigram_json(result.tokens, result.log_probs).dump();
  *out = std::move(result);
  return true;
}

double tokenizer_training_work(size_t text_bytes, int merges, int vocab_size) {
  return double(text_bytes) * (merges + vocab_size);
}

}  // namespace tw
