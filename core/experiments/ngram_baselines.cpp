#include "core/experiments/ngram_baselines.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

namespace tw {

std::vector<std::string> NgramCorpusModels::samples(uint64_t seed, int chars) const {
  std::vector<std::string> out;
  if (kept_samples(seed, chars, &out)) return out;
  for (const NgramModel& m : wb) out.push_back(m.sample(seed, chars));
  std::lock_guard<std::mutex> lock(mutex_);
  if (samples_.size() >= 256) samples_.clear();  // a bound for a seed dragged for a long time
  samples_[{seed, chars}] = out;
  return out;
}

bool NgramCorpusModels::kept_samples(uint64_t seed, int chars, std::vector<std::string>* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = samples_.find({seed, chars});
  if (it == samples_.end()) return false;
  *out = it->second;
  return true;
}

namespace {
std::mutex mutex;
std::map<std::pair<int, int>, std::shared_ptr<const NgramCorpusModels>> kept;
}  // namespace

bool ngram_corpus_models_kept(CorpusId id, int max_order) {
  std::lock_guard<std::mutex> lock(mutex);
  return kept.count({int(id), max_order}) > 0;
}

std::shared_ptr<const NgramCorpusModels> ngram_corpus_models(CorpusId id, int max_order, std::string* error,
                                                             const std::atomic<bool>* cancel) {
  const auto key = std::make_pair(int(id), max_order);
  error->clear();
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = kept.find(key); it != kept.end()) return it->second;
  }
  // Fewer orders of the same corpus kept (a first answer): its corpus and tables are the start of these.
  std::shared_ptr<const NgramCorpusModels> start;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [k, m] : kept)
      if (k.first == int(id) && k.second < max_order && (!start || m->wb.size() > start->wb.size())) start = m;
  }
  Corpus corpus;
  if (start) {
    corpus = start->corpus;
  } else {
    *error = load_corpus(id, &corpus);
    if (!error->empty()) return nullptr;  // not kept: the package may be installed before the next call
  }
  std::shared_ptr<const NgramCorpusModels> m = count_ngram_corpus(std::move(corpus), max_order, cancel, start.get());
  if (!m) return nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  return kept.emplace(key, std::move(m)).first->second;
}

std::shared_ptr<const NgramCorpusModels> count_ngram_corpus(Corpus corpus, int max_order,
                                                            const std::atomic<bool>* cancel,
                                                            const NgramCorpusModels* start) {
  auto m = std::make_shared<NgramCorpusModels>();
  m->corpus = std::move(corpus);
  const Corpus& c = m->corpus;
  if (start) {
    const size_t reuse = std::min(start->wb.size(), size_t(std::max(max_order, 0)));
    m->wb.assign(start->wb.begin(), start->wb.begin() + long(reuse));
    m->stats.assign(start->stats.begin(), start->stats.begin() + long(reuse));
  }
  for (int n = int(m->wb.size()) + 1; n <= max_order; ++n) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return nullptr;
    const NgramModel& wb = m->wb.emplace_back(c.train, n, NgramSmoothing::WittenBell);
    NgramOrderStats o;
    o.n = n;
    o.heldout_wb = wb.bits_per_symbol(c.heldout);
    o.train_wb = wb.bits_per_symbol(c.train);
    o.distinct = wb.distinct(n);
    o.unseen = wb.unseen_fraction(c.heldout, n);
    m->stats.push_back(o);
  }
  // Kneser–Ney's order-n numbers do not depend on the highest order counted, but its tables do (the continuation
  // counts of order n come from the (n+1)-grams): counted again for every max order, in one pass for all orders.
  // Not for a first answer of one or two orders, which the frame waits for (it would take about 60% longer).
  for (NgramOrderStats& o : m->stats) o.heldout_kn = NAN, o.heldout_kn_unseen = NAN;
  if (max_order < kKneserNeyMinOrder) return m;
  if (cancel && cancel->load(std::memory_order_relaxed)) return nullptr;
  m->kn = kneser_ney_train_records(c.train, max_order);
  const std::vector<KneserNeyScore> kn = kneser_ney_score_records(m->kn, c.heldout);
  for (size_t i = 0; i < m->stats.size() && i < kn.size(); ++i) {
    m->stats[i].heldout_kn = kn[i].bits_per_char;
    m->stats[i].heldout_kn_unseen = kn[i].symbols ? kn[i].unseen_bits / double(kn[i].symbols) : 0;
    m->stats[i].heldout_unseen_chars = kn[i].unseen;
  }
  return m;
}

}  // namespace tw
