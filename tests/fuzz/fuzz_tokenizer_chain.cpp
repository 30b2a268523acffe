// libFuzzer target: tokenizer.json component chains. The input is a normalizer, a pre-tokenizer and a decoder (one
// JSON object {"normalizer": …, "pre_tokenizer": …, "decoder": …}, anything else in it ignored) put around a fixed
// byte-level BPE vocabulary; the input itself is then the text. Every chain is refused in one line or encodes and
// decodes within a time budget (catastrophic regexes stop at ICU's time limit, growing normalizers at their bound,
// long Sequences are refused), and every id is inside the vocabulary.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/base/json_parse.h"
#include "core/text/pretokenizer.h"
#include "core/text/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json chain;
  std::string why;
  if (!tw::parse_json_object(text, &chain, &why)) return 0;
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[tw::byte_level_alphabet()[static_cast<size_t>(b)]] = b;
  nlohmann::json j = {
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}},
      {"added_tokens", nlohmann::json::array({{{"id", 256}, {"content", "<|endoftext|>"}, {"special", true}}})}};
  for (const char* stage : {"normalizer", "pre_tokenizer", "decoder", "post_processor"})
    if (chain.contains(stage)) j[stage] = chain[stage];
  tw::Tokenizer tok;
  std::string error;
  if (!tw::tokenizer_from_json(j.dump(), &tok, &error)) {
    if (error.empty() || error.find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& sample : {text, std::string(40, 'a') + "b", std::string("x <|endoftext|> y 日本 🙂")}) {
    std::vector<int> ids;
    if (!tok.encode_checked(sample, true, &ids, &error)) {
      if (error.empty() || error.find('\n') != std::string::npos) std::abort();
      continue;
    }
    for (int id : ids)
      if (id < 0 || id >= tok.vocab_size()) std::abort();
    (void)tok.decode(ids);
  }
  if (std::chrono::steady_clock::now() - start > std::chrono::seconds(5)) std::abort();  // the time budget
  return 0;
}
