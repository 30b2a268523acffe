// Corpus → records → split → tokenizer → ids and baselines, cached by source.
#include "core/train/language_data.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/base/i18n.h"
#include "core/base/utf8.h"
#include "core/enum_names.h"
#include "core/text/char_tokenizer.h"
#include "core/text/corpus.h"
#include "core/text/ngram.h"
#include "core/text/tokenizer_training.h"

namespace tw {

namespace {
constexpr const char* kLmTokenizerNames[] = {N_("character"), N_("bpe")};
static_assert(names_every(kLmTokenizerNames, LmTokenizerKind::Bpe));

std::string joined(const std::vector<std::string>& records) {
  std::string out;
  for (const std::string& r : records) out += r + "\n\n";
  return out;
}

std::string cache_key(const LanguageSource& s) {
  const std::hash<std::string> hash;
  return s.corpus + "|" + to_string(s.tokenizer) + "|" + std::to_string(s.vocab_size) + "|" +
         std::to_string(s.text.size()) + "|" + std::to_string(hash(s.text)) + "|" +
         std::to_string(s.tokenizer_json.size()) + "|" + std::to_string(hash(s.tokenizer_json));
}

// A fortune file: some line holds only "%" (the record separator of /usr/share/games/fortunes/*).
bool fortune_text(std::string_view text) {
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (line == "%" || line == "%\r") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

const char* to_string(LmTokenizerKind kind) { return enum_name(kLmTokenizerNames, kind); }

std::vector<std::string> text_records(const std::string& text) {
  if (fortune_text(text)) return parse_fortune_records(text);
  auto split = [&](bool paragraphs) {
    std::vector<std::string> out;
    std::string cur;
    size_t start = 0;
    auto flush = [&] {
      while (!cur.empty() && cur.back() == '\n') cur.pop_back();
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    };
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(start, end - start);
      start = end + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const bool blank = line.find_first_not_of(" \t") == std::string::npos;
      if (blank || !paragraphs) {
        if (!blank) cur = line;
        flush();
        continue;
      }
      cur += line + "\n";
    }
    flush();
    return out;
  };
  std::vector<std::string> r = split(true);
  return r.size() >= 20 ? r : split(false);
}

namespace {
struct Cache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const LanguageData>> by_key;
};
Cache& cache() {
  static Cache c;
  return c;
}
}  // namespace

bool language_data_ready(const LanguageSource& source) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.by_key.count(cache_key(source)) > 0;
}

bool load_language_data(const LanguageSource& source, std::shared_ptr<const LanguageData>* out, std::string* error,
                        const std::atomic<bool>* cancel, std::atomic<float>* progress) {
  Cache& c = cache();
  const std::string key = cache_key(source);
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (auto it = c.by_key.find(key); it != c.by_key.end()) {
      *out = it->second;
      return true;
    }
  }
  const bool own_tokenizer = source.tokenizer_json.empty();  // else the model's tokenizer.json, as it is
  if (own_tokenizer && (source.vocab_size < 257 || source.vocab_size > 8192))
    return *error = tr("language model vocabulary must be 257 … 8192 tokens"), false;
  auto d = std::make_shared<LanguageData>();
  d->source = source;
  Corpus corpus;
  if (source.corpus == "file") {
    if (std::string bad = utf8_error(source.text, tr("training text")); !bad.empty()) return *error = bad, false;
    corpus = split_corpus(CorpusId::TangPoems, text_records(source.text));
    d->licence = tr("the user's own text");
  } else {
    const CorpusInfo* info = nullptr;
    for (const CorpusInfo& c : corpus_catalogue())
      if (source.corpus == c.name) info = &c;
    if (!info)
      return *error = subst(tr("unknown corpus \"{0}\" (tang300, song100, quotes or file)"), {source.corpus}), false;
    if (std::string e = load_corpus(info->id, &corpus); !e.empty()) return *error = e, false;
    d->licence = info->package == std::string("fortunes-zh")
                     ? "Debian fortunes-zh, GPL-3.0+ (/usr/share/doc/fortunes-zh/copyright)"
                     : "Debian fortunes, see /usr/share/doc/fortunes/copyright";
  }
  if (corpus.train.size() < 9 || corpus.heldout.empty())
    return *error = subst(tr("the text has {0} records; a language model needs at least 10 (paragraphs or lines), "
                             "every tenth held out"),
                          {std::to_string(corpus.train.size() + corpus.heldout.size())}),
           false;
  // The held-out part is cut to whole records within kMaxHeldOutBytes (at least one record).
  std::vector<std::string> heldout;
  size_t bytes = 0;
  for (const std::string& r : corpus.heldout) {
    if (!heldout.empty() && bytes + r.size() + 2 > kMaxHeldOutBytes) break;
    heldout.push_back(r);
    bytes += r.size() + 2;
  }
  d->train_text = joined(corpus.train);
  d->heldout_text = joined(heldout);
  d->train_records = corpus.train.size();
  d->heldout_records = heldout.size();
  d->heldout_chars = decode_utf8(d->heldout_text).size();

  if (!own_tokenizer) {
    d->tokenizer_json = source.tokenizer_json;
  } else if (source.tokenizer == LmTokenizerKind::Character) {
    d->tokenizer_json = char_tokenizer_json(d->train_text, source.vocab_size);
  } else {
    BpeTraining bpe;
    if (!train_bpe(std::string(utf8_prefix(d->train_text, kMaxTrainingTextBytes)), source.vocab_size - 256, &bpe, error,
                   cancel, progress))
      return false;
    // Every field a standard tokenizer.json has (the reference libraries refuse a file without them).
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(bpe.tokenizer_json);
    nlohmann::ordered_json full = {{"version", "1.0"},          {"truncation", nullptr},
                                   {"padding", nullptr},        {"added_tokens", nlohmann::ordered_json::array()},
                                   {"normalizer", nullptr},     {"pre_tokenizer", j["pre_tokenizer"]},
                                   {"post_processor", nullptr}, {"decoder", j["decoder"]}};
    nlohmann::ordered_json model = {{"type", "BPE"},
                                    {"dropout", nullptr},
                                    {"unk_token", nullptr},
                                    {"continuing_subword_prefix", nullptr},
                                    {"end_of_word_suffix", nullptr},
                                    {"fuse_unk", false},
                                    {"byte_fallback", false},
                                    {"ignore_merges", false},
                                    {"vocab", j["model"]["vocab"]},
                                    {"merges", j["model"]["merges"]}};
    full["model"] = model;
    full["pre_tokenizer"]["trim_offsets"] = true;
    full["decoder"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
    d->tokenizer_json = full.dump(1);
  }
  if (!tokenizer_from_json(d->tokenizer_json, &d->tokenizer, error)) return false;  // "tokenizer.json: ..."
  // A step of a model's own tokenizer.json that gives up on the text (a regex past its time limit, a normalizer
  // growing it past its bound, an unknown character) refuses the run, naming it.
  if (!d->tokenizer.encode_checked(d->train_text, false, &d->train_ids, error) ||
      !d->tokenizer.encode_checked(d->heldout_text, false, &d->heldout_ids, error))
    return false;
  if (d->heldout_ids.size() < 2) return *error = tr("the held-out text is shorter than two tokens"), false;

  // The n-gram models count symbols of a string: a token becomes the private-use code point U+F0000 + id.
  auto token_string = [](const std::vector<int>& ids) {
    std::string out;
    for (int id : ids) append_utf8(&out, 0xF0000u + static_cast<uint32_t>(id));
    return out;
  };
  auto baselines = [&](const std::string& train, const std::string& heldout, double* uni_bits, double* bi_bits) {
    const std::vector<std::string> train_stream{train}, heldout_stream{heldout};
    size_t symbols = 0;
    const NgramModel uni(train_stream, 1, NgramSmoothing::WittenBell), bi(train_stream, 2, NgramSmoothing::WittenBell);
    *uni_bits = uni.bits_per_symbol(heldout_stream, &symbols) * double(symbols) / double(d->heldout_chars);
    *bi_bits = bi.bits_per_symbol(heldout_stream, &symbols) * double(symbols) / double(d->heldout_chars);
  };
  baselines(token_string(d->train_ids), token_string(d->heldout_ids), &d->unigram_bits, &d->bigram_bits);
  baselines(d->train_text, d->heldout_text, &d->char_unigram_bits, &d->char_bigram_bits);

  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.by_key.size() >= 6) c.by_key.clear();
  c.by_key[key] = d;
  *out = d;
  return true;
}

}  // namespace tw
