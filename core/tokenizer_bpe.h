#pragma once
// BPE tokenizers read from a Hugging Face tokenizer.json, for real checkpoints (the byte tokenizer in
// core/tokenizer.h stays for the toy models).
//
// Two kinds share one merge loop:
//   ByteLevel (GPT-2, SmolLM, Llama 3, Qwen2): every byte of the text is first mapped to a printable character
//     by GPT-2's bytes_to_unicode table (a space becomes 'Ġ', a newline 'Ċ'), so the vocabulary never needs an
//     "unknown" token. The text is first cut into pieces by the pre-tokenizer's pattern (words with their leading
//     space, runs of digits, punctuation, whitespace), and merges never cross a piece boundary.
//   Metaspace (SentencePiece-style: Llama 2, TinyLlama, Mistral): spaces become '▁' and one '▁' is put in front
//     of the text; the units are Unicode characters, and a character the vocabulary lacks falls back to its
//     UTF-8 bytes as <0xNN> tokens.
// Within a piece the adjacent pair with the lowest merge rank (its line in "merges") is merged, again and again,
// until no adjacent pair is in the merge list. Added tokens (<|endoftext|>, <s>, ...) are cut out of the text
// first and never merged.
//
// The pre-tokenizer patterns are regular expressions with look-ahead and Unicode classes that std::regex cannot
// express; the three in use (GPT-2's, Llama 3's and Qwen2's) are written out by hand here, character class by
// character class, with ICU providing \p{L}, \p{N} and \s. A tokenizer.json declaring any other pattern is
// refused with a message, never tokenized wrongly.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tw {

enum class BpeKind { ByteLevel, Metaspace };
enum class PreSplit {
  None,    // the whole text is one piece (SentencePiece style)
  Gpt2,    // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  Llama3,  // (?i:'s|...|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
  Qwen2,   // as Llama3 but \p{N} one digit at a time
};

struct AddedToken {
  std::string content;  // matched literally in the text
  int id = 0;
  bool special = false;  // control tokens (<s>, <|endoftext|>) as opposed to extra vocabulary
};

class BpeTokenizer {
 public:
  // Token ids of `text`; add_bos puts bos_id first (when the tokenizer has one).
  std::vector<int> encode(std::string_view text, bool add_bos) const;
  std::vector<int> encode(std::string_view text) const { return encode(text, add_bos_); }
  // The text of the ids; unknown ids are skipped. decode(encode(s)) == s for any UTF-8 text without added-token
  // strings in it (ByteLevel: for any bytes at all).
  std::string decode(const std::vector<int>& ids, bool skip_special = false) const;
  // The vocabulary string of one id ("Ġthe", "▁the", "<0x0A>", "<s>"), empty for an unknown id.
  const std::string& token_string(int id) const;
  // What a token chip shows: the token's own text with a visible space '␣', '↵' for a newline, '⇥' for a tab,
  // \xNN for a byte that is only part of a UTF-8 character.
  std::string label(int id) const;
  // The pieces the pre-tokenizer cuts `text` into before merging (exposed for tests and the tokenizer view).
  std::vector<std::string> pre_split(std::string_view text) const;

  int vocab_size() const { return static_cast<int>(id_to_token_.size()); }
  BpeKind kind() const { return kind_; }
  PreSplit split() const { return split_; }
  int bos_id() const { return bos_id_; }
  int eos_id() const { return eos_id_; }
  bool adds_bos() const { return add_bos_; }
  void set_bos(int id, bool add) { bos_id_ = id, add_bos_ = add && id >= 0; }
  bool is_special(int id) const;
  int token_id(const std::string& token) const;  // -1 when absent

 private:
  friend bool bpe_tokenizer_from_json(const std::string&, BpeTokenizer*, std::string*);
  void encode_piece(std::string_view piece, std::vector<int>* out) const;
  void encode_segment(std::string_view segment, bool first, std::vector<int>* out) const;
  std::string token_bytes(int id) const;  // the raw bytes a token stands for

  BpeKind kind_ = BpeKind::ByteLevel;
  PreSplit split_ = PreSplit::None;
  bool split_digits_ = false;       // Digits pre-tokenizer (SmolLM: every digit its own piece)
  bool individual_digits_ = false;  // ... one digit per piece, else runs of digits
  bool add_prefix_space_ = false;   // ByteLevel: a space is put before text that does not start with one
  bool prepend_always_ = false;     // Metaspace: '▁' before every segment (else only before the first)
  bool prepend_ = true;             // Metaspace: '▁' before the first segment
  bool metaspace_split_ = false;    // Metaspace pre-tokenizer with split: pieces start at each '▁'
  bool byte_fallback_ = false;      // unknown characters become <0xNN> tokens
  bool ignore_merges_ = false;      // a whole piece found in the vocabulary is one token (Llama 3)
  bool fuse_unk_ = false;           // consecutive unknown tokens become one
  int unk_id_ = -1, bos_id_ = -1, eos_id_ = -1;
  bool add_bos_ = false;
  int byte_token_[256];  // id of <0xNN>, or -1

  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> id_to_token_;
  std::vector<char> special_;  // per id
  std::vector<AddedToken> added_;
  std::unordered_map<uint64_t, std::pair<int, int>> merges_;  // (left id, right id) → (rank, merged id)
};

// GPT-2's bytes_to_unicode: the printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves, the other
// 68 to U+0100 onwards in byte order. Returned as the UTF-8 of each byte's character.
const std::vector<std::string>& byte_level_alphabet();

// Parses tokenizer.json text. On failure returns false with one line in *error (*out untouched). Refuses
// non-BPE models, unknown pre-tokenizer patterns and merges naming tokens the vocabulary lacks.
bool bpe_tokenizer_from_json(const std::string& text, BpeTokenizer* out, std::string* error);
bool load_bpe_tokenizer(const std::string& path, BpeTokenizer* out, std::string* error);

}  // namespace tw
