#pragma once
// How a token is shown wherever tokens appear (chips, merge lists, tick labels, hover, CSV token_display): as
// the characters it stands for, not its vocabulary spelling.
//   byte-level BPE  "Ġthe" → "␣the", "æ³¨" → "注" (decoded through GPT-2's byte map)
//   metaspace       "▁the" → "␣the";  "<0x0A>" → "↵"
//   control chars   space ␣, newline ↵, tab ⇥, carriage return ␍, others ⟨1B⟩
//   partial UTF-8   a token holding only part of a character shows its bytes "⟨E6 B3⟩"; given the neighbouring
//                   tokens, the character it belongs to ("注") is available for a tooltip
//   special tokens  their own text, flagged for a distinct style

#include <string>
#include <string_view>
#include <vector>

namespace tw {

class Tokenizer;

struct TokenDisplay {
  std::string text;               // what to show
  bool special = false;           // <s>, <|endoftext|>, [CLS]: draw in a distinct style
  bool partial = false;           // holds bytes that are only part of a UTF-8 character
  std::string character;          // partial: the character(s) those bytes belong to in this sequence, else empty
  bool character_starts = false;  // partial: the first of those characters begins in this token (label it here)
};

// The display form of raw bytes: whole characters as themselves (whitespace made visible), every run of bytes
// that is not a whole character as ⟨E6 B3⟩.
std::string display_bytes(std::string_view bytes);

// A token spelled in GPT-2's byte alphabet ("Ġthe", "æ³¨") shown as what it stands for ("␣the", "注").
std::string display_byte_level(std::string_view token);
// A SentencePiece-style token ("▁the", "<0x0A>") shown as what it stands for ("␣the", "↵").
std::string display_metaspace(std::string_view token);

// One token without context (an unknown id shows as "<id N>").
TokenDisplay display_token(const Tokenizer& t, int id);

// The tokens of a sequence; a partial token's `character` is the character its bytes complete together with
// the neighbouring tokens' bytes.
std::vector<TokenDisplay> display_tokens(const Tokenizer& t, const std::vector<int>& ids);

// The same for tokens given as raw bytes (special[i] marks special tokens; may be empty).
std::vector<TokenDisplay> display_token_bytes(const std::vector<std::string>& token_bytes,
                                              const std::vector<bool>& special = {});

}  // namespace tw
