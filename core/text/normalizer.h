#pragma once
// The normalizer stage of a tokenizer.json: rewrites the text before it is split and tokenized. Unicode
// normalization forms (NFC, NFD, NFKC, NFKD) and lower-casing come from ICU (icu::Normalizer2, root-locale case
// mapping), so they follow the Unicode tables exactly as the reference library's Rust implementation does.
//
// Supported steps: NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, Replace (String or Regex pattern),
// Prepend, BertNormalizer, Precompiled (SentencePiece's charsmap: NFKC is applied instead, with a note), and
// Sequence of any of these.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

// A normalized text may be at most this many times its input (plus a few bytes): a chain of 40 Replace a → aa
// would otherwise double the text 40 times. Past it apply() stops and reports (report_pipeline_failure).
constexpr size_t kMaxNormalizedGrowth = 8;

class Normalizer {
 public:
  // Reads the "normalizer" value (null or absent: no normalization). False with a one-line *error naming an
  // unknown type or a malformed step; *note gets a line when something is approximated (Precompiled).
  bool from_json(const nlohmann::json& j, std::string* error, std::string* note);
  std::string apply(std::string_view text) const;
  bool empty() const { return steps_.empty(); }

  struct Step;

 private:
  std::vector<std::shared_ptr<const Step>> steps_;
};

}  // namespace tw
