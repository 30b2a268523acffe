// Lesson 4, language-modelling basics: entropy, cross-entropy, KL, perplexity and the sampling filters, from the
// decoding panel's distributions through core/experiments/information and core/ops/sampling, as the panel does.
#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiments/decoding_settings.h"
#include "core/experiments/information.h"
#include "core/lessons/lesson_quantity.h"
#include "core/lessons/quantity_values.h"
#include "core/lessons/scene_settings.h"
#include "core/ops/sampling.h"
#include "core/ops/softmax.h"
#include "core/text/tokenizer.h"
#include "core/text/tokenizer_training.h"

namespace tw {

namespace {

namespace lv = lesson_values;
using Json = nlohmann::json;

// The decoding panel's settings and the logits they parse to, when the panel would show figures for them.
struct Decoding {
  DecodingSettings s;
  DecodingInputs in;
};
std::optional<Decoding> decoding(const Json& v) {
  const std::optional<DecodingSettings> s = read_scene_settings<DecodingSettings>(v);
  if (!s) return std::nullopt;
  Decoding d{*s, params_of(*s)};
  if (!d.in.error.empty()) return std::nullopt;
  return d;
}

std::optional<InformationMeasures> measures(const Json& v) {
  const std::optional<Decoding> d = decoding(v);
  if (!d) return std::nullopt;
  return information_measures(softmax(d->in.logits_p, d->s.temp_p), softmax(d->in.logits_q, d->s.temp_q));
}

std::optional<SamplingTrace> trace(const Json& v) {
  const std::optional<Decoding> d = decoding(v);
  if (!d) return std::nullopt;
  SamplingTrace t;
  sampling_filter(t, std::vector<float>(d->in.logits_p.begin(), d->in.logits_p.end()), d->s.sampling);
  return t;
}

std::optional<double> entropy_p(const Json& v) {
  const auto m = measures(v);
  if (!m) return std::nullopt;
  return m->entropy_p;
}

std::optional<double> cross_entropy(const Json& v) {
  const auto m = measures(v);
  if (!m) return std::nullopt;
  return m->cross_entropy;
}

std::optional<double> kl_pq(const Json& v) {
  const auto m = measures(v);
  if (!m) return std::nullopt;
  return m->kl_pq;
}

// exp(typed loss): the perplexity the panel shows when no training run is linked.
std::optional<double> typed_perplexity(const Json& v) {
  const std::optional<Decoding> d = decoding(v);
  if (!d) return std::nullopt;
  return perplexity_from_loss(d->s.loss);
}

std::optional<double> kept_tokens(const Json& v) {
  const auto t = trace(v);
  if (!t) return std::nullopt;
  return t->n_final;
}

// The largest probability after the sampling temperature, before any filter.
std::optional<double> top_probability(const Json& v) {
  const auto t = trace(v);
  if (!t || t->probs_before.empty()) return std::nullopt;
  return *std::max_element(t->probs_before.begin(), t->probs_before.end());
}

// Tokens WordPiece cuts the tokenizers panel's sentence into, trained on its text box to its vocabulary size.
std::optional<double> wordpiece_tokens(const Json& v) {
  const auto text = lv::text(v, "tokenizers.text");
  const auto file = lv::text(v, "tokenizers.file");
  const auto vocab = lv::integer(v, "tokenizers.vocab");
  const auto sentence = lv::text(v, "tokenizers.sentence");
  if (!text || !file || !vocab || !sentence || !file->empty() || !check_training_text(*text).empty())
    return std::nullopt;  // a training file is the panel's to read, not a lesson's
  WordPieceTraining model;
  std::string error;
  Tokenizer tok;
  if (!train_wordpiece(*text, *vocab, &model, &error) || !tokenizer_from_json(model.tokenizer_json, &tok, &error))
    return std::nullopt;
  return static_cast<double>(tok.encode(*sentence, false).size());
}

}  // namespace

std::vector<LessonQuantity> lesson_4_quantities() {
  return {
      {"decoding.entropy_p", entropy_p, "entropy H(p) of the decoding panel's p, bits"},
      {"decoding.cross_entropy", cross_entropy, "cross-entropy H(p, q), bits"},
      {"decoding.kl_pq", kl_pq, "KL(p||q), bits"},
      {"decoding.typed_perplexity", typed_perplexity, "exp of the typed mean loss (nats)"},
      {"decoding.kept_tokens", kept_tokens, "tokens of p that survive temperature, top-k, top-p and min-p"},
      {"tokenizers.wordpiece_tokens", wordpiece_tokens,
       "tokens WordPiece cuts the sentence into (trained on the text box to the vocabulary size)"},
      {"decoding.top_probability", top_probability, "largest probability of p after the sampling temperature"},
  };
}

}  // namespace tw
