#pragma once
// Byte-level tokenizer: every byte of the UTF-8 text is one token (ids 0..255), plus a few special tokens.
// Any text round-trips exactly, including invalid UTF-8, because no byte is ever merged or dropped.

#include <string>
#include <string_view>
#include <vector>

namespace tw {

struct ByteTokenizer {
  static constexpr int kBos = 256;        // <bos>: start of a sequence
  static constexpr int kEos = 257;        // <eos>: end of a sequence
  static constexpr int kPad = 258;        // <pad>: filler for batching
  static constexpr int kVocabSize = 259;  // smallest vocab that holds every byte and special

  // Token ids of `text`, optionally preceded by <bos>.
  static std::vector<int> encode(std::string_view text, bool add_bos = false);
  // The bytes of the byte tokens; special tokens and ids outside 0..258 are skipped.
  static std::string decode(const std::vector<int>& ids);
  // A printable label for one token without its neighbours (display_bytes of the byte): "a", "␣", "↵", "⟨E2⟩" for
  // a byte of a longer UTF-8 character, "<bos>", or "<id 9000>" for ids beyond the bytes.
  static std::string label(int id);
  static bool is_special(int id) { return id >= kBos && id < kVocabSize; }
};

}  // namespace tw
