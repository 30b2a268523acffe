// libFuzzer target (seeds cover every model, normalizer, pre-tokenizer, post-processor and decoder kind):
// tokenizer.json parsing gives a tokenizer or one message for any bytes; an accepted tokenizer
// encodes and decodes any text (the input itself, and fixed UTF-8 samples) without crashing, every id it produces
// is inside its vocabulary, and every label is non-empty.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tw::Tokenizer tok;
  std::string error;
  if (!tw::tokenizer_from_json(text, &tok, &error)) {
    if (error.empty() || error.find('\n') != std::string::npos) std::abort();  // one line that says why
    return 0;
  }
  for (const std::string& sample : {text, std::string("Hello world's 123 \n\n  日本 🙂 \xff"), std::string()}) {
    const auto ids = tok.encode(sample, size % 2 == 0);
    for (int id : ids) {
      if (id < 0 || id >= tok.vocab_size()) std::abort();
      if (tok.label(id).empty()) std::abort();
      (void)tok.token_bytes(id);
    }
    (void)tok.decode(ids);
    (void)tok.pre_split(sample);
  }
  (void)tok.decode({-1, 0, 1, 1 << 30});
  (void)tok.decode({0, 1, 2, 3}, /*skip_special=*/true);
  return 0;
}
