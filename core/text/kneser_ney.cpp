#include "core/text/kneser_ney.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/base/utf8.h"
#include "core/text/script_alphabet.h"

namespace tw {

namespace {

__extension__ typedef unsigned __int128 Key;  // up to five symbols of 21 bits, the oldest in the highest bits

constexpr int kSymbolBits = 21;
constexpr uint32_t kSymbolMask = (1u << kSymbolBits) - 1;
constexpr uint32_t kBos = 0x110001;
constexpr int kMaxOrder = 5;

// A caller's symbol as it enters a key: anything past END is "unseen" (in no table; BOS only pads).
uint32_t key_symbol(uint32_t s) { return s <= kKneserNeyEnd ? s : kKneserNeyUnseen; }

}  // namespace

// Σ of a context's counts and how many of them are 1, 2 and ≥ 3 (N₁, N₂, N₃₊).
struct KnCounts {
  uint64_t total = 0;
  uint64_t n1 = 0, n2 = 0, n3 = 0;
  void add(uint32_t a) {
    total += a;
    n1 += a == 1, n2 += a == 2, n3 += a >= 3;
  }
};
struct KnContext {
  Key key = 0;                  // its m − 1 symbols
  uint32_t begin = 0, end = 0;  // its continuations in Level::grams
  KnCounts raw, cont;           // over raw counts, over continuation counts
};
struct KnGram {
  uint32_t symbol = 0;
  uint32_t raw = 0;   // C(h c)
  uint32_t cont = 0;  // N₁₊(• h c), or C(h c) when h starts with BOS
};
struct KnLevel {  // order m: contexts of m − 1 symbols, sorted by key; their continuations sorted by symbol
  std::vector<KnContext> contexts;
  std::vector<KnGram> grams;
};
struct KneserNeyTables {
  std::vector<KnLevel> levels;  // [m − 1]
};

namespace {

// The level-m n-grams of `seqs` (BOS-padded), sorted and counted.
KnLevel count_level(const std::vector<std::vector<uint32_t>>& seqs, int m) {
  std::vector<Key> keys;
  size_t total = 0;
  for (const auto& s : seqs) total += s.size();
  keys.reserve(total);
  for (const auto& s : seqs)
    for (size_t i = 0; i < s.size(); ++i) {
      Key k = 0;
      for (long j = long(i) - m + 1; j <= long(i); ++j) k = (k << kSymbolBits) | (j < 0 ? kBos : s[size_t(j)]);
      keys.push_back(k);
    }
  std::sort(keys.begin(), keys.end());
  KnLevel level;
  for (size_t i = 0; i < keys.size();) {
    size_t j = i;
    while (j < keys.size() && keys[j] == keys[i]) ++j;
    const Key context = keys[i] >> kSymbolBits;
    if (level.contexts.empty() || level.contexts.back().key != context) {
      KnContext c;
      c.key = context;
      c.begin = c.end = uint32_t(level.grams.size());
      level.contexts.push_back(c);
    }
    level.grams.push_back({uint32_t(keys[i]) & kSymbolMask, uint32_t(j - i), 0});
    ++level.contexts.back().end;
    i = j;
  }
  return level;
}

const KnContext* find_context(const KnLevel& level, Key key) {
  const auto it = std::lower_bound(level.contexts.begin(), level.contexts.end(), key,
                                   [](const KnContext& c, Key k) { return c.key < k; });
  return it != level.contexts.end() && it->key == key ? &*it : nullptr;
}

// The index of (context, symbol) in level.grams, or -1.
long find_gram(const KnLevel& level, const KnContext& context, uint32_t symbol) {
  const auto first = level.grams.begin() + context.begin, last = level.grams.begin() + context.end;
  const auto it = std::lower_bound(first, last, symbol, [](const KnGram& g, uint32_t s) { return g.symbol < s; });
  return it != last && it->symbol == symbol ? long(it - level.grams.begin()) : -1;
}

// The oldest symbol of an m-symbol key.
uint32_t oldest(Key key, int m) { return uint32_t(key >> (kSymbolBits * (m - 1))) & kSymbolMask; }

// Continuation counts of level m from the distinct (m+1)-grams: each is one distinct left extension of its last m
// symbols. An m-gram starting with BOS has none (nothing precedes BOS) and keeps its raw count.
void count_continuations(KnLevel* level, const KnLevel& above, int m) {
  for (KnGram& g : level->grams) g.cont = 0;
  const Key suffix_mask = (Key(1) << (kSymbolBits * m)) - 1;
  for (const KnContext& c : above.contexts)
    for (uint32_t i = c.begin; i < c.end; ++i) {
      const Key suffix = ((c.key << kSymbolBits) | above.grams[i].symbol) & suffix_mask;
      if (m >= 2 && oldest(suffix, m) == kBos) continue;
      const KnContext* ctx = find_context(*level, suffix >> kSymbolBits);
      const long g = ctx ? find_gram(*level, *ctx, uint32_t(suffix) & kSymbolMask) : -1;
      if (g >= 0) ++level->grams[size_t(g)].cont;
    }
  for (KnContext& c : level->contexts)
    if (m >= 2 && oldest(c.key, m - 1) == kBos)
      for (uint32_t i = c.begin; i < c.end; ++i) level->grams[i].cont = level->grams[i].raw;
}

KneserNeyDiscounts estimate_discounts(const std::array<uint64_t, 4>& n, KneserNeyVariant variant) {
  KneserNeyDiscounts d;
  d.n1 = n[0], d.n2 = n[1], d.n3 = n[2], d.n4 = n[3];
  const double n1 = double(n[0]), n2 = double(n[1]), n3 = double(n[2]), n4 = double(n[3]);
  if (variant == KneserNeyVariant::Standard) {
    if (n1 > 0) {  // D = n₁ / (n₁ + 2 n₂) ∈ (0, 1]
      d.d1 = d.d2 = d.d3 = n1 / (n1 + 2 * n2);
    } else {
      d.d1 = d.d2 = d.d3 = 0.5;
      d.fallback = true;
    }
    return d;
  }
  if (n1 > 0 && n2 > 0 && n3 > 0) {
    const double y = n1 / (n1 + 2 * n2);
    const double d1 = 1 - 2 * y * n2 / n1, d2 = 2 - 3 * y * n3 / n2, d3 = 3 - 4 * y * n4 / n3;
    if (d1 > 0 && d1 <= 1 && d2 > 0 && d2 <= 2 && d3 > 0 && d3 <= 3) {
      d.d1 = d1, d.d2 = d2, d.d3 = d3;
      return d;
    }
  }
  d.d1 = 0.5, d.d2 = 1.0, d.d3 = 1.5;
  d.fallback = true;
  return d;
}

double discount(const KneserNeyDiscounts& d, uint32_t a) { return a == 0 ? 0 : a == 1 ? d.d1 : a == 2 ? d.d2 : d.d3; }

// One level of the recursion: P_m(c | h) from P_{m−1}(c | h') = lower, with the counts a = A(h c) of the context.
double interpolate(const KnCounts& s, const KneserNeyDiscounts& d, uint32_t a, double lower) {
  const double total = double(s.total);
  const double gamma = (d.d1 * double(s.n1) + d.d2 * double(s.n2) + d.d3 * double(s.n3)) / total;
  return std::max(double(a) - discount(d, a), 0.0) / total + gamma * lower;
}

KneserNey train(const std::vector<std::vector<uint32_t>>& seqs, int max_order, KneserNeyVariant variant, bool records) {
  KneserNey kn;
  kn.max_order = std::clamp(max_order, 1, kMaxOrder);
  kn.variant = variant;
  kn.records = records;
  auto tables = std::make_shared<KneserNeyTables>();
  for (int m = 1; m <= kn.max_order; ++m) tables->levels.push_back(count_level(seqs, m));
  for (int m = 1; m <= kn.max_order; ++m) {
    KnLevel& level = tables->levels[size_t(m - 1)];
    if (m < kn.max_order)
      count_continuations(&level, tables->levels[size_t(m)], m);
    else
      for (KnGram& g : level.grams) g.cont = g.raw;  // never read: no order above
    std::array<uint64_t, 4> raw_coc{}, cont_coc{};   // count-of-counts n₁ … n₄
    for (KnContext& c : level.contexts)
      for (uint32_t i = c.begin; i < c.end; ++i) {
        const KnGram& g = level.grams[i];
        c.raw.add(g.raw);
        c.cont.add(g.cont);
        if (g.raw >= 1 && g.raw <= 4) ++raw_coc[g.raw - 1];
        if (g.cont >= 1 && g.cont <= 4) ++cont_coc[g.cont - 1];
      }
    kn.top_discounts.push_back(estimate_discounts(raw_coc, variant));
    kn.lower_discounts.push_back(estimate_discounts(cont_coc, variant));
  }
  uint64_t once = 0;  // n₁: training symbols seen exactly once
  for (const KnGram& g : tables->levels[0].grams) {
    kn.vocabulary.push_back(g.symbol);  // sorted: the unigrams have one context
    once += g.raw == 1;
  }
  for (const auto& s : seqs) kn.train_symbols += s.size();
  kn.p_new = double(once + 1) / double(kn.train_symbols + 1);
  kn.tables = std::move(tables);
  return kn;
}

std::vector<uint32_t> record_symbols(const std::string& record) {
  std::vector<uint32_t> s = decode_utf8(record);
  s.push_back(kKneserNeyEnd);
  return s;
}

bool in_vocabulary(const KneserNey& kn, uint32_t c) {
  return std::binary_search(kn.vocabulary.begin(), kn.vocabulary.end(), c);
}

// P_n(c | history) for every order n = 1 … orders at once: out[n − 1]. hist holds the last four symbols (key
// symbols), oldest first, BOS where the sequence had none; c is a vocabulary symbol or kKneserNeyUnseen. The
// continuation chain q_m = P_m under continuation counts is shared; order n replaces its top level by raw counts.
void probs_all_orders(const KneserNey& kn, const std::array<uint32_t, 4>& hist, uint32_t c, int orders, double* out) {
  const KneserNeyTables& t = *kn.tables;
  const KnGram none{};
  double q = 0;  // P_{m−1}(c | h') under continuation counts
  Key context = 0;
  for (int m = 1; m <= orders; ++m) {
    if (m >= 2) context |= Key(hist[size_t(4 - (m - 1))]) << (kSymbolBits * (m - 2));
    const KnLevel& level = t.levels[size_t(m - 1)];
    const KnContext* ctx = find_context(level, context);
    const long i = ctx ? find_gram(level, *ctx, c) : -1;
    const KnGram& g = i >= 0 ? level.grams[size_t(i)] : none;
    if (m == 1) {  // the escape for an unseen symbol; the vocabulary's unigrams share the rest, floored by 1 / V
      if (i < 0) {
        out[0] = q = c == kKneserNeyUnseen ? kn.p_new : 0;
        continue;
      }
      const double uniform = 1.0 / double(kn.vocabulary.size()), seen = 1 - kn.p_new;
      out[0] = seen * interpolate(ctx->raw, kn.top_discounts[0], g.raw, uniform);
      q = seen * interpolate(ctx->cont, kn.lower_discounts[0], g.cont, uniform);
      continue;
    }
    if (!ctx) {
      out[m - 1] = q;
      continue;
    }
    out[m - 1] = interpolate(ctx->raw, kn.top_discounts[size_t(m - 1)], g.raw, q);
    q = interpolate(ctx->cont, kn.lower_discounts[size_t(m - 1)], g.cont, q);
  }
}

std::array<uint32_t, 4> bos_history() { return {kBos, kBos, kBos, kBos}; }
void push(std::array<uint32_t, 4>* hist, uint32_t c) {
  std::rotate(hist->begin(), hist->begin() + 1, hist->end());
  (*hist)[3] = key_symbol(c);
}

// Adds the cost of every symbol of one sequence (BOS-padded) to scores[n − 1], n = 1 … scores.size().
void score_sequence(const KneserNey& kn, const std::vector<uint32_t>& seq, std::vector<KneserNeyScore>* scores) {
  const int orders = int(scores->size());
  std::array<uint32_t, 4> hist = bos_history();
  std::array<double, kMaxOrder> p{};
  for (uint32_t c : seq) {
    const bool seen = in_vocabulary(kn, c);
    probs_all_orders(kn, hist, seen ? c : kKneserNeyUnseen, orders, p.data());
    const double alphabet = seen ? 0 : std::log2(double(c == kKneserNeyEnd ? 1 : script_alphabet_size(c)));
    for (int n = 1; n <= orders; ++n) {
      KneserNeyScore& s = (*scores)[size_t(n - 1)];
      const double bits = -std::log2(p[size_t(n - 1)]) + alphabet;
      s.bits += bits;
      ++s.symbols;
      if (!seen) ++s.unseen, s.unseen_bits += bits;
    }
    push(&hist, c);
  }
}

std::vector<KneserNeyScore> finish(std::vector<KneserNeyScore> scores) {
  for (size_t i = 0; i < scores.size(); ++i) {
    scores[i].order = int(i) + 1;
    scores[i].bits_per_char = scores[i].symbols ? scores[i].bits / double(scores[i].symbols) : 0;
  }
  return scores;
}

int usable_order(const KneserNey& kn, int order) { return order <= 0 ? kn.max_order : std::min(order, kn.max_order); }

}  // namespace

KneserNey kneser_ney_train(const std::vector<uint32_t>& text, int max_order, KneserNeyVariant variant) {
  std::vector<std::vector<uint32_t>> seqs(1);
  seqs[0].reserve(text.size());
  for (uint32_t c : text) seqs[0].push_back(c <= 0x10FFFF ? c : 0xFFFD);  // only code points: END and BOS are ours
  return train(seqs, max_order, variant, false);
}

KneserNey kneser_ney_train_records(const std::vector<std::string>& records, int max_order, KneserNeyVariant variant) {
  std::vector<std::vector<uint32_t>> seqs;
  seqs.reserve(records.size());
  for (const std::string& r : records) seqs.push_back(record_symbols(r));
  return train(seqs, max_order, variant, true);
}

double kneser_ney_prob(const KneserNey& kn, const std::vector<uint32_t>& history, uint32_t c, int order) {
  if (!kn.tables) return 1.0;
  const int n = usable_order(kn, order);
  std::array<uint32_t, 4> hist = bos_history();
  for (size_t i = history.size() > 4 ? history.size() - 4 : 0; i < history.size(); ++i) push(&hist, history[i]);
  std::array<double, kMaxOrder> p{};
  probs_all_orders(kn, hist, in_vocabulary(kn, c) ? c : kKneserNeyUnseen, n, p.data());
  return p[size_t(n - 1)];
}

std::vector<KneserNeyScore> kneser_ney_score_orders(const KneserNey& kn, const std::vector<uint32_t>& heldout) {
  std::vector<KneserNeyScore> scores(size_t(kn.tables ? kn.max_order : 0));
  if (kn.tables) score_sequence(kn, heldout, &scores);
  return finish(std::move(scores));
}

KneserNeyScore kneser_ney_score(const KneserNey& kn, const std::vector<uint32_t>& heldout, int order) {
  if (!kn.tables) return {};
  std::vector<KneserNeyScore> scores(size_t(usable_order(kn, order)));
  score_sequence(kn, heldout, &scores);
  return finish(std::move(scores)).back();
}

std::vector<KneserNeyScore> kneser_ney_score_records(const KneserNey& kn, const std::vector<std::string>& records) {
  std::vector<KneserNeyScore> scores(size_t(kn.tables ? kn.max_order : 0));
  if (kn.tables)
    for (const std::string& r : records) score_sequence(kn, record_symbols(r), &scores);
  return finish(std::move(scores));
}

double kneser_ney_bits(const KneserNey& kn, const std::vector<uint32_t>& heldout, int order) {
  return kneser_ney_score(kn, heldout, order).bits_per_char;
}

KneserNeyBest kneser_ney_best(const std::vector<uint32_t>& train_text, const std::vector<uint32_t>& heldout,
                              int max_order, KneserNeyVariant variant) {
  const KneserNey kn = kneser_ney_train(train_text, max_order, variant);
  KneserNeyBest best;
  for (const KneserNeyScore& s : kneser_ney_score_orders(kn, heldout)) {
    best.per_order.push_back(s.bits_per_char);
    if (best.order == 0 || s.bits_per_char < best.bits_per_char)
      best.order = s.order, best.bits_per_char = s.bits_per_char;
  }
  return best;
}

}  // namespace tw
