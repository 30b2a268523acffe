#pragma once
// The pre-tokenizer stage of a tokenizer.json: cuts normalized text into pieces that the model tokenizes one by
// one (merges never cross a piece boundary). Patterns are compiled by ICU (core/text/unicode_regex.h).
//
// Supported: Split (Regex or String pattern; behavior Removed, Isolated, MergedWithPrevious, MergedWithNext,
// Contiguous; invert), ByteLevel (add_prefix_space, use_regex with GPT-2's pattern; maps every byte to GPT-2's
// printable byte alphabet), Metaspace (replacement, prepend_scheme first/always/never, split), Whitespace,
// WhitespaceSplit, Punctuation, Digits (individual_digits), BertPreTokenizer, and Sequence of any of these.

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tw {

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// The pieces of a text of `length` bytes given the byte ranges of the pattern's matches (sorted, disjoint), as
// the reference's split does: matches (or, with invert, the text between them) are removed, isolated, merged
// into the previous or next piece, or runs of them joined. Empty pieces are dropped.
std::vector<std::pair<size_t, size_t>> split_by_matches(size_t length,
                                                        const std::vector<std::pair<size_t, size_t>>& matches,
                                                        SplitBehavior behavior, bool invert);

// GPT-2's bytes_to_unicode: the printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves, the other
// 68 to U+0100 onwards in byte order. Returned as the UTF-8 of each byte's character.
const std::vector<std::string>& byte_level_alphabet();
// The byte a byte-alphabet character (its UTF-8) stands for, or -1.
int byte_level_byte(std::string_view ch);

struct PreToken {
  std::string text;
  bool at_start = false;  // begins at offset 0 of the original text (Metaspace's prepend_scheme "first")
};

class PreTokenizer {
 public:
  // Reads the "pre_tokenizer" value (null or absent: the whole text is one piece). False with a one-line
  // *error naming an unknown type or a malformed step.
  bool from_json(const nlohmann::json& j, std::string* error);
  std::vector<PreToken> apply(std::vector<PreToken> pieces) const;
  bool byte_level() const { return byte_level_; }  // has a ByteLevel step
  bool metaspace() const { return !replacement_.empty(); }
  const std::string& metaspace_replacement() const { return replacement_; }

  struct Step;

 private:
  std::vector<std::shared_ptr<const Step>> steps_;
  bool byte_level_ = false;
  std::string replacement_;  // of a Metaspace step
};

}  // namespace tw
