#include "core/text/tokenizer.h"

#include <cstdio>

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
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    case ' ': return "\u2423";  // open box: a visible space
    default: break;
  }
  char buf[24];
  if (id >= 0x21 && id < 0x7f) return std::string(1, static_cast<char>(id));
  if (id >= 0 && id < 256)
    std::snprintf(buf, sizeof buf, "\\x%02X", id);
  else
    std::snprintf(buf, sizeof buf, "<id %d>", id);
  return buf;
}

}  // namespace tw
