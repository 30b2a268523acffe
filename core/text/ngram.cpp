#include "core/text/ngram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "core/base/utf8.h"
#include "core/random.h"

namespace tw {

namespace {
constexpr int kBeforeText = -1;
constexpr uint32_t kNewline = '\n';
}  // namespace

namespace {
double usable_k(double k) { return k > 0 ? k : 1e-9; }
}  // namespace

NgramModel::NgramModel(const std::vector<std::string>& train_records, int n, NgramSmoothing smoothing, double k)
    : n_(std::clamp(n, 1, 5)), smoothing_(smoothing), k_(usable_k(k)) {
  symbols_ = {0, 0};  // END, UNK: no code point
  std::set<uint32_t> chars;
  for (const std::string& r : train_records)
    for (uint32_t cp : decode_utf8(r)) chars.insert(cp);
  for (uint32_t cp : chars) {
    id_of_[cp] = static_cast<int>(symbols_.size());
    symbols_.push_back(cp);
  }
  counts_.resize(size_t(n_));
  for (const std::string& r : train_records) {
    const std::vector<int> seq = encode(r);
    std::vector<int> history;
    for (int c : seq) {
      for (int m = 1; m <= n_; ++m) {
        Context& ctx = counts_[size_t(m - 1)][key(history, m)];
        ++ctx.total;
        ++ctx.next[c];
      }
      history.push_back(c);
    }
  }
}

std::vector<int> NgramModel::encode(const std::string& record) const {
  std::vector<int> seq;
  for (uint32_t cp : decode_utf8(record)) {
    const auto it = id_of_.find(cp);
    seq.push_back(it == id_of_.end() ? kUnk : it->second);
  }
  seq.push_back(kEnd);
  return seq;
}

std::string NgramModel::symbol_text(int id) const {
  if (id == kEnd) return "END";
  if (id == kUnk || id < 0 || id >= vocab_size()) return "UNK";
  const uint32_t cp = symbols_[size_t(id)];
  return cp == kNewline ? "\xE2\x8F\x8E" : encode_utf8(cp);  // ⏎ for a line break
}

// Up to four symbols of 16 bits each (ids + 2, so BOS = 1 and 0 means "no symbol"): n ≤ 5 needs at most four.
uint64_t NgramModel::key(const std::vector<int>& history, int m) const {
  uint64_t k = 0;
  for (int i = 0; i < m - 1; ++i) {
    const long pos = static_cast<long>(history.size()) - (m - 1) + i;
    const int id = pos < 0 ? kBeforeText : history[size_t(pos)];
    k = (k << 16) | static_cast<uint64_t>(id + 2);
  }
  return k;
}

double NgramModel::prob_order(const std::vector<int>& history, int c, int m, NgramSmoothing smoothing, double k) const {
  const double V = vocab_size();
  if (m == 0) return 1.0 / V;
  const auto& table = counts_[size_t(m - 1)];
  const auto it = table.find(key(history, m));
  if (smoothing == NgramSmoothing::AddK) {
    const double total = it == table.end() ? 0 : double(it->second.total);
    double count = 0;
    if (it != table.end()) {
      const auto jt = it->second.next.find(c);
      if (jt != it->second.next.end()) count = double(jt->second);
    }
    return (count + k) / (total + k * V);
  }
  const double lower = prob_order(history, c, m - 1, smoothing, k);
  if (it == table.end()) return lower;
  const double total = double(it->second.total), types = double(it->second.next.size());
  const auto jt = it->second.next.find(c);
  const double count = jt == it->second.next.end() ? 0 : double(jt->second);
  return (count + types * lower) / (total + types);
}

// prob_order for every c, the same operations in the same order per symbol (so equal bit for bit).
void NgramModel::distribution_order(const std::vector<int>& history, int m, std::vector<double>* p) const {
  const size_t V = size_t(vocab_size());
  if (m == 0) {
    p->assign(V, 1.0 / double(V));
    return;
  }
  const auto& table = counts_[size_t(m - 1)];
  const auto it = table.find(key(history, m));
  if (smoothing_ == NgramSmoothing::AddK) {
    const double total = it == table.end() ? 0 : double(it->second.total);
    const double unseen = (0 + k_) / (total + k_ * double(V));
    p->assign(V, unseen);
    if (it != table.end())
      for (const auto& [c, count] : it->second.next) (*p)[size_t(c)] = (double(count) + k_) / (total + k_ * double(V));
    return;
  }
  distribution_order(history, m - 1, p);
  if (it == table.end()) return;
  const double total = double(it->second.total), types = double(it->second.next.size());
  // Seen symbols first (they read the lower order's value), then every unseen one: count 0 adds exactly nothing.
  std::vector<std::pair<int, double>> seen;
  seen.reserve(it->second.next.size());
  for (const auto& [c, count] : it->second.next)
    seen.emplace_back(c, (double(count) + types * (*p)[size_t(c)]) / (total + types));
  for (double& x : *p) x = (types * x) / (total + types);
  for (const auto& [c, x] : seen) (*p)[size_t(c)] = x;
}

std::vector<double> NgramModel::distribution(const std::vector<int>& history) const {
  std::vector<double> p;
  distribution_order(history, n_, &p);
  return p;
}

double NgramModel::prob_given(const std::vector<int>& history, int c) const {
  return prob_order(history, c, n_, smoothing_, k_);
}

double NgramModel::prob(const std::vector<int>& seq, size_t pos, int c) const {
  const std::vector<int> history(seq.begin(), seq.begin() + static_cast<long>(std::min(pos, seq.size())));
  return prob_given(history, c);
}

double NgramModel::bits_per_symbol(const std::vector<std::string>& records, size_t* symbols) const {
  return bits_per_symbol(records, smoothing_, k_, symbols);
}

double NgramModel::bits_per_symbol(const std::vector<std::string>& records, NgramSmoothing smoothing, double k,
                                   size_t* symbols) const {
  k = usable_k(k);
  double bits = 0;
  size_t count = 0;
  for (const std::string& r : records) {
    const std::vector<int> seq = encode(r);
    std::vector<int> history;
    for (int c : seq) {
      bits -= std::log2(prob_order(history, c, n_, smoothing, k));
      ++count;
      history.push_back(c);
    }
  }
  if (symbols) *symbols = count;
  return count ? bits / double(count) : 0;
}

std::string NgramModel::sample(uint64_t seed, int max_chars) const {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 3);
  std::vector<int> history;
  std::string out;
  std::vector<double> p;
  for (int step = 0; step < max_chars; ++step) {
    distribution_order(history, n_, &p);
    double total = 0;
    for (int c = 0; c < vocab_size(); ++c) total += p[size_t(c)] = c == kUnk ? 0 : p[size_t(c)];
    double u = uniform01(rng) * total;
    int pick = kEnd;
    for (int c = 0; c < vocab_size(); ++c) {
      u -= p[size_t(c)];
      if (u <= 0 && p[size_t(c)] > 0) {
        pick = c;
        break;
      }
    }
    if (pick == kEnd) break;
    out += encode_utf8(symbols_[size_t(pick)]);  // the character itself (symbol_text shows ⏎ for a line break)
    history.push_back(pick);
  }
  return out;
}

size_t NgramModel::distinct(int m) const {
  if (m < 1 || m > n_) return 0;
  size_t n = 0;
  for (const auto& [k, ctx] : counts_[size_t(m - 1)]) n += ctx.next.size();
  return n;
}

double NgramModel::unseen_fraction(const std::vector<std::string>& records, int m) const {
  if (m < 1 || m > n_) return NAN;
  size_t total = 0, unseen = 0;
  for (const std::string& r : records) {
    const std::vector<int> seq = encode(r);
    std::vector<int> history;
    for (int c : seq) {
      ++total;
      const auto& table = counts_[size_t(m - 1)];
      const auto it = table.find(key(history, m));
      if (it == table.end() || !it->second.next.count(c)) ++unseen;
      history.push_back(c);
    }
  }
  return total ? double(unseen) / double(total) : 0;
}

MaskedComparison compare_causal_bidirectional(const std::vector<std::string>& train_records,
                                              const std::string& record) {
  const NgramModel tri(train_records, 3, NgramSmoothing::WittenBell);
  const NgramModel bi(train_records, 2, NgramSmoothing::WittenBell);
  return compare_causal_bidirectional(tri, bi, record);
}

MaskedComparison compare_causal_bidirectional(const NgramModel& tri, const NgramModel& bi, const std::string& record) {
  MaskedComparison m;
  const std::vector<int> seq = tri.encode(record);
  for (size_t i = 0; i < seq.size(); ++i) {
    m.chars.push_back(tri.symbol_text(seq[i]));
    m.p_causal.push_back(tri.prob(seq, i, seq[i]));
    if (i + 1 >= seq.size()) {
      m.p_bidirectional.push_back(NAN);
      continue;
    }
    // P(c | l, r) ∝ P(c | l) · P(r | c), normalised over every symbol c.
    const std::vector<int> left(seq.begin(), seq.begin() + static_cast<long>(i));
    const std::vector<double> p_left = bi.distribution(left);
    double z = 0, truth = 0;
    for (int c = 0; c < bi.vocab_size(); ++c) {
      const double w = p_left[size_t(c)] * bi.prob_given({c}, seq[i + 1]);
      z += w;
      if (c == seq[i]) truth = w;
    }
    m.p_bidirectional.push_back(z > 0 ? truth / z : 0);
  }
  return m;
}

}  // namespace tw
