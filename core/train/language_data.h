#pragma once
// What a language model trains on: a corpus (a shipped one from core/text/corpus.h, or the user's UTF-8 text) cut
// into records, split once into training and held-out records (every tenth record held out, as the n-gram panel
// does), a tokenizer trained on the training records only (or the tokenizer.json of the model being fine-tuned)
// (character-level with byte fallback, or byte-level BPE from core/text/tokenizer_training.h) saved as
// tokenizer.json, both parts as token ids, and the unigram and bigram baselines (core/text/ngram.h, Witten–Bell)
// on the same split.
//
// Text layout: every record is followed by a blank line ("\n\n"), so a model learns where a poem or quotation ends.
// Bits per character of the held-out text = total −log₂ p over its predicted tokens / its characters (code points,
// separators included); the baselines are measured on exactly the same token stream (plus one end symbol).
//
// Building the data trains a tokenizer (up to a second or two), so results are cached by source.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/text/tokenizer.h"

namespace tw {

enum class LmTokenizerKind { Character, Bpe };
const char* to_string(LmTokenizerKind kind);  // "character", "bpe"

struct LanguageSource {
  std::string corpus = "tang300";  // a corpus_catalogue() name, or "file" for `text`
  std::string text{};              // the user's UTF-8 text (corpus "file")
  LmTokenizerKind tokenizer = LmTokenizerKind::Character;
  int vocab_size = 3000;  // tokens of the tokenizer (character: at most; BPE: 256 bytes + merges), 257 … 8192
  // A model's own tokenizer.json (fine-tuning a loaded model on this text: its token ids must mean what they meant
  // in training). Non-empty: used as it is, and `tokenizer` and `vocab_size` are ignored; "" = train one.
  std::string tokenizer_json{};
};

struct LanguageData {
  LanguageSource source;
  std::string tokenizer_json;  // the standard file, loadable by the reference library
  Tokenizer tokenizer;      // the same file, loaded
  std::string train_text, heldout_text;
  std::vector<int> train_ids, heldout_ids;
  size_t train_records = 0, heldout_records = 0;
  size_t heldout_chars = 0;  // code points of heldout_text
  // Baselines in bits per held-out character: unigram and bigram models (Witten–Bell) over the same tokens as the
  // language model, counted on the training part; and the character n-grams of the n-gram panel, which predict a
  // character never seen in training as one free "unknown" symbol and so pay nothing for which character it is.
  double unigram_bits = 0, bigram_bits = 0;
  double char_unigram_bits = 0, char_bigram_bits = 0;
  std::string licence;  // where the text comes from and under which terms
};

// Limits: held-out text is cut to whole records within this many bytes (the evaluation runs on all of it).
inline constexpr size_t kMaxHeldOutBytes = 48 * 1024;

// The records of a user's text: paragraphs separated by blank lines, or its lines when that gives fewer than 20; a
// fortune file (a line holding only "%" between records, as /usr/share/games/fortunes/*) is read as the shipped
// corpora are (parse_fortune_records, core/text/corpus.h).
std::vector<std::string> text_records(const std::string& text);

// Builds (or returns the cached) data; false + one line naming the problem (missing corpus package, too little
// text, bad vocabulary size, a model tokenizer.json that cannot be read). `cancel` (optional) stops a tokenizer
// training early (false, "training cancelled"); `progress` (optional) receives the fraction done.
bool load_language_data(const LanguageSource& source, std::shared_ptr<const LanguageData>* out, std::string* error,
                        const std::atomic<bool>* cancel = nullptr, std::atomic<float>* progress = nullptr);
// True when load_language_data(source) would return the cached data at once; the GUI builds it on a worker first
// otherwise (a BPE tokenizer trains for a second or two).
bool language_data_ready(const LanguageSource& source);

}  // namespace tw
