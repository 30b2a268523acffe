// libFuzzer target: any byte string round-trips through the byte-level tokenizer, and labels never fail.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "core/text/byte_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto ids = tw::ByteTokenizer::encode(text, size % 2 == 0);
  if (tw::ByteTokenizer::decode(ids) != text) std::abort();  // round trip is the tokenizer's contract
  for (int id : ids)
    if (tw::ByteTokenizer::label(id).empty()) std::abort();
  // Arbitrary ids (also out of range) must decode without crashing.
  std::vector<int> raw;
  for (size_t i = 0; i + 4 <= size; i += 4) {
    int32_t v;
    std::memcpy(&v, data + i, 4);
    raw.push_back(v);
  }
  (void)tw::ByteTokenizer::decode(raw);
  for (int id : raw) (void)tw::ByteTokenizer::label(id);
  return 0;
}
