// Language-model baselines: character n-gram models on real text (Tang poems, Song ci, English quotations), their
// held-out bits per character as n grows (add-k, Witten–Bell and Kneser–Ney), why counting runs out (sparse tables),
// samples from each, and what a causal model and a bidirectional (masked) one can each predict.
//
// [SECTION] compute
// [SECTION] panel: controls
// The state, the result and the figures are in views/ngram/.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/experiments/model_bits.h"
#include "core/experiments/model_card.h"
#include "core/experiments/ngram_baselines.h"
#include "core/text/corpus.h"
#include "core/text/ngram.h"
#include "core/train/model_folder.h"
#include "views/ngram/ngram_state.h"
#include "views/recompute.h"

namespace tw {

namespace ngram_panel {

const PanelInfo kInfo = {"ngram", N_("Language-model baselines"), N_("Foundations"),
                         N_("Character n-gram models on real text: held-out bits per character, sparse counts, "
                            "samples; causal vs bidirectional prediction")};

// [SECTION] compute

using ResultPtr = std::shared_ptr<const NgramResult>;

// The folder's model on the held-out records, once per (folder, corpus): moving the add-k slider does not run the
// model again. A model that fails to load or score leaves the n-grams as they are and says why in the note.
void score_model(const NgramState& s, const Corpus& c, Progress& progress, NgramResult* r) {
  struct Scored {
    std::optional<ModelBits> bits;
    std::string name, error;
  };
  static std::mutex mutex;
  static std::map<std::pair<std::string, int>, Scored> cache;
  // The folder's weights file's time is part of the name, so a model saved again over the folder is scored again.
  std::error_code ec;
  const auto written = std::filesystem::last_write_time(s.model_dir + "/model.safetensors", ec);
  const std::string id = s.model_dir + "@" + (ec ? "?" : std::to_string(written.time_since_epoch().count()));
  const auto key = std::make_pair(id, int(s.corpus));
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) {
      r->model = it->second.bits, r->model_name = it->second.name, r->model_error = it->second.error;
      return;
    }
  }
  Scored scored;
  StepperModel m;
  if (!load_hf_stepper_model(
          s.model_dir, [&](double) { return !progress.cancelled(); }, &m, &scored.error)) {
    if (progress.cancelled()) return;  // not cached: the next run tries again
  } else {
    ModelBits b = model_bits_per_char(m, c.heldout);
    if (b.error.empty())
      scored.bits = b, scored.name = m.name;
    else
      scored.error = b.error;
  }
  r->model = scored.bits, r->model_name = scored.name, r->model_error = scored.error;
  std::lock_guard<std::mutex> lock(mutex);
  cache[key] = std::move(scored);
}

// The corpus's count tables and Witten–Bell statistics are counted once per corpus (core/experiments/ngram_baselines);
// a change of k or the record scores add-k and compares from the kept tables. A corpus not counted yet answers first
// with orders 1 … 2 only (a few milliseconds; orders 3 … 5 take up to 0.2 s), marked pending, and refine() counts
// the rest on the worker. Samples are kept per seed: a new seed answers first without them (marked pending) and
// refine() draws them.
constexpr int kSampleChars = 60;
constexpr int kFirstOrders = 2;  // what a corpus's first answer counts
ResultPtr compute_from(const NgramState& s, const NgramCorpusModels& models, Progress& progress,
                       std::shared_ptr<NgramResult> r) {
  const Corpus& c = models.corpus;
  r->train_chars = c.train_chars, r->heldout_chars = c.heldout_chars;
  r->train_records = c.train.size(), r->heldout_records = c.heldout.size();
  const int orders = int(models.wb.size());
  std::vector<OrderResult> kept;  // into r only when every order is in (a cancelled refinement leaves r as it was)
  for (int n = 1; n <= orders; ++n) {
    if (progress.cancelled()) return r;
    const NgramModel& wb = models.wb[size_t(n - 1)];
    const NgramOrderStats& stats = models.stats[size_t(n - 1)];
    r->vocab = wb.vocab_size();
    OrderResult o;
    o.n = n;
    o.heldout_wb = stats.heldout_wb;
    o.heldout_kn = stats.heldout_kn;
    o.heldout_kn_unseen = stats.heldout_kn_unseen;
    o.unseen_chars = stats.heldout_unseen_chars;
    o.heldout_addk = wb.bits_per_symbol(c.heldout, NgramSmoothing::AddK, s.k);
    o.train_wb = stats.train_wb;
    o.distinct = stats.distinct;
    o.unseen = stats.unseen;
    kept.push_back(std::move(o));
    progress.set(float(n) / (kMaxOrder + 1));
  }
  r->orders = std::move(kept);
  r->orders_pending = orders < kMaxOrder;
  std::vector<std::string> samples;
  r->samples_pending = !models.kept_samples(static_cast<uint64_t>(s.seed), kSampleChars, &samples);
  for (size_t i = 0; i < samples.size() && i < r->orders.size(); ++i) r->orders[i].sample = samples[i];
  const std::string& rec = c.heldout[size_t(std::clamp(s.record, 0, int(c.heldout.size()) - 1))];
  r->record = rec.substr(0, rec.find('\n'));
  r->masked = {};
  if (orders >= 3) r->masked = compare_causal_bidirectional(models.wb[2], models.wb[1], r->record);
  return r;
}
// The shipped language models' cards, read once: each gives the transformer's and every Kneser–Ney order's bits per
// character on the model's own held-out text (measured by bench/lm_card with core's Kneser–Ney).
std::shared_ptr<const std::vector<ShippedLanguageModel>> shipped_cards() {
  static const auto cards =
      std::make_shared<const std::vector<ShippedLanguageModel>>(shipped_language_models(shipped_models_dir()));
  return cards;
}

ResultPtr compute(const NgramState& s, Progress& progress) {
  auto r = std::make_shared<NgramResult>();
  r->state = s;
  r->shipped = shipped_cards();
  const int orders = ngram_corpus_models_kept(s.corpus, kMaxOrder) ? kMaxOrder : kFirstOrders;
  const auto models = ngram_corpus_models(s.corpus, orders, &r->error, progress.cancel_flag());
  if (!models) return r;
  compute_from(s, *models, progress, r);
  if (!s.model_dir.empty() && !progress.cancelled()) score_model(s, models->corpus, progress, r.get());
  return r;
}
bool pending(const NgramResult& r) { return r.error.empty() && (r.samples_pending || r.orders_pending); }
ResultPtr refine(const NgramState& s, const NgramResult& first, Progress& progress) {
  auto r = std::make_shared<NgramResult>(first);
  const auto models = ngram_corpus_models(s.corpus, kMaxOrder, &r->error, progress.cancel_flag());
  if (!models) return r;
  if (r->orders_pending) compute_from(s, *models, progress, r);
  if (progress.cancelled()) return r;
  const std::vector<std::string> samples = models->samples(static_cast<uint64_t>(s.seed), kSampleChars);
  for (size_t i = 0; i < samples.size() && i < r->orders.size(); ++i) r->orders[i].sample = samples[i];
  r->samples_pending = false;
  return r;
}
// From kept tables, or counting orders 1 … 2 of a new corpus, the first answer is a few milliseconds, waited for in
// the frame (a language model folder is scored on the worker).
bool quick(const NgramState& s) { return s.model_dir.empty(); }
std::string error_of(const NgramResult& r) { return r.error; }

// [SECTION] panel

class NgramPanel : public RecomputePanel<NgramState, NgramResult> {
 public:
  NgramPanel()
      : RecomputePanel(kInfo,
                       {.rows = {{{"bits", "sparsity"}},
                                 {{"transformer"}, 2.0f},
                                 {{"samples"}},
                                 {{"masked"}, 1.0f},
                                 {{"masks"}, 1.2f}}},
                       {compute,
                        error_of,
                        {bits_figure, sparsity_figure, transformer_figure, samples_figure, masked_figure, masks_figure},
                        quick,
                        pending,
                        refine}) {}

 protected:
  void bind(Controls& c) override {
    std::vector<std::string> corpora;
    for (const CorpusInfo& info : corpus_catalogue()) corpora.emplace_back(info.name);  // tang300, song100, quotes
    c.add_enum("corpus", &s_.corpus, corpora, tr("corpus"),
               tr("Text from Debian's fortune packages: Tang poems and Song ci (fortunes-zh), English quotations "
                  "(fortunes)."));
    c.add_float("k", &s_.k, 1e-4f, 1.0f, tr("add-$k$"),
                tr("Pseudo-count added to every count: large $k$ flattens, small $k$ trusts sparse counts."), true,
                "%.3g");
    c.add_int("record", &s_.record, 0, 200, tr("held-out record"),
              tr("Which held-out record's first line the causal and bidirectional models predict."));
    c.add_seed(&s_.seed, tr("Seed of the samples."));
    c.add_text("model_dir", &s_.model_dir, 1024, N_("language model folder"),
               N_("A model folder with a tokenizer (config.json, model.safetensors, tokenizer.json): its held-out bits "
                  "per character on the same records, drawn beside the n-grams. Empty: none."));
  }
};

}  // namespace ngram_panel

TW_REGISTER_PANEL(ngram_panel::NgramPanel);

}  // namespace tw
