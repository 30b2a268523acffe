#pragma once
// A character-level vocabulary for a language model, saved as a standard Hugging Face tokenizer.json: every
// character of the training text that occurs at least twice is one token (most frequent first, ties by code
// point), the 256 byte tokens <0x00> … <0xFF> come first, and any other character is spelled by its UTF-8 bytes
// (byte_fallback). No normalizer and no pre-tokenizer: the model is a BPE with no merges, so each character is
// looked up on its own. For Chinese text a Han character or a punctuation mark is one token.

#include <string>

namespace tw {

// tokenizer.json text for `text` with at most max_vocab tokens (≥ 257: the bytes and at least one character).
// Characters beyond the cap fall back to bytes like rare ones.
std::string char_tokenizer_json(const std::string& text, int max_vocab);

}  // namespace tw
