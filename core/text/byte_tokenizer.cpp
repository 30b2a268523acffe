#include "core/text/byte_tokenizer.h"

#include "core/text/token_display.h"

namespace tw {

std::vector<int> ByteTokenizer::encode(std::string_view text, bool add_bos) {
  std::vector<int> ids;
  ids.reserve(text.size() + (add_bos ? 1 : 0));
  if (add_bos) ids.push_back(kBos);
  for (char c : text) ids.push_back(static_cast<unsigned char>(c));
  return ids;
}

std::string ByteTokenizer::decode(const std::vector<int>& ids) {
  std::string text;
  text.reserve(ids.size());
  for (int id : ids)
    if (id >= 0 && id < 256) text.push_back(static_cast<char>(static_cast<unsigned char>(id)));
  return text;
}

std::string ByteTokenizer::label(int id) {
  switch (id) {
    case kBos: return "<bos>";
    case kEos: return "<eos>";
    case kPad: return "<pad>";
    default: break;
  }
  // A byte as every other tokenizer's byte shows (core/text/token_display): a character as itself, whitespace made
  // visible, a byte of a longer UTF-8 character as ⟨E6⟩.
  if (id >= 0 && id < 256) return display_bytes(std::string(1, static_cast<char>(id)));
  return "<id " + std::to_string(id) + ">";
}

}  // namespace tw
