#pragma once
// Tokenizers read from a Hugging Face tokenizer.json, for real checkpoints (the byte tokenizer in
// core/text/byte_tokenizer.h stays for the toy models). The file's pipeline is followed as the reference library runs
// it:
//   1. added tokens (<|endoftext|>, <s>, Gemma's whitespace runs, ...) are cut out of the raw text first —
//      those marked "normalized" after normalization — with lstrip/rstrip/single_word; a byte trie finds the
//      leftmost-longest one, so thousands of them cost one walk per position;
//   2. the normalizer (core/text/normalizer.h: NFC/NFKC via ICU, Lowercase, Replace, Prepend, ...);
//   3. the pre-tokenizer (core/text/pretokenizer.h: Split with the file's own regex via ICU, ByteLevel,
//      Metaspace, Digits, ...) cuts the text into pieces;
//   4. the model turns each piece into ids: BPE (merge the adjacent pair of lowest rank until none is left;
//      ignore_merges, byte_fallback, fuse_unk, continuing_subword_prefix/end_of_word_suffix), WordPiece (greedy
//      longest match, "##" continuations) or Unigram (Viterbi over the vocabulary's log-probabilities);
//   5. the post-processor (TemplateProcessing, Bert/Roberta, ByteLevel, Sequence) decides the special tokens
//      put before and after the text.
// Decoding runs the file's decoder chain (ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, WordPiece,
// BPEDecoder, Sequence).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/text/normalizer.h"
#include "core/text/pretokenizer.h"

namespace tw {

// [SECTION] the merge loop
// (left id, right id) → (rank, merged id). Merging repeatedly joins the adjacent pair of lowest rank (leftmost on
// ties) until no adjacent pair is in the table.
using BpeMerges = std::unordered_map<uint64_t, std::pair<int, int>>;
inline uint64_t bpe_pair_key(int a, int b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }
// The plain version: scan every pair for the lowest rank, merge it, repeat. O(n²) lookups for n symbols.
void bpe_merge_reference(std::vector<int>& symbols, const BpeMerges& merges);
// The same result with a min-heap of candidate pairs over a linked list: O(n log n), for the long unsplit texts
// SentencePiece-style tokenizers merge as one piece. Tested against the reference.
void bpe_merge(std::vector<int>& symbols, const BpeMerges& merges);

// [SECTION] tokenizer

enum class BpeKind { ByteLevel, Metaspace };  // how token strings spell bytes and spaces
enum class TokenizerModel { BPE, WordPiece, Unigram };

struct AddedToken {
  std::string content;  // matched literally in the text
  int id = 0;
  bool special = false;     // control tokens (<s>, <|endoftext|>) as opposed to extra vocabulary
  bool normalized = false;  // matched in the normalized text rather than the raw text
  bool lstrip = false, rstrip = false, single_word = false;
};

// Heterogeneous lookup, so pieces are looked up as string_views without copying.
struct TokenHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
using TokenMap = std::unordered_map<std::string, int, TokenHash, std::equal_to<>>;

class Tokenizer {
 public:
  // Token ids of `text`; add_special puts the post-processor's special tokens around them (the BOS of Llama,
  // [CLS]/[SEP] of BERT), or the one set_bos() chose.
  std::vector<int> encode(std::string_view text, bool add_special) const;
  std::vector<int> encode(std::string_view text) const { return encode(text, true); }
  // encode() for text a user typed or loaded: false with one line in *error (naming the file and the component)
  // when a step gave up on it (a regex past its time limit, a normalizer growing it past its bound, an unknown
  // character the model cannot spell where Hugging Face raises an error) or when it was dropped whole.
  bool encode_checked(std::string_view text, bool add_special, std::vector<int>* ids, std::string* error) const;
  // The text of the ids through the file's decoder; unknown ids are skipped, special tokens too when asked.
  std::string decode(const std::vector<int>& ids, bool skip_special = false) const;
  // The vocabulary string of one id ("Ġthe", "▁the", "<0x0A>", "<s>"), empty for an unknown id.
  const std::string& token_string(int id) const;
  // What a token chip shows (core/text/token_display.h): the characters it stands for with a visible space '␣',
  // '↵' for a newline, '⇥' for a tab, ⟨E6 B3⟩ for bytes that are only part of a UTF-8 character.
  std::string label(int id) const;
  // The raw bytes a token stands for (byte-level characters mapped back, ▁ as a space, <0xNN> as its byte).
  std::string token_bytes(int id) const;
  // The pieces the normalizer and pre-tokenizer cut `text` into before the model (for tests and the view),
  // spelled as the model sees them except that byte-level pieces are mapped back to their bytes.
  std::vector<std::string> pre_split(std::string_view text) const;

  int vocab_size() const { return static_cast<int>(id_to_token_.size()); }
  int merge_count() const { return static_cast<int>(merges_.size()); }
  bool byte_fallback() const { return byte_fallback_; }
  BpeKind kind() const { return kind_; }
  TokenizerModel model() const { return model_; }
  int bos_id() const { return bos_id_; }
  int eos_id() const { return eos_id_; }
  bool adds_bos() const { return !prefix_ids_.empty(); }
  // Overrides the special tokens put in front: just `id` when add, none otherwise.
  void set_bos(int id, bool add);
  bool is_special(int id) const;
  int token_id(std::string_view token) const;  // -1 when absent
  const std::vector<int>& prefix_ids() const { return prefix_ids_; }
  const std::vector<int>& suffix_ids() const { return suffix_ids_; }
  // One line about what was approximated while loading (dropout ignored, Precompiled as NFKC), or empty.
  const std::string& note() const { return note_; }

  struct Decoder;  // one step of the decoder chain

 private:
  friend bool tokenizer_from_json(const std::string&, Tokenizer*, std::string*);
  friend bool load_tokenizer(const std::string&, Tokenizer*, std::string*);
  friend struct TokenizerJsonReader;  // tokenizer_from_json's steps (core/text/tokenizer.cpp)
  struct Segment {
    std::string text;
    int added_id = -1;  // an added token, else text to tokenize
    bool at_start = false;
  };
  void split_added(std::vector<Segment>* segments, bool normalized) const;
  void encode_piece(std::string_view piece, std::vector<int>* out) const;
  void encode_bpe(std::string_view piece, std::vector<int>* out) const;
  void encode_wordpiece(std::string_view piece, std::vector<int>* out) const;
  void encode_unigram(std::string_view piece, std::vector<int>* out) const;

  TokenizerModel model_ = TokenizerModel::BPE;
  BpeKind kind_ = BpeKind::ByteLevel;
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  std::vector<std::shared_ptr<const Decoder>> decoders_;

  // Model options.
  bool byte_fallback_ = false;  // unknown characters become <0xNN> tokens
  bool ignore_merges_ = false;  // a whole piece found in the vocabulary is one token (Llama 3)
  bool fuse_unk_ = false;       // consecutive unknown tokens become one
  std::string subword_prefix_;  // BPE continuing_subword_prefix / WordPiece "##"
  std::string word_suffix_;     // BPE end_of_word_suffix
  int max_word_chars_ = 100;    // WordPiece: longer words are <unk>
  std::vector<double> scores_;  // Unigram: log-probability per id
  double unk_score_ = -10;      // Unigram: score of an unknown character
  size_t max_piece_bytes_ = 0;  // Unigram: longest vocabulary piece
  int unk_id_ = -1, bos_id_ = -1, eos_id_ = -1;
  std::string unk_token_;  // WordPiece/BPE: the unknown token the file names (it may be missing from the vocab)
  std::string source_;     // the file it was read from, for messages ("tokenizer.json" when read from text)
  std::vector<int> prefix_ids_, suffix_ids_;  // what the post-processor adds around one sequence
  int byte_token_[256];                       // id of <0xNN>, or -1
  std::string note_;

  TokenMap vocab_;
  std::vector<std::string> id_to_token_;
  std::vector<char> special_;  // per id
  std::vector<AddedToken> added_;
  std::vector<int> added_index_;  // per id: index into added_, or -1
  struct Trie {
    std::vector<std::unordered_map<unsigned char, int>> next{1};
    std::vector<int> token{-1};  // index into added_ of the token ending at each node
    bool empty() const { return next.size() == 1; }
  } raw_trie_, normalized_trie_;
  BpeMerges merges_;
};

// Parses tokenizer.json text. On failure returns false with one line in *error (*out untouched): an unknown
// component is named; a malformed file never crashes.
bool tokenizer_from_json(const std::string& text, Tokenizer* out, std::string* error);
// Longest Unigram piece Viterbi tries, in bytes (SentencePiece's pieces are at most 16 characters): longer pieces
// are never matched, with a note, so a vocabulary of 100 kB pieces cannot make a text take minutes.
constexpr size_t kMaxUnigramPieceBytes = 96;
bool load_tokenizer(const std::string& path, Tokenizer* out, std::string* error);

// Why the ids t.encode(text, ...) gave are no input although the text was not empty: the tokenizer dropped every
// character (none in its vocabulary, no <unk>, no byte fallback), said so instead of "the input is empty". Empty
// when a token other than a special one remains, or the text was empty.
std::string dropped_text_error(const Tokenizer& t, std::string_view text, const std::vector<int>& ids);

}  // namespace tw
